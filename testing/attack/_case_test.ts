import assert from "node:assert/strict";
import { callLine, handshake, request } from "./_case.ts";

Deno.test("request() puts the 2026-07-28 envelope in _meta and nothing in the initialize era", () => {
  assert.deepEqual(JSON.parse(request("2026-07-28", "1", "tools/list")), {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  assert.equal(
    request("2025-11-25", '"x"', "tools/list", '{"a":1}'),
    '{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"a":1}}',
  );
});

Deno.test("callLine() marks a probe in _meta; handshake() opens only the initialize era", () => {
  const probe = JSON.parse(callLine("2025-11-25", "3", "w", '{"p":"a"}', true));
  assert.deepEqual(probe.params, { name: "w", arguments: { p: "a" }, _meta: { "forge.permission_patterns": true } });
  assert.deepEqual(handshake("2026-07-28"), []);
  const [init, initialized] = handshake("2025-06-18").map((s) => JSON.parse(s.line));
  assert.equal(init.params.protocolVersion, "2025-06-18");
  assert.equal(initialized.method, "notifications/initialized");
});
