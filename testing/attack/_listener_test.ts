// test-permissions: --allow-net=127.0.0.1
import assert from "node:assert/strict";
import { type Hit, startListener } from "./_listener.ts";

Deno.test("the canary listener serves the secret; the allowed one answers and redirects to it; both record hits", async () => {
  const hits: Hit[] = [];
  const canary = await startListener(hits, "SECRET", "/tmp/canary.txt");
  const allowed = await startListener(hits, "SECRET", "/tmp/canary.txt", canary.port);
  assert.equal(await (await fetch(`http://127.0.0.1:${canary.port}/c/c1`)).text(), "SECRET");
  const base = `http://127.0.0.1:${allowed.port}/allowed`;
  const location = async (path: string) => {
    const response = await fetch(`${base}/${path}`, { redirect: "manual" });
    await response.body?.cancel();
    return response.headers.get("location");
  };
  assert.equal(await location("c2/redirect-metadata"), "http://169.254.169.254/latest/meta-data/");
  assert.equal(await location("c3/redirect-loopback"), `http://[::ffff:7f00:1]:${canary.port}/c/c3/redirected`);
  assert.equal(await location("c4/redirect-file"), "file:///tmp/canary.txt");
  assert.equal(await (await fetch(`${base}/c5/ok`)).text(), "ok");
  assert.deepEqual(hits.map((h) => [h.path, h.allowed, h.location]), [
    ["/c/c1", false, undefined],
    ["/allowed/c2/redirect-metadata", true, "http://169.254.169.254/latest/meta-data/"],
    ["/allowed/c3/redirect-loopback", true, `http://[::ffff:7f00:1]:${canary.port}/c/c3/redirected`],
    ["/allowed/c4/redirect-file", true, "file:///tmp/canary.txt"],
    ["/allowed/c5/ok", true, undefined],
  ]);
  await canary.close();
  await allowed.close();
});
