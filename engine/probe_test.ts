import assert from "node:assert/strict";
import { ALWAYS_META_KEY, checkPatterns, PROBE_META_KEY, probeResult } from "./probe.ts";

Deno.test("checkPatterns() copies well-formed patterns, so the tool cannot change them afterwards", () => {
  const patterns = ["write:a"];
  const checked = checkPatterns({ patterns, always: ["write:*"] });
  patterns.push("write:b");
  assert.deepEqual(checked, { patterns: ["write:a"], always: ["write:*"] });
  assert.deepEqual(checkPatterns({ patterns: [] }), { patterns: [] });
});

Deno.test("checkPatterns() refuses anything but non-empty strings in patterns and always", () => {
  for (
    const value of [null, "write:a", {}, { patterns: "write:a" }, { patterns: [""] }, { patterns: [1] }, {
      patterns: ["a"],
      always: [""],
    }, { patterns: ["a"], always: "a" }]
  ) {
    assert.throws(() => checkPatterns(value), TypeError, JSON.stringify(value));
  }
});

Deno.test("probeResult() lists the patterns in _meta and says nothing ran", () => {
  assert.deepEqual(probeResult({ patterns: ["read:a", "read:b"], always: ["read:*"] }), {
    content: [{ type: "text", text: "Probe only, not run: permission patterns: read:a, read:b" }],
    _meta: { [PROBE_META_KEY]: ["read:a", "read:b"], [ALWAYS_META_KEY]: ["read:*"] },
  });
  assert.deepEqual(probeResult(undefined), {
    content: [{ type: "text", text: "Probe only, not run: no permission patterns" }],
    _meta: { [PROBE_META_KEY]: [] },
  });
});
