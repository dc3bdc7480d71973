// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
import assert from "node:assert/strict";
import { spawnRaw } from "./raw_client.ts";
import { fileURLToPath } from "node:url";

const fixture = fileURLToPath(new URL("./testdata/echo_server.ts", import.meta.url));

Deno.test("spawnRaw() sends raw bytes and reads each stdout line parsed, a malformed line's -32700 included", async () => {
  const server = await spawnRaw({ args: [fixture] });
  await server.send("{not json");
  const line = new TextEncoder().encode('{"jsonrpc":"2.0","id":"é","method":"ping"}\n');
  const cut = line.indexOf(0xc3) + 1;
  await server.send(line.subarray(0, cut));
  await server.send(line.subarray(cut));
  const malformed = await server.next();
  assert.deepEqual([malformed.id, (malformed.error as { code: number }).code], [null, -32700]);
  assert.deepEqual(await server.next(), { jsonrpc: "2.0", id: "é", result: {} });
  assert.equal(server.lines.length, 2);
  await server.waitForStderr("fixture ready");
  await server.closeInput();
  assert.equal((await server.status()).code, 0, "end of input ends the server cleanly");
});

Deno.test("spawnRaw().next() rejects at the end of output, quoting the server's stderr", async () => {
  const server = await spawnRaw({ args: [fixture, "--exit-at-once"] });
  await assert.rejects(server.next(), /the server closed stdout; stderr: not serving today/);
  assert.equal((await server.status()).code, 4);
});
