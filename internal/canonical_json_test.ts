import assert from "node:assert/strict";
import { canonicalJson, writeCanonical } from "./canonical_json.ts";

Deno.test("canonicalJson() sorts keys at every level and survives 100k levels of nesting", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
  );
  assert.equal(canonicalJson(JSON.parse('{"__proto__":1,"a":2}')), '{"__proto__":1,"a":2}');
  const deep = JSON.parse('{"a":'.repeat(100_000) + "1" + "}".repeat(100_000));
  assert.equal(canonicalJson(deep).length, 600_001);
});

Deno.test("canonicalJson() writes what RFC 8785 writes: UTF-16 key order, shortest numbers, minimal escapes", () => {
  // Keys compared as UTF-16 code units: U+E000 sorts after the surrogate pair of U+1F600, "\r" before "1".
  const value = JSON.parse('{"\\ue000":1,"\\ud83d\\ude00":2,"1":3,"\\r":4,"é":5}');
  assert.equal(canonicalJson(value), '{"\\r":4,"1":3,"\u00e9":5,"\ud83d\ude00":2,"\ue000":1}');
  assert.equal(
    canonicalJson([1e21, 1.5e-7, -0, 0.1 + 0.2, "\u2028", "\u001f"]),
    '[1e+21,1.5e-7,0,0.30000000000000004,"\u2028","\\u001f"]',
  );
  assert.equal(canonicalJson({ a: undefined, b: [undefined] }), '{"b":[null]}');
});

Deno.test("canonicalJson() refuses a value that refers to itself, and still writes one shared twice", () => {
  const cyclic: Record<string, unknown> = { a: [1] };
  (cyclic.a as unknown[]).push({ back: cyclic });
  assert.throws(() => canonicalJson(cyclic), { name: "TypeError", message: /refers to itself/ });
  const loop: unknown[] = [];
  loop.push(loop);
  assert.throws(() => canonicalJson(loop), TypeError);
  const shared = { x: 1 };
  assert.equal(canonicalJson({ a: shared, b: [shared, shared] }), '{"a":{"x":1},"b":[{"x":1},{"x":1}]}');
});

Deno.test("writeCanonical() hands out the canonical JSON in pieces: a long string in escaped slices, pairs kept whole", () => {
  // A pair straddles the first slice boundary (65,536 units); control characters and quotes are escaped per slice.
  const long = "a".repeat(65_535) + "😀" + '"\n\u0001'.repeat(30_000) + "\ud800";
  const value = { z: long, a: [long, 1] };
  const pieces: string[] = [];
  writeCanonical(value, (piece) => pieces.push(piece));
  assert.equal(pieces.join(""), canonicalJson(value));
  assert.equal(pieces.join(""), `{"a":[${JSON.stringify(long)},1],"z":${JSON.stringify(long)}}`);
  assert.ok(Math.max(...pieces.map((p) => p.length)) <= 6 * 65_536, "no piece holds the whole string");
});
