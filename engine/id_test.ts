import assert from "node:assert/strict";
import { ExactNumber, idForLog, inexact, isId, publicMeta } from "./id.ts";
import { comparedIds } from "./id_map.ts";

Deno.test("ExactNumber.of() gives one instance per text, and JSON.stringify writes the text as sent", () => {
  const a = ExactNumber.of("9007199254740993");
  assert.equal(ExactNumber.of("9007199254740993"), a, "the same text is the same key in a Map");
  assert.notEqual(ExactNumber.of("9007199254740992.0"), a);
  assert.equal(JSON.stringify({ id: a }), '{"id":9007199254740993}');
  assert.equal(JSON.stringify(ExactNumber.of("1.50")), "1.50");
  assert.equal(String(a), "9007199254740993");
  // One instance is shared by the reply and by middleware (as ctx.requestId): no holder can change it for the others.
  assert.throws(() => ((a as { text: string }).text = "1"), TypeError);
  assert.equal(JSON.stringify({ id: a }), '{"id":9007199254740993}');
});

Deno.test("publicMeta() shows an exact number as its text and leaves the rest alone", () => {
  const meta = { progressToken: ExactNumber.of("-0"), other: 1 };
  assert.deepEqual(publicMeta(meta), { progressToken: "-0", other: 1 });
  const plain = { progressToken: 5 };
  assert.equal(publicMeta(plain), plain);
});

Deno.test("idForLog() quotes and escapes a string id and cuts a long one; a number is cut at 64 characters", () => {
  assert.equal(idForLog("a\nb"), '"a\\nb"');
  assert.ok(idForLog("x".repeat(10_000)).length < 200);
  assert.equal(idForLog(42), "42");
  assert.equal(idForLog(null), "null");
  const long = ExactNumber.of("1".repeat(100));
  assert.equal(idForLog(long), `${"1".repeat(64)}…`);
});

Deno.test("isId() takes a string, a finite number or an exact number, and nothing else", () => {
  for (const id of ["", "a", 0, -1, 1.5, ExactNumber.of("1e400")]) assert.equal(isId(id), true, String(id));
  for (const id of [null, undefined, true, NaN, Infinity, {}, [], 1n]) assert.equal(isId(id), false, String(id));
});

Deno.test("inexact() names the numbers JavaScript cannot hold or write back as sent: -0, fractions, past 2^53", () => {
  for (const n of [-0, 1.5, 2 ** 53, -(2 ** 53), 1e400]) assert.equal(inexact(n), true, String(n));
  for (const n of [0, 1, -1, 2 ** 53 - 1, "1.5"]) assert.equal(inexact(n), false, String(n));
});

Deno.test("ExactNumber.of() finds a text among a thousand of its length that differ only at their end in a few comparisons each (its registry is an IdMap: a Map compared it with every one)", () => {
  // Each text new, as the scanner slices it from a message.
  const made = (digits: number, i: number) => `[${"1".repeat(digits - 8)}${String(i).padStart(8, "0")}]`.slice(1, -1);
  const count = 1_024;
  for (const digits of [20_000, 70_000]) {
    const before = comparedIds();
    const held: ExactNumber[] = [];
    for (let i = 0; i < count; i++) held.push(ExactNumber.of(made(digits, i)));
    for (let i = 0; i < count; i++) assert.equal(ExactNumber.of(made(digits, i)), held[i]);
    const compared = comparedIds() - before;
    // Four searches a text (a miss, one more before set() holds it, its place, then the lookup), each a binary search
    // of at most 11 comparisons among 1,024, where a scan makes 512 on average.
    assert.ok(compared > 0 && compared <= 4 * count * 11, `${compared} comparisons for ${count} texts`);
  }
});
