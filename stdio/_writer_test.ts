import assert from "node:assert/strict";
import { encodeReply, JsonParts, WRITE_CHUNK } from "../engine/json_parts.ts";
import { concatBytes } from "../internal/concat_bytes.ts";
import { prng } from "../internal/prng.ts";
import { utf8Length } from "../internal/utf8_length.ts";
import { FrameWriter } from "./_writer.ts";

/** A writer whose output records each write as text, every byte accepted at once. */
function recordingWriter(highWaterMark: number): { writes: string[]; writer: FrameWriter } {
  const writes: string[] = [];
  const out = { write: (b: Uint8Array) => (writes.push(new TextDecoder().decode(b)), Promise.resolve(b.length)) };
  return { writes, writer: new FrameWriter(out, highWaterMark, () => {}) };
}

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
  const { writes, writer } = recordingWriter(1 << 20);
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

Deno.test("FrameWriter joins small frames only up to one chunk per write", async () => {
  const sizes: number[] = [];
  const writer = new FrameWriter(
    { write: (b: Uint8Array) => (sizes.push(b.length), Promise.resolve(b.length)) },
    1 << 30,
    () => {},
  );
  const frame = "f".repeat(1000);
  for (let i = 0; i < 1000; i++) writer.send(frame);
  await writer.idle();
  assert.equal(sizes.reduce((a, b) => a + b, 0), 1001 * 1000, "every frame and newline written");
  assert.ok(sizes.length >= 4, `${sizes.length} writes`);
  for (const size of sizes) assert.ok(size <= WRITE_CHUNK + 1000, `a write of ${size} bytes`);
});

Deno.test("FrameWriter writes a frame larger than a chunk in slices, never splitting a character", async () => {
  const chunks: Uint8Array[] = [];
  const writer = new FrameWriter(
    { write: (b: Uint8Array) => (chunks.push(b.slice()), Promise.resolve(b.length)) },
    1 << 30,
    () => {},
  );
  // Surrogate pairs and 3-byte characters straddle every slice boundary.
  const frame = "a" + "😀é€".repeat(WRITE_CHUNK);
  writer.send(frame);
  writer.send("next");
  await writer.idle();
  assert.ok(chunks.length > 3, `${chunks.length} writes`);
  for (const chunk of chunks) assert.ok(chunk.length <= WRITE_CHUNK * 3 + 1);
  const text = new TextDecoder("utf-8", { fatal: true }).decode(concatBytes(chunks));
  assert.equal(text, frame + "\nnext\n");
  assert.equal(utf8Length(frame), new TextEncoder().encode(frame).length);
});

Deno.test("FrameWriter counts a large frame as queued until its last byte is written", async () => {
  const gate = Promise.withResolvers<void>();
  const writer = new FrameWriter(
    { write: async (b: Uint8Array) => (await gate.promise, b.length) },
    WRITE_CHUNK,
    () => {},
  );
  writer.send("x".repeat(WRITE_CHUNK * 4));
  await null;
  for (let hop = 0; hop < 10; hop++) await null;
  assert.equal(writer.congested, true, "still congested while its slices are in flight");
  gate.resolve();
  await writer.idle();
  assert.equal(writer.congested, false);
});

Deno.test("FrameWriter counts what each queued frame costs beside its text: many short replies congest it as their memory does", async () => {
  const stuck = Promise.withResolvers<number>();
  const writer = new FrameWriter({ write: () => stuck.promise }, 4096, () => {});
  let sent = 0;
  while (!writer.congested && sent < 10_000) writer.send(`{"id":${sent++}}`);
  // 256 counted beside each short frame: some 15 of them, where 4,096 units of text alone took ~400.
  assert.ok(sent <= 20, `${sent} short frames before congestion`);
  stuck.reject(new Deno.errors.BrokenPipe("gone"));
  await writer.idle();
  assert.equal(writer.congested, false, "a failed writer holds nothing");
});

Deno.test("FrameWriter replaces a frame over maxFrameBytes, by UTF-8 bytes, and drops it when told to", async () => {
  let got = "";
  const replaced: number[] = [];
  const writer = new FrameWriter(
    { write: (b: Uint8Array) => (got += new TextDecoder().decode(b), Promise.resolve(b.length)) },
    1 << 30,
    () => {},
    {
      maxFrameBytes: 30,
      replace: (frame, bytes) => (replaced.push(bytes), frame.startsWith("drop") ? undefined : `too large: ${bytes}`),
    },
  );
  writer.send("é".repeat(15)); // 30 bytes: exactly the limit
  writer.send("é".repeat(16)); // 32 bytes in 16 units
  writer.send("drop" + "x".repeat(40));
  await writer.idle();
  assert.equal(got, `${"é".repeat(15)}\ntoo large: 32\n`);
  assert.deepEqual(replaced, [32, 44]);
});

Deno.test("FrameWriter writes a reply in pieces in writes no larger than its buffer, newline last", async () => {
  const writes: Uint8Array[] = [];
  const writer = new FrameWriter(
    { write: (b: Uint8Array) => (writes.push(b.slice()), Promise.resolve(b.length)) },
    1 << 30,
    () => {},
  );
  const value = "\u0001é".repeat(500_000);
  const reply = encodeReply(3, { content: [{ type: "text", text: value }] });
  assert.ok(reply instanceof JsonParts);
  writer.send("before");
  writer.send(reply);
  writer.send("after");
  await writer.idle();
  const all = new TextDecoder().decode(new Uint8Array(writes.flatMap((w) => [...w])));
  const expected = `before\n${
    JSON.stringify({ jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: value }] } })
  }\nafter\n`;
  assert.equal(all, expected);
  assert.ok(writes.length > 3, "written in several writes");
  assert.ok(writes.every((w) => w.length <= 3 * 256 * 1024 + 1), "no write over the buffer");
});

Deno.test("FrameWriter replaces a reply in pieces over the frame limit, naming its real size", async () => {
  let written = "";
  const seen: { head: string; bytes: number }[] = [];
  const writer = new FrameWriter(
    { write: (b: Uint8Array) => (written += new TextDecoder().decode(b), Promise.resolve(b.length)) },
    1 << 30,
    () => {},
    { maxFrameBytes: 1_000_000, replace: (head, bytes) => (seen.push({ head, bytes }), "replaced") },
  );
  // 200,000 control characters: 200 KB as text, 1.2 MB escaped.
  const reply = encodeReply(4, { content: [{ type: "text", text: "\u0001".repeat(200_000) }] });
  writer.send(reply);
  await writer.idle();
  assert.equal(written, "replaced\n");
  assert.equal(seen[0].bytes, [...(reply as JsonParts).pieces()].join("").length);
  assert.match(seen[0].head, /^\{"jsonrpc":"2.0","id":4,/);
});

Deno.test("FrameWriter writes each batch exactly though every batch is encoded into one reused buffer", async () => {
  const { writes, writer } = recordingWriter(1 << 30);
  // A long batch, then a shorter one (a stale tail would show), then one of two-byte text, then one too long for
  // the buffer: 300,000 one-unit frames join to 600,000 units, which could take 1.8 MB.
  const rounds = [["x".repeat(5000), "y".repeat(3000)], ["short"], ["é".repeat(1000), "€"], Array(300_000).fill("z")];
  for (const frames of rounds) {
    for (const frame of frames) writer.send(frame);
    await writer.idle();
  }
  assert.equal(writes.join(""), rounds.map((frames) => frames.map((f) => f + "\n").join("")).join(""));
  assert.deepEqual(writes.slice(0, 3), rounds.slice(0, 3).map((frames) => frames.map((f) => f + "\n").join("")));
});

Deno.test("FrameWriter writes a burst's first 48 frames in the turn they are sent, the rest after the gathering hops, in order", async () => {
  const { writes, writer } = recordingWriter(1 << 20);
  const frames = Array.from({ length: 56 }, (_, i) => `m${i}`);
  // Like the calls of one read of a pipelining client: all answered in one turn.
  for (const frame of frames.slice(0, 47)) writer.send(frame);
  assert.equal(writes.length, 0, "47 replies wait for the gathering hops");
  writer.send(frames[47]);
  assert.deepEqual(writes, [frames.slice(0, 48).map((f) => `${f}\n`).join("")], "the 48th starts a write at once");
  for (const frame of frames.slice(48)) writer.send(frame);
  assert.equal(writes.length, 1, "one early write per burst");
  await writer.idle();
  assert.deepEqual(writes, [
    frames.slice(0, 48).map((f) => `${f}\n`).join(""),
    frames.slice(48).map((f) => `${f}\n`).join(""),
  ]);
  // The next burst gathers again.
  for (const frame of frames.slice(0, 3)) writer.send(frame);
  await writer.idle();
  assert.equal(writes.at(-1), "m0\nm1\nm2\n");
});

Deno.test("FrameWriter's next write waits for the early one: bytes never interleave, though the early write is slow", async () => {
  let calls = 0;
  let accepted = "";
  const slow = Promise.withResolvers<void>();
  const writer = new FrameWriter(
    {
      async write(b: Uint8Array) {
        calls++;
        if (calls === 1) await slow.promise;
        // Half of each write (at least a byte), so that every write takes several calls.
        const n = Math.max(1, b.length >> 1);
        accepted += new TextDecoder().decode(b.subarray(0, n));
        return n;
      },
    },
    1 << 20,
    () => {},
  );
  for (let i = 0; i < 40; i++) writer.send(`m${i}`);
  for (let hop = 0; hop < 10; hop++) await null;
  assert.equal(calls, 1, "nothing else is written while the early write is in flight");
  slow.resolve();
  await writer.idle();
  assert.equal(accepted, Array.from({ length: 40 }, (_, i) => `m${i}\n`).join(""));
  assert.ok(calls > 2);
});

Deno.test("FrameWriter stops and reports once when the early write fails", async () => {
  const errors: unknown[] = [];
  let calls = 0;
  const writer = new FrameWriter(
    {
      write() {
        calls++;
        return Promise.reject(new Deno.errors.BrokenPipe("gone"));
      },
    },
    1 << 20,
    (err) => errors.push(err),
  );
  for (let i = 0; i < 40; i++) writer.send(`m${i}`);
  await writer.idle();
  assert.equal(calls, 1);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof Deno.errors.BrokenPipe);
  assert.equal(writer.failed, true);
  writer.send("after");
  await writer.idle();
  assert.equal(calls, 1, "nothing is written after the failure");
});

Deno.test("FrameWriter, under random bursts, pauses and partial slow writes: one write in flight at a time, every byte in order", async () => {
  // Bursts of 1–80 frames (past the early write's 48 or not), small and over-a-chunk strings and replies in
  // pieces, with microtask hops or a timer turn between sends; the output accepts random parts after random waits.
  for (let seed = 1; seed <= 8; seed++) {
    const random = prng(seed);
    let inFlight = 0;
    let overlapped = false;
    const errors: unknown[] = [];
    const accepted: Uint8Array[] = [];
    const writer = new FrameWriter(
      {
        async write(b: Uint8Array) {
          if (++inFlight > 1) overlapped = true;
          if (random() < 0.3) await new Promise((resolve) => setTimeout(resolve, 0));
          else for (let hop = Math.floor(random() * 6); hop > 0; hop--) await null;
          const n = random() < 0.5 ? b.length : Math.max(1, Math.floor(b.length * random()));
          accepted.push(b.slice(0, n));
          inFlight--;
          return n;
        },
      },
      1 << 30,
      (err) => errors.push(err),
    );
    let expected = "";
    for (let burst = 0; burst < 25; burst++) {
      const frames = 1 + Math.floor(random() * 80);
      for (let i = 0; i < frames; i++) {
        const kind = random();
        if (kind < 0.01) {
          const text = "é".repeat(WRITE_CHUNK + 10);
          writer.send(text);
          expected += `${text}\n`;
        } else if (kind < 0.02) {
          const reply = encodeReply(burst, { content: [{ type: "text", text: "\u0001".repeat(70_000) }] });
          writer.send(reply);
          expected += `${typeof reply === "string" ? reply : reply.toString()}\n`;
        } else {
          const text = `s${seed}b${burst}f${i}`;
          writer.send(text);
          expected += `${text}\n`;
        }
        const pause = random();
        if (pause < 0.1) await null;
        else if (pause < 0.12) await new Promise((resolve) => setTimeout(resolve, 0));
      }
      if (random() < 0.5) await writer.idle();
    }
    await writer.idle();
    assert.equal(overlapped, false, `seed ${seed}: two writes were in flight at once`);
    assert.deepEqual(errors, [], `seed ${seed}`);
    // Decoded whole: a part may end inside a character.
    const text = new TextDecoder().decode(concatBytes(accepted));
    assert.equal(text.length, expected.length, `seed ${seed}`);
    assert.ok(text === expected, `seed ${seed}: the bytes differ from the frames in order`);
  }
});

/** An output that takes `take(n)` bytes of its n-th write, then never completes another: a pipe nobody reads. */
function stallingOutput(take: (write: number, bytes: Uint8Array) => number): {
  out: { write(bytes: Uint8Array): Promise<number> };
  stalled: Promise<void>;
} {
  const stalled = Promise.withResolvers<void>();
  let writes = 0;
  return {
    stalled: stalled.promise,
    out: {
      write(bytes) {
        const n = take(++writes, bytes);
        if (n > 0) return Promise.resolve(n);
        stalled.resolve();
        return new Promise<number>(() => {});
      },
    },
  };
}

Deno.test("FrameWriter.unsent() names what a stalled output did not take: queued frames whole, the write in flight past its taken bytes", async () => {
  // The batch "aaaa\nbbbb\ncccc\n" is taken up to "aaaa\nbb"; the rest of it and "dd" never are.
  const { out, stalled } = stallingOutput((write) => write === 1 ? 7 : 0);
  const writer = new FrameWriter(out, 1 << 20, () => {});
  assert.deepEqual(writer.unsent(), { queuedFrames: 0, queuedBytes: 0, inFlightFrames: 0, inFlightBytes: 0 });
  for (const frame of ["aaaa", "bbbb", "cccc"]) writer.send(frame);
  await stalled;
  writer.send("dd");
  assert.deepEqual(writer.unsent(), { queuedFrames: 1, queuedBytes: 3, inFlightFrames: 2, inFlightBytes: 8 });
});

Deno.test("FrameWriter.unsent() counts a large frame stalled in a later slice as one frame, less the slices taken", async () => {
  const frame = "é".repeat(WRITE_CHUNK * 2);
  // The first slice is taken whole, ten bytes of the second, nothing after.
  const { out, stalled } = stallingOutput((write, bytes) => write === 1 ? bytes.length : write === 2 ? 10 : 0);
  const writer = new FrameWriter(out, 1 << 30, () => {});
  writer.send(frame);
  writer.send("tail");
  await stalled;
  assert.deepEqual(writer.unsent(), {
    queuedFrames: 1,
    queuedBytes: 5,
    inFlightFrames: 1,
    inFlightBytes: utf8Length(frame) + 1 - 2 * WRITE_CHUNK - 10,
  });
});

Deno.test("FrameWriter.unsent() is empty once everything was written, and once the output failed", async () => {
  const { writer } = recordingWriter(1 << 20);
  writer.send("a".repeat(WRITE_CHUNK * 2));
  writer.send("b");
  await writer.idle();
  assert.deepEqual(writer.unsent(), { queuedFrames: 0, queuedBytes: 0, inFlightFrames: 0, inFlightBytes: 0 });
  const broken = new FrameWriter({ write: () => Promise.reject(new Deno.errors.BrokenPipe()) }, 1 << 20, () => {});
  broken.send("a");
  broken.send("b");
  await broken.idle();
  assert.deepEqual(broken.unsent(), { queuedFrames: 0, queuedBytes: 0, inFlightFrames: 0, inFlightBytes: 0 });
});
