import assert from "node:assert/strict";
import {
  badEnvelope,
  envelopeOf,
  implementation,
  META_CAPABILITIES,
  META_CLIENT,
  META_VERSION,
  negotiateSessionVersion,
  SESSION_VERSIONS,
  STATELESS_VERSION,
} from "./_era.ts";
import { ErrorCode } from "./jsonrpc.ts";

const stateless = (extra: Record<string, unknown> = {}) => ({
  [META_VERSION]: STATELESS_VERSION,
  [META_CAPABILITIES]: { elicitation: {} },
  [META_CLIENT]: { name: "c", version: "1" },
  ...extra,
});

Deno.test("envelopeOf() serves the initialize era when _meta is absent or holds none of the 2026-07-28 keys", () => {
  assert.deepEqual(envelopeOf(undefined), { era: "session" });
  assert.deepEqual(envelopeOf({ progressToken: 1 }), { era: "session" });
});

Deno.test("envelopeOf() reads a 2026-07-28 envelope: its client and capabilities", () => {
  assert.deepEqual(envelopeOf(stateless()), {
    era: "stateless",
    client: { name: "c", version: "1" },
    capabilities: { elicitation: {} },
  });
  const anonymous = { era: "stateless", client: { name: "", version: "" }, capabilities: { elicitation: {} } };
  assert.deepEqual(envelopeOf(stateless({ [META_CLIENT]: undefined })), anonymous, "clientInfo is optional");
  assert.deepEqual(envelopeOf(stateless({ [META_CLIENT]: {} })), anonymous, "so are its name and version");
});

Deno.test("envelopeOf() refuses a malformed 2026-07-28 envelope with -32602, naming the key and the problem", () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ [META_CAPABILITIES]: {} }, META_VERSION, "missing"],
    [{ [META_CLIENT]: { name: "c" } }, META_VERSION, "missing"],
    [stateless({ [META_VERSION]: 20260728 }), META_VERSION, "must be a string"],
    [{ [META_VERSION]: STATELESS_VERSION }, META_CAPABILITIES, "missing"],
    [stateless({ [META_CAPABILITIES]: [] }), META_CAPABILITIES, "must be an object"],
    [stateless({ [META_CAPABILITIES]: null }), META_CAPABILITIES, "must be an object"],
    [stateless({ [META_CLIENT]: "client" }), META_CLIENT, "must be an object"],
    [stateless({ [META_CLIENT]: null }), META_CLIENT, "must be an object"],
    [stateless({ [META_CLIENT]: [] }), META_CLIENT, "must be an object"],
    [stateless({ [META_CLIENT]: { name: 5 } }), META_CLIENT, "name must be a string"],
    [stateless({ [META_CLIENT]: { name: "c", version: 1 } }), META_CLIENT, "version must be a string"],
  ];
  for (const [meta, key, problem] of cases) {
    assert.deepEqual(envelopeOf(meta), badEnvelope(key, problem), JSON.stringify(meta));
  }
  const bad = badEnvelope(META_VERSION, "missing");
  assert.equal(bad.error.code, ErrorCode.invalidParams);
  assert.deepEqual(bad.error.data, { envelope: { key: META_VERSION, problem: "missing" } });
});

Deno.test("envelopeOf() answers a version it does not speak with the supported list, the requested one cut short", () => {
  const envelope = envelopeOf(stateless({ [META_VERSION]: "2099-01-01" + "x".repeat(200) }));
  assert.equal(envelope.era, "invalid");
  if (envelope.era !== "invalid") return;
  assert.equal(envelope.error.code, ErrorCode.unsupportedProtocolVersion);
  assert.ok(envelope.error.message.length < 100, envelope.error.message);
  const data = envelope.error.data as { supported: string[]; requested: string };
  assert.deepEqual(data.supported, [STATELESS_VERSION]);
  assert.equal(data.requested.length, 64);
});

Deno.test("implementation() keeps a client's name and version as strings, cut short, and empty otherwise", () => {
  assert.deepEqual(implementation({ name: "n".repeat(300), version: "v".repeat(100) }), {
    name: "n".repeat(256),
    version: "v".repeat(64),
  });
  assert.deepEqual(implementation({ name: 1, version: null }), { name: "", version: "" });
  assert.deepEqual(implementation("client"), { name: "", version: "" });
  assert.deepEqual(implementation(null), { name: "", version: "" });
});

Deno.test("negotiateSessionVersion() answers with the client's version when spoken, else the newest", () => {
  for (const version of SESSION_VERSIONS) assert.equal(negotiateSessionVersion(version), version);
  assert.equal(negotiateSessionVersion("2099-01-01"), SESSION_VERSIONS[0]);
  assert.equal(negotiateSessionVersion(STATELESS_VERSION), SESSION_VERSIONS[0], "2026-07-28 has no initialize");
  assert.equal(negotiateSessionVersion(undefined), SESSION_VERSIONS[0]);
});
