import assert from "node:assert/strict";
import { parseConfigText } from "./_parse_text.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

Deno.test("parseConfigText() drops a UTF-8 byte order mark", () => {
  assert.deepEqual(parseConfigText(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a": 1}')])), { a: 1 });
  assert.deepEqual(parseConfigText('\uFEFF{"a": 1}'), { a: 1 });
});

Deno.test("parseConfigText() refuses bytes that are not UTF-8", () => {
  const junk = new Uint8Array([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]);
  assert.throws(() => parseConfigText(junk), {
    name: "SyntaxError",
    message: "Cannot parse config: the file is not UTF-8 text",
  });
});

Deno.test("parseConfigText() refuses an empty or blank file", () => {
  assert.throws(() => parseConfigText(new Uint8Array()), /the file is empty/);
  assert.throws(() => parseConfigText(" \n\t"), /the file is empty/);
});

Deno.test("parseConfigText() refuses valid UTF-8 that is not JSONC with a position", () => {
  assert.throws(() => parseConfigText(bytes("\u0001\u0002binary")), /unexpected character U\+0001 at line 1, column 1/);
});

Deno.test("parseConfigText() holds at most 100,000 values unless told otherwise", () => {
  const numbers = (n: number): string => `[${Array(n).fill(0).join(",")}]`;
  assert.equal((parseConfigText(numbers(99_999)) as unknown[]).length, 99_999);
  assert.throws(() => parseConfigText(numbers(100_000)), /more than 100000 values \(maxValues\)/);
  assert.throws(() => parseConfigText(numbers(3), { maxValues: 3 }), /more than 3 values \(maxValues\)/);
  assert.throws(() => parseConfigText("[[[]]]", { maxDepth: 2 }), /nesting is deeper than 2 levels/);
});
