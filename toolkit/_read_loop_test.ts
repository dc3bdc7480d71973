import assert from "node:assert/strict";
import type { Frame } from "./_frame.ts";
import { readLoop } from "./_read_loop.ts";
import { FrameWriter } from "./_writer.ts";

const encoder = new TextEncoder();

function writer(): FrameWriter {
  return new FrameWriter({ write: (bytes) => Promise.resolve(bytes.length) }, 1024, () => {});
}

Deno.test("readLoop() frames every line across reads, ends the last one at end of input, and reports it ended", async () => {
  const chunks = ['{"a":1}\n{"b"', ":2}\n", '{"c":3}'].map((s) => encoder.encode(s));
  const reader = {
    read(buffer: Uint8Array) {
      const chunk = chunks.shift();
      if (!chunk) return Promise.resolve(null);
      buffer.set(chunk);
      return Promise.resolve(chunk.length);
    },
  };
  const lines: string[] = [];
  const sink = (frame: Frame) => frame.kind === "line" && lines.push(new TextDecoder().decode(frame.bytes));
  const loop = readLoop(reader, {
    writer: writer(),
    maxMessageBytes: 1024,
    sink,
    onError: (e) => assert.fail(String(e)),
  });
  assert.equal(await loop.done, true);
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

Deno.test("readLoop() stop() abandons a read that never returns; a failed read goes to onError", async () => {
  const hanging = { read: () => new Promise<number | null>(() => {}) };
  const loop = readLoop(hanging, {
    writer: writer(),
    maxMessageBytes: 1024,
    sink: () => {},
    onError: (e) => assert.fail(String(e)),
  });
  loop.stop();
  assert.equal(await loop.done, false);
  const errors: unknown[] = [];
  const broken = { read: () => Promise.reject(new Error("EBADF")) };
  const failed = readLoop(broken, {
    writer: writer(),
    maxMessageBytes: 1024,
    sink: () => {},
    onError: (e) => errors.push(e),
  });
  assert.equal(await failed.done, false);
  assert.equal((errors[0] as Error).message, "EBADF");
});
