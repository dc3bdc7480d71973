import assert from "node:assert/strict";
import { memoryPipe } from "./memory_pipe.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("memoryPipe() hands a chunk out in pieces when the reader's buffer is smaller, in order", async () => {
  const pipe = memoryPipe();
  await pipe.writer.write(bytes("abcdef"));
  await pipe.writer.write(bytes("gh"));
  const buffer = new Uint8Array(4);
  const got: string[] = [];
  for (let i = 0; i < 3; i++) {
    const n = await pipe.reader.read(buffer);
    got.push(decode(buffer.subarray(0, n!)));
  }
  assert.deepEqual(got, ["abcd", "ef", "gh"]);
});

Deno.test("memoryPipe() keeps a read waiting until something is written", async () => {
  const pipe = memoryPipe();
  const buffer = new Uint8Array(8);
  let settled = false;
  const read = pipe.reader.read(buffer).then((n) => (settled = true, n));
  await Promise.resolve();
  assert.equal(settled, false);
  await pipe.writer.write(bytes("hi"));
  assert.equal(await read, 2);
  assert.equal(decode(buffer.subarray(0, 2)), "hi");
});

Deno.test("memoryPipe() copies what it is given: the writer may reuse its buffer at once", async () => {
  const pipe = memoryPipe();
  const source = bytes("one");
  await pipe.writer.write(source);
  source.set(bytes("two"));
  const buffer = new Uint8Array(8);
  const n = await pipe.reader.read(buffer);
  assert.equal(decode(buffer.subarray(0, n!)), "one");
});

Deno.test("memoryPipe().close() lets the reader drain what was written, then see the end, and wakes a waiting read", async () => {
  const pipe = memoryPipe();
  await pipe.writer.write(bytes("last"));
  pipe.close();
  const buffer = new Uint8Array(8);
  assert.equal(await pipe.reader.read(buffer), 4);
  assert.equal(await pipe.reader.read(buffer), null);
  const waiting = memoryPipe();
  const read = waiting.reader.read(buffer);
  waiting.close();
  assert.equal(await read, null);
});

Deno.test("memoryPipe() refuses a write after close() as a broken pipe", async () => {
  const pipe = memoryPipe();
  pipe.close();
  await assert.rejects(pipe.writer.write(bytes("late")), Deno.errors.BrokenPipe);
});
