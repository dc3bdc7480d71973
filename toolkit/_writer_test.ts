import assert from "node:assert/strict";
import { FrameWriter } from "./_writer.ts";

Deno.test("FrameWriter batches frames queued during a write into the next write", async () => {
  const writes: string[] = [];
  const gate = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  const out = {
    async write(bytes: Uint8Array) {
      writes.push(new TextDecoder().decode(bytes));
      if (writes.length === 1) (started.resolve(), await gate.promise);
      return bytes.length;
    },
  };
  const writer = new FrameWriter(out, 1 << 20, () => {});
  writer.send("a");
  await started.promise;
  writer.send("b");
  writer.send("c");
  gate.resolve();
  await writer.idle();
  assert.deepEqual(writes, ["a\n", "b\nc\n"]);
});

Deno.test("FrameWriter gathers frames sent within a few microtask hops into one write", async () => {
  const writes: string[] = [];
  const writer = new FrameWriter(
    { write: (b: Uint8Array) => (writes.push(new TextDecoder().decode(b)), Promise.resolve(b.length)) },
    1 << 20,
    () => {},
  );
  // Like the calls of one read: each finishes a hop or two after the previous one.
  writer.send("a");
  await null;
  writer.send("b");
  await null;
  await null;
  writer.send("c");
  await writer.idle();
  assert.deepEqual(writes, ["a\nb\nc\n"]);
});

Deno.test("FrameWriter finishes partial writes", async () => {
  let got = "";
  const writer = new FrameWriter(
    {
      write(bytes: Uint8Array) {
        const n = Math.min(3, bytes.length);
        got += new TextDecoder().decode(bytes.subarray(0, n));
        return Promise.resolve(n);
      },
    },
    1 << 20,
    () => {},
  );
  writer.send("hello world");
  await writer.idle();
  assert.equal(got, "hello world\n");
});

Deno.test("FrameWriter reports congestion above the high-water mark", async () => {
  const gate = Promise.withResolvers<void>();
  const writer = new FrameWriter({ write: async (b: Uint8Array) => (await gate.promise, b.length) }, 10, () => {});
  writer.send("first");
  writer.send("x".repeat(20));
  assert.equal(writer.congested, true);
  gate.resolve();
  await writer.idle();
  assert.equal(writer.congested, false);
});

Deno.test("FrameWriter stops and reports once when the output fails (EPIPE)", async () => {
  const errors: unknown[] = [];
  const writer = new FrameWriter(
    {
      write: () => Promise.reject(new Deno.errors.BrokenPipe("gone")),
    },
    1 << 20,
    (e) => errors.push(e),
  );
  writer.send("a");
  await writer.idle();
  writer.send("b");
  await writer.idle();
  assert.equal(writer.failed, true);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof Deno.errors.BrokenPipe);
});
