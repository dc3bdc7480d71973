// What a request's parsed form keeps in memory while its call waits, counted
// from above: its bytes, which hold every string's text at one byte a
// character or more, plus the length again of a string that holds a character
// outside Latin-1 (V8 then keeps all of it at two bytes a character), plus a
// fixed cost per value for what V8 spends beyond the text. A line of 90 KB
// holding 30,000 empty objects parses to 1.9 MB: counted by their bytes alone,
// calls that wait could hold twenty times `maxInFlightBytes`.

// Bytes beyond the text, measured on Deno 2.9.6 (V8 with pointer compression)
// as the heap 100 parsed copies take, and rounded up: an empty object in an
// array took 64 (80 counted, and 64 a key: a red team found one-key objects
// of distinct keys, each a shape of its own, up to 1.18 times over), a nested empty array 56, a key of a large object with its
// slot 52, an array's slot 8; a string's or a boxed number's header 12–16; a
// small integer, null and a boolean live in their slot.
const OBJECT = 80;
const KEY = 64;
// A key that reads as an array index ("9", "4294967294") puts the object's properties in a slower, larger store:
// 30,000 objects of one such key took up to 1.38 times what 64 and 56 counted (a red team's measure).
const INDEX_KEY = 120;
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const ARRAY = 64;
const SLOT = 8;
const BOXED = 24;
// Integers V8 keeps in a slot without a box (31-bit on a pointer-compressed heap).
const SMALL_INT = 2 ** 30;
// Any character outside Latin-1 makes a string two bytes a character.
const WIDE = /[\u0100-\uffff]/;

/**
 * The memory a parsed request of `bytes` bytes holds, estimated from above:
 * `bytes`, plus each object, key, array, array slot, string and boxed number
 * in `value` at its cost beyond its text. With `text`, each string's and
 * key's length is counted too, for a value whose bytes are not known (an
 * item of a batch: its share of the batch's bytes says nothing of its own).
 * Walked without recursion; the caller bounds the walk (a request's values
 * are bounded by its length).
 */
export function heldCost(value: unknown, bytes: number, text = false): number {
  let cost = bytes;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      // A two-byte string costs its length once more than one byte a character; its bytes count the other, or,
      // with `text`, its length does.
      cost += BOXED + (WIDE.test(v) ? v.length : 0) + (text ? v.length : 0);
    } else if (typeof v === "number") {
      if (!(Number.isInteger(v) && Math.abs(v) < SMALL_INT)) cost += BOXED;
    } else if (v !== null && typeof v === "object") {
      if (Array.isArray(v)) {
        cost += ARRAY + SLOT * v.length;
        for (let i = 0; i < v.length; i++) stack.push(v[i]);
      } else {
        cost += OBJECT;
        for (const key in v) {
          cost += (ARRAY_INDEX.test(key) ? INDEX_KEY : KEY) + (text ? key.length : 0);
          stack.push((v as Record<string, unknown>)[key]);
        }
      }
    }
  }
  return cost;
}
