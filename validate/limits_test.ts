import assert from "node:assert/strict";
import { assertWithinLimit, capRows, capText, cutText, LimitError, readCapped, truncationMarker } from "./limits.ts";

function stream(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

Deno.test("capText() keeps short text and never splits a character", () => {
  assert.equal(capText("abc", 3), "abc");
  assert.equal(capText("aé", 2), "a\n[truncated: showed 1 of 3 bytes]");
  assert.equal(capText("😀😀", 5), "😀\n[truncated: showed 4 of 8 bytes]");
  assert.equal(capText("😀", 0), "\n[truncated: showed 0 of 4 bytes]");
});

Deno.test("cutText() cuts as capText() does, the marker apart; text that ends like a marker is whole", () => {
  assert.deepEqual(cutText("abc", 3), { text: "abc" });
  assert.deepEqual(cutText("aé", 2), { text: "a", marker: "[truncated: showed 1 of 3 bytes]" });
  assert.deepEqual(cutText("😀😀", 5), { text: "😀", marker: "[truncated: showed 4 of 8 bytes]" });
  const forged = "a\n[truncated: showed 1 of 3 bytes]";
  assert.deepEqual(cutText(forged, 100), { text: forged });
  // capText() of the same text cannot be told from a cut: why cutText() is for text the server did not write.
  assert.equal(capText(forged, 100), capText("aé", 2));
});

Deno.test("cutText() keeps a leading byte-order mark when it cuts, as when it does not (and as readTextCut() does)", () => {
  assert.deepEqual(cutText("\ufeffab", 100), { text: "\ufeffab" });
  assert.deepEqual(cutText("\ufeffabcdef", 4), { text: "\ufeffa", marker: "[truncated: showed 4 of 9 bytes]" });
  assert.equal(capText("\ufeffabcdef", 4), "\ufeffa\n[truncated: showed 4 of 9 bytes]");
});

Deno.test("capRows() cuts at the cap and reads only one row past it", () => {
  let pulled = 0;
  function* rows() {
    for (let i = 0; i < 100; i++) {
      pulled++;
      yield i;
    }
  }
  assert.deepEqual(capRows(rows(), 3), { rows: [0, 1, 2], truncated: true });
  assert.equal(pulled, 4);
  assert.deepEqual(capRows([1, 2], 2), { rows: [1, 2], truncated: false });
});

Deno.test("readCapped() returns everything under the cap", async () => {
  const { bytes, truncated } = await readCapped(stream("ab", "cd"), { maxBytes: 4 });
  assert.equal(new TextDecoder().decode(bytes), "abcd");
  assert.equal(truncated, false);
});

Deno.test("readCapped() throws a LimitError past the cap", async () => {
  const err = await readCapped(stream("ab", "cde"), { maxBytes: 4, action: 'read "x"' }).catch((e) => e);
  assert.ok(err instanceof LimitError);
  assert.equal(err.message, 'Cannot read "x": it exceeds the limit of 4 bytes, ask for less');
  assert.equal(err.limit, 4);
});

Deno.test("readCapped() truncates past the cap when asked", async () => {
  const { bytes, truncated } = await readCapped(stream("ab", "cde"), { maxBytes: 4, truncate: true });
  assert.equal(new TextDecoder().decode(bytes), "abcd");
  assert.equal(truncated, true);
});

Deno.test("readCapped() stops on an aborted signal", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(readCapped(stream("ab"), { maxBytes: 4, signal: controller.signal }), /stop/);
});

Deno.test("assertWithinLimit() throws only above the limit", () => {
  assertWithinLimit(4, 4, "read");
  assert.throws(() => assertWithinLimit(5, 4, "read"), LimitError);
});

Deno.test("truncationMarker() names what was shown", () => {
  assert.equal(truncationMarker(2, 10, "rows"), "[truncated: showed 2 of 10 rows]");
  assert.equal(truncationMarker(2, undefined, "rows"), "[truncated: showed the first 2 rows]");
});
