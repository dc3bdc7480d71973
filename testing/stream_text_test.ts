import assert from "node:assert/strict";
import { StreamText } from "./stream_text.ts";

function stream(): { readable: ReadableStream<Uint8Array>; write(text: string): void; close(): void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encoder = new TextEncoder();
  return {
    readable,
    write: (text) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

Deno.test("StreamText.waitFor() resolves once the marker is there the number of times asked, across chunks", async () => {
  const s = stream();
  const text = new StreamText(s.readable);
  let twice = false;
  const waiting = text.waitFor("STARTED sleep", 2).then(() => (twice = true));
  s.write("noise\nSTARTED sl");
  s.write("eep 1\n");
  await text.waitFor("STARTED sleep");
  assert.equal(twice, false);
  s.write("STARTED sleep 2\n");
  await waiting;
  assert.equal(text.text, "noise\nSTARTED sleep 1\nSTARTED sleep 2\n");
  await text.waitFor("STARTED sleep", 2);
  s.close();
  await text.done;
});

Deno.test("StreamText.waitFor() rejects, naming the marker and what was written, when the stream ends without it", async () => {
  const s = stream();
  const text = new StreamText(s.readable);
  const waiting = text.waitFor("READY");
  s.write("Cannot start: port in use\n");
  s.close();
  await assert.rejects(waiting, /Cannot find "READY": the stream ended; it wrote: Cannot start/);
  await assert.rejects(text.waitFor("READY"), /the stream ended/);
});

Deno.test("StreamText.waitFor() gives up after its backstop when the marker never comes", async () => {
  const s = stream();
  const text = new StreamText(s.readable);
  await assert.rejects(text.waitFor("NEVER", 1, 1), /Cannot find "NEVER": none within 1 ms/);
  s.close();
  await text.done;
});

Deno.test("StreamText.waitFor() called on a stream that delivers and ends at once resolves and leaves no timer", async () => {
  const text = new StreamText(ReadableStream.from([new TextEncoder().encode("READY\n")]));
  await text.waitFor("READY");
  await text.done;
});
