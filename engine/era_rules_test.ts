// test-permissions: --allow-run --allow-env --allow-read={repo}
// Which era a request is served in, over a real subprocess: `_meta` decides
// first, so a 2026-07-28 request never reaches the initialize-era handshake
// and a malformed 2026-07-28 envelope is refused rather than served as the
// other era; a client that sends no 2026-07-28 `_meta` still gets the
// initialize era.
import assert from "node:assert/strict";
import { type RawServer, spawnRaw } from "@forge/toolkit/testing";

const fixture = new URL("./testdata/fixture_server.ts", import.meta.url).pathname;
const VERSION = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT = "io.modelcontextprotocol/clientInfo";
const MODERN = { [VERSION]: "2026-07-28", [CAPABILITIES]: {}, [CLIENT]: { name: "raw", version: "1" } };

async function ask(server: RawServer, id: number, method: string, params?: unknown): Promise<Record<string, unknown>> {
  await server.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }));
  return await server.next();
}

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } };

Deno.test("initialize carrying 2026-07-28 _meta is -32601: the handshake is not a method of that version", async () => {
  const server = await spawnRaw({ args: [fixture] });
  const refused = await ask(server, 1, "initialize", { ...INITIALIZE, _meta: MODERN });
  assert.equal((refused.error as { code: number }).code, -32601);
  assert.match((refused.error as { message: string }).message, /"initialize" is not part of 2026-07-28/);
  // Nothing was negotiated: a session request is still refused as not initialized.
  const after = await ask(server, 2, "tools/list");
  assert.equal((after.error as { code: number }).code, -32602);
  await server.closeInput();
  assert.equal((await server.status()).code, 0);
});

Deno.test("server/discover whose _meta lacks the protocol version is -32602 naming the key, with or without other 2026 keys", async () => {
  const server = await spawnRaw({ args: [fixture] });
  const cases = [
    { _meta: { [CAPABILITIES]: {}, [CLIENT]: { name: "raw", version: "1" } } },
    { _meta: { [CLIENT]: {} } },
    {},
    undefined,
  ];
  let id = 0;
  for (const params of cases) {
    const refused = await ask(server, ++id, "server/discover", params);
    const error = refused.error as { code: number; data: unknown };
    assert.equal(error.code, -32602, JSON.stringify(params));
    assert.deepEqual(error.data, { envelope: { key: VERSION, problem: "missing" } });
  }
  // A tools/list with the 2026 keys but no version is refused the same way, not served as the other era.
  const list = await ask(server, ++id, "tools/list", { _meta: { [CAPABILITIES]: {} } });
  assert.equal((list.error as { code: number }).code, -32602);
  const served = await ask(server, ++id, "server/discover", { _meta: MODERN });
  assert.deepEqual((served.result as { supportedVersions: string[] }).supportedVersions, ["2026-07-28"]);
  await server.closeInput();
  await server.status();
});

Deno.test("a client that sends no 2026-07-28 _meta gets the initialize era, also after a 2026-07-28 probe", async () => {
  const server = await spawnRaw({ args: [fixture] });
  await ask(server, 1, "server/discover", { _meta: MODERN });
  const init = await ask(server, 2, "initialize", { ...INITIALIZE, _meta: { progressToken: "unrelated" } });
  assert.equal((init.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
  const list = await ask(server, 3, "tools/list", { _meta: { "vendor.example/trace": "x" } });
  assert.ok(Array.isArray((list.result as { tools: unknown[] }).tools));
  assert.equal(
    (list.result as Record<string, unknown>).resultType,
    undefined,
    "answered in the initialize era's shape",
  );
  await server.closeInput();
  await server.status();
});
