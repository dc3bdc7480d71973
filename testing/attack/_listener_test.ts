// test-permissions: --allow-net=127.0.0.1
import assert from "node:assert/strict";
import { startListener } from "./_listener.ts";

Deno.test("the listener records every hit, serves the secret, and sends /allowed/…/redirect-* elsewhere", async () => {
  const listener = await startListener("SECRET", "/tmp/canary.txt");
  const base = `http://127.0.0.1:${listener.port}`;
  assert.equal(await (await fetch(`${base}/c/c1`)).text(), "SECRET");
  const redirect = await fetch(`${base}/allowed/c2/redirect-metadata`, { redirect: "manual" });
  await redirect.body?.cancel();
  assert.equal(redirect.headers.get("location"), "http://169.254.169.254/latest/meta-data/");
  const loop = await fetch(`${base}/allowed/c3/redirect-loopback`, { redirect: "manual" });
  await loop.body?.cancel();
  assert.equal(loop.headers.get("location"), `http://[::ffff:7f00:1]:${listener.port}/c/c3/redirected`);
  assert.equal(await (await fetch(`${base}/allowed/c4/ok`)).text(), "ok");
  assert.deepEqual(listener.hits.map((h) => h.path), [
    "/c/c1",
    "/allowed/c2/redirect-metadata",
    "/allowed/c3/redirect-loopback",
    "/allowed/c4/ok",
  ]);
  await listener.close();
});
