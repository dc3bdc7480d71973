import assert from "node:assert/strict";
import { collectCapped, readUpTo } from "./_capped_stream.ts";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks);
}

Deno.test("collectCapped() keeps everything under the cap", async () => {
  const bytes = new TextEncoder().encode("hello");
  const got = await collectCapped(
    streamOf([bytes]),
    10,
    () => assert.fail("no overflow"),
    new AbortController().signal,
  );
  assert.deepEqual(got, { bytes, cut: false });
});

Deno.test("collectCapped() cuts at the cap on a whole UTF-8 character and reports the overflow once", async () => {
  let overflows = 0;
  const text = new TextEncoder().encode("aé".repeat(10));
  const got = await collectCapped(streamOf([text, text]), 4, () => overflows++, new AbortController().signal);
  assert.equal(new TextDecoder().decode(got.bytes), "aéa");
  assert.equal(got.cut, true);
  assert.equal(overflows, 1);
});

Deno.test("collectCapped() stops reading a pipe that never ends when told to", async () => {
  const stop = new AbortController();
  const pulled = Promise.withResolvers<void>();
  const endless = new ReadableStream<Uint8Array>({
    pull: () => (pulled.resolve(), new Promise(() => {})),
  });
  const collecting = collectCapped(endless, 10, () => {}, stop.signal);
  // Told to stop once it waits on a read that never returns.
  await pulled.promise;
  stop.abort();
  const got = await collecting;
  assert.deepEqual(got, { bytes: new Uint8Array(), cut: false });
});

Deno.test("readUpTo() keeps what came before a failed read only when asked to, and rethrows otherwise", async () => {
  const failing = () =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (controller.desiredSize === null) return;
        controller.enqueue(new Uint8Array([1, 2]));
        controller.error(new Error("pipe broke"));
      },
    });
  const kept = await readUpTo(failing().getReader(), 10, true);
  assert.deepEqual(kept, { bytes: new Uint8Array([1, 2]), cut: false });
  await assert.rejects(readUpTo(failing().getReader(), 10), /pipe broke/);
});

Deno.test("readUpTo() keeps copies of the bytes, not the chunks: a 1-byte view of a 64 KiB buffer costs 1 byte", async () => {
  // Deno's fetch hands each chunk of a chunked body over as a view into a fresh 64 KiB buffer: keeping the views kept
  // 64 KiB a byte (a body of 1-byte chunks took 12 GB to read 262,154 bytes). This source reuses one such buffer, so
  // a kept view shows the bytes written after it, where a copy shows the byte that came.
  const shared = new Uint8Array(64 * 1024);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 300) return controller.close();
      shared[0] = sent++ % 256;
      controller.enqueue(shared.subarray(0, 1));
    },
  }, { highWaterMark: 0 });
  const got = await readUpTo(stream.getReader(), 1000);
  assert.deepEqual(got.bytes, Uint8Array.from({ length: 300 }, (_, i) => i % 256));
  assert.equal(got.cut, false);
});
