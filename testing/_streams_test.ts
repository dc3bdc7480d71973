import assert from "node:assert/strict";
import { readerOf, writerOf } from "./_streams.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("readerOf() splits a stream's chunks to fit the buffer and ends with null", async () => {
  const reader = readerOf(ReadableStream.from([bytes("hello"), bytes("!")]));
  const buffer = new Uint8Array(3);
  const got: string[] = [];
  for (let n = await reader.read(buffer); n !== null; n = await reader.read(buffer)) {
    got.push(new TextDecoder().decode(buffer.subarray(0, n)));
  }
  assert.deepEqual(got, ["hel", "lo", "!"]);
  assert.equal(await reader.read(buffer), null);
});

Deno.test("writerOf() passes each write to the stream whole and reports its length", async () => {
  const chunks: string[] = [];
  const writer = writerOf(new WritableStream({ write: (c) => void chunks.push(new TextDecoder().decode(c)) }));
  assert.equal(await writer.write(bytes("ab")), 2);
  assert.equal(await writer.write(bytes("")), 0);
  await writer.close();
  assert.deepEqual(chunks, ["ab", ""]);
});

Deno.test("writerOf().close() ends the stream once, and is quiet when it is already closed or broken", async () => {
  let closes = 0;
  const writer = writerOf(new WritableStream({ close: () => void closes++ }));
  await writer.close();
  await writer.close();
  assert.equal(closes, 1);
  const broken = writerOf(new WritableStream({ write: () => Promise.reject(new Error("gone")) }));
  await assert.rejects(broken.write(bytes("x")), /gone/);
  await broken.close();
});
