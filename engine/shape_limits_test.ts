import assert from "node:assert/strict";
import { shapeOverLimit } from "./shape_limits.ts";

const enc = new TextEncoder();

Deno.test("shapeOverLimit() counts brackets outside strings and stops at the first level past maxDepth", () => {
  // No container limit here: only the depth is judged.
  const nestsDeeper = (bytes: Uint8Array, limit: number) =>
    shapeOverLimit(bytes, { maxDepth: limit, maxContainers: Infinity, maxValues: Infinity, maxKeyBytes: Infinity }) ===
      "maxDepth";
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  assert.equal(nestsDeeper(enc.encode(nested(1000)), 1000), false);
  assert.equal(nestsDeeper(enc.encode(nested(1001)), 1000), true);
  assert.equal(nestsDeeper(enc.encode(`{"a":${nested(5)}}`), 5), true);
  assert.equal(nestsDeeper(enc.encode(`{"a":${nested(4)}}`), 5), false);
  // Brackets in strings, escaped quotes and escaped backslashes.
  assert.equal(nestsDeeper(enc.encode(`{"s":"${"[".repeat(50)}\\"[[[","t":"\\\\"}`), 3), false);
  assert.equal(nestsDeeper(enc.encode(`{"s":"\\\\",${'"k":'.repeat(1)}${nested(3)}}`), 3), true);
  // Unterminated input is left to JSON.parse to refuse.
  assert.equal(nestsDeeper(enc.encode(`{"s":"${"[".repeat(50)}`), 3), false);
  // An open run with no closers, as an attacker sends it.
  assert.equal(nestsDeeper(enc.encode("[".repeat(100_000)), 1000), true);
});

Deno.test("shapeOverLimit() counts commas and colons outside strings against maxValues", () => {
  const limits = (maxValues: number) => ({ maxDepth: 1000, maxContainers: 1000, maxValues, maxKeyBytes: Infinity });
  const line = (n: number) => enc.encode(`{"a":[${Array(n).fill("1").join(",")}],"s":"${",:".repeat(50)}"}`);
  // n items: n - 1 commas, two colons and one comma between the members.
  assert.equal(shapeOverLimit(line(100), limits(102)), undefined);
  assert.equal(shapeOverLimit(line(101), limits(102)), "maxValues");
  assert.equal(shapeOverLimit(enc.encode("[1,2]"), limits(1)), undefined, "one comma is within a limit of one");
});

Deno.test("shapeOverLimit() counts arrays and objects outside strings and names the first limit broken", () => {
  const enc = new TextEncoder();
  const empties = (n: number) => `[${Array(n).fill("[]").join(",")}]`;
  assert.equal(
    shapeOverLimit(enc.encode(empties(9)), {
      maxDepth: 1000,
      maxContainers: 10,
      maxValues: Infinity,
      maxKeyBytes: Infinity,
    }),
    undefined,
  );
  assert.equal(
    shapeOverLimit(enc.encode(empties(10)), {
      maxDepth: 1000,
      maxContainers: 10,
      maxValues: Infinity,
      maxKeyBytes: Infinity,
    }),
    "maxContainers",
  );
  assert.equal(
    shapeOverLimit(enc.encode(`[{},{},${JSON.stringify("{}".repeat(100))}]`), {
      maxDepth: 1000,
      maxContainers: 3,
      maxValues: Infinity,
      maxKeyBytes: Infinity,
    }),
    undefined,
  );
  assert.equal(
    shapeOverLimit(enc.encode("[".repeat(20)), {
      maxDepth: 5,
      maxContainers: 100,
      maxValues: Infinity,
      maxKeyBytes: Infinity,
    }),
    "maxDepth",
  );
  assert.equal(
    shapeOverLimit(enc.encode("[]"), { maxDepth: 5, maxContainers: 1, maxValues: Infinity, maxKeyBytes: Infinity }),
    undefined,
  );
});

Deno.test("shapeOverLimit() refuses an object key longer than maxKeyBytes as sent, and no value of that length", () => {
  const limits = { maxDepth: 1000, maxContainers: 1000, maxValues: 1000, maxKeyBytes: 10 };
  const over = (text: string) => shapeOverLimit(enc.encode(text), limits);
  assert.equal(over(`{"${"k".repeat(10)}":1}`), undefined);
  assert.equal(over(`{"${"k".repeat(11)}":1}`), "maxKeyBytes");
  // Whitespace before the colon still makes it a key; a value of any length is not one.
  assert.equal(over(`{"a":{"${"k".repeat(11)}" \n\t :[]}}`), "maxKeyBytes");
  assert.equal(over(`{"k":"${"v".repeat(100)}","l":["${"v".repeat(100)}"]}`), undefined);
  // Bytes as sent: four bytes of one escape are four bytes, a € three, an escaped quote inside two.
  assert.equal(over(`{"\\u0041\\u0042\\u0043":1}`), "maxKeyBytes");
  assert.equal(over(`{"€€€":1,"€€€€":2}`), "maxKeyBytes");
  assert.equal(over(`{"€€€":1}`), undefined);
  assert.equal(over(`{"ab\\"cd\\"ef":1}`), undefined);
  assert.equal(over(`{"abc\\"de\\"fg":1}`), "maxKeyBytes");
  // A line too short to hold such a key is not scanned for it, and no limit means none.
  assert.equal(
    shapeOverLimit(enc.encode(`{"${"k".repeat(100)}":1}`), { ...limits, maxKeyBytes: Infinity }),
    undefined,
  );
});
