// test-permissions: --allow-run --allow-read={repo}
import assert from "node:assert/strict";
import { holdProcess } from "../internal/testdata/hold_process.ts";
import type { Frame } from "./_frame.ts";
import { type ByteReader, readLoop } from "./_read_loop.ts";
import { FrameWriter } from "./_writer.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function writer(): FrameWriter {
  return new FrameWriter({ write: (bytes) => Promise.resolve(bytes.length) }, 1024, () => {});
}

/** A reader that returns `chunks` one per read, then end of input. */
function chunked(...chunks: string[]): ByteReader {
  const bytes = chunks.map((s) => encoder.encode(s));
  return {
    read(buffer: Uint8Array) {
      const chunk = bytes.shift();
      if (!chunk) return Promise.resolve(null);
      buffer.set(chunk);
      return Promise.resolve(chunk.length);
    },
  };
}

const lineOf = (frame: Frame) => frame.kind === "line" ? decoder.decode(frame.bytes) : `oversize ${frame.size}`;
const noError = (err: unknown) => assert.fail(String(err));

Deno.test("readLoop() frames every line across reads and ends the last one at end of input", async () => {
  const lines: string[] = [];
  const loop = readLoop(chunked('{"a":1}\n{"b"', ":2}\n", '{"c":3}'), {
    writer: writer(),
    maxMessageBytes: 1024,
    sink: (frame) => lines.push(lineOf(frame)),
    onError: noError,
  });
  assert.equal((await loop.done).undelivered, 0);
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

Deno.test("readLoop() stop() abandons a read that never returns; a failed read goes to onError", async () => {
  const hanging = { read: () => new Promise<number | null>(() => {}) };
  const loop = readLoop(hanging, { writer: writer(), maxMessageBytes: 1024, sink: () => {}, onError: noError });
  loop.stop();
  assert.equal((await loop.done).undelivered, 0);
  const errors: unknown[] = [];
  const broken = { read: () => Promise.reject(new Error("EBADF")) };
  const failed = readLoop(broken, {
    writer: writer(),
    maxMessageBytes: 1024,
    sink: () => {},
    onError: (e) => errors.push(e),
  });
  await failed.done;
  assert.equal((errors[0] as Error).message, "EBADF");
});

Deno.test("readLoop() holds what it reads while the writer is congested and delivers it, in order, after it drained", async () => {
  let release!: () => void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  const out = new FrameWriter({ write: (bytes) => blocked.then(() => bytes.length) }, 4, () => {});
  const lines: string[] = [];
  const input = chunked("one\ntwo\nthree\n", "four\n");
  // The second read is asked for once the first chunk was framed, and answers only once the writer drained.
  let askedAgain!: () => void;
  const secondRead = new Promise<void>((resolve) => (askedAgain = resolve));
  let reads = 0;
  const reader = {
    read: (buffer: Uint8Array) => {
      if (++reads === 1) return input.read(buffer);
      askedAgain();
      return blocked.then(() => out.idle()).then(() => input.read(buffer));
    },
  };
  const loop = readLoop(reader, {
    writer: out,
    maxMessageBytes: 1024,
    // The first line's reply is longer than the writer's bound of 4 bytes.
    sink: (frame) => (lines.push(lineOf(frame)), out.send(lines.length === 1 ? "a long reply" : "")),
    onError: noError,
  });
  await secondRead;
  assert.deepEqual(lines, ["one"], "two and three are held while the writer is congested");
  release();
  const end = await loop.done;
  assert.deepEqual(lines, ["one", "two", "three", "four"]);
  assert.equal(end.undelivered, 0);
});

Deno.test("readLoop() keeps one watcher of a congested writer's drain, however many reads come meanwhile", async () => {
  // A waiter per read stayed with the writer until it drained: a peer that trickles newlines and reads nothing
  // grew the server without bound.
  class Counting extends FrameWriter {
    calls = 0;
    override idle(): Promise<void> {
      this.calls++;
      return super.idle();
    }
  }
  const out = new Counting({ write: () => new Promise<number>(() => {}) }, 4, () => {});
  const loop = readLoop(chunked("one\n", ...Array<string>(5_000).fill("\n")), {
    writer: out,
    maxMessageBytes: 1024,
    sink: () => out.send("a reply longer than the bound"),
    onError: noError,
  });
  const end = await loop.done;
  assert.equal(end.cause, "end");
  assert.ok(out.calls <= 2, `idle() was asked ${out.calls} times`);
});

Deno.test("readLoop() notices the end of input while congested and counts what it could not deliver", async () => {
  const out = new FrameWriter({ write: () => new Promise<number>(() => {}) }, 4, () => {});
  const lines: string[] = [];
  const loop = readLoop(chunked("one\ntwo\nthree\n"), {
    writer: out,
    maxMessageBytes: 1024,
    sink: (frame) => (lines.push(lineOf(frame)), out.send("reply")),
    onError: noError,
  });
  const end = await loop.done;
  assert.deepEqual(lines, ["one"]);
  assert.equal(end.undelivered, 2);
});

/** A reader that returns `chunks` one per read, then end of input, and logs each read in `events`. */
function logged(events: string[], ...chunks: string[]): ByteReader {
  const input = chunked(...chunks);
  return {
    read(buffer: Uint8Array) {
      events.push("read");
      return input.read(buffer);
    },
  };
}

/** A writer whose writes wait for `release()`, logging when each starts and ends. */
function heldWriter(events: string[]) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const writing = new Promise<void>((resolve) => (started = resolve));
  const out = new FrameWriter(
    {
      write: (bytes) => {
        events.push("write");
        started();
        return released.then(() => (events.push("written"), bytes.length));
      },
    },
    1024 * 1024,
    noError,
  );
  return { out, writing, release };
}

/** Lets every pending task run: nothing but the write this test holds can wake the loop. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Starts a read loop over `chunks` that answers every call with `reply`, behind a writer that holds
 * its first write, with reads waiting `writeWaitMs` for a large write; returns the events seen once
 * that write is held and everything else has settled.
 */
async function behindHeldWrite(reply: string, chunks: string[], writeWaitMs = 60 * 60 * 1000) {
  const events: string[] = [];
  const { out, writing, release } = heldWriter(events);
  const loop = readLoop(logged(events, ...chunks), {
    writer: out,
    maxMessageBytes: 1024 * 1024,
    sink: () => out.send(reply),
    onError: noError,
    writeWaitMs,
  });
  await writing;
  await settle();
  return { seen: [...events], events, loop, release };
}

Deno.test("readLoop() reads again only once a large write in flight went out", async () => {
  // 40,000 units of replies: more than half of a pipe.
  const { seen, events, loop, release } = await behindHeldWrite("x".repeat(40_000), ["call\n"]);
  assert.deepEqual(seen, ["read", "write"], "no read while the large write is in flight");
  release();
  assert.equal((await loop.done).cause, "end");
  assert.deepEqual(events, ["read", "write", "written", "read"]);
});

Deno.test("readLoop() reads on while a small write is in flight", async () => {
  const { seen, loop, release } = await behindHeldWrite("x".repeat(100), ["call\n", "call\n"]);
  // Both calls and the end of input are read while the first reply still waits to go out.
  assert.deepEqual(seen, ["read", "read", "read", "write"]);
  assert.equal((await loop.done).cause, "end");
  release();
});

Deno.test("readLoop() reads on behind a large write of many replies: the early write keeps its overlap", async () => {
  // 56 calls in one read, 1,600 units of reply each: 89,600 units in all, in more replies than an early write takes.
  const { seen, loop, release } = await behindHeldWrite("x".repeat(1_600), ["call\n".repeat(56)]);
  assert.deepEqual(seen, ["read", "write", "read"], "the end of input is read while the early write is in flight");
  assert.equal((await loop.done).cause, "end");
  release();
});

Deno.test("readLoop() notices the end of input behind a large write that never goes out, after one wait of writeWaitMs, not one before every read", async () => {
  using _held = holdProcess();
  const out = new FrameWriter({ write: () => new Promise<number>(() => {}) }, 1024 * 1024, noError);
  const lines: string[] = [];
  const loop = readLoop(chunked("one\n", "two\n", "three\n", "four\n"), {
    writer: out,
    maxMessageBytes: 1024 * 1024,
    sink: (frame) => (lines.push(lineOf(frame)), out.send("x".repeat(40_000))),
    onError: noError,
    writeWaitMs: 1,
  });
  const end = await loop.done;
  assert.equal(end.cause, "end");
  assert.deepEqual(lines, ["one", "two", "three", "four"]);
  // The first reply's write never goes out: the read after it waited and ran out, the three after it did not wait.
  assert.equal(end.writeWaitsRanOut, 1);
});

Deno.test("readLoop() waits again behind a large write once the stuck one went out", async () => {
  using _held = holdProcess();
  // Every write is held until the test lets it go; every read is answered when the test says so.
  const inFlight: (() => void)[] = [];
  const writeStarted: (() => void)[] = [];
  const out = new FrameWriter(
    {
      write: (bytes) =>
        new Promise<number>((resolve) => {
          inFlight.push(() => resolve(bytes.length));
          writeStarted.shift()?.();
        }),
    },
    1024 * 1024,
    noError,
  );
  const pendingReads: ((call: boolean) => void)[] = [];
  const readStarted: (() => void)[] = [];
  const reader: ByteReader = {
    read: (buffer) =>
      new Promise((resolve) => {
        const call = encoder.encode("call\n");
        pendingReads.push((more) => resolve(more ? (buffer.set(call), call.length) : null));
        readStarted.shift()?.();
      }),
  };
  const aRead = () => new Promise<void>((resolve) => pendingReads.length > 0 ? resolve() : readStarted.push(resolve));
  const aWrite = () => new Promise<void>((resolve) => inFlight.length > 0 ? resolve() : writeStarted.push(resolve));
  const loop = readLoop(reader, {
    writer: out,
    maxMessageBytes: 1024 * 1024,
    sink: () => out.send("x".repeat(40_000)),
    onError: noError,
    writeWaitMs: 1,
  });
  await aRead();
  pendingReads.shift()!(true);
  await aWrite();
  // The first large write is held: the wait behind it runs out, and the loop reads again.
  await aRead();
  inFlight.shift()!();
  await out.idle();
  // That write went out. The next call's large write is held too, and the read behind it waits again.
  pendingReads.shift()!(true);
  await aWrite();
  await aRead();
  pendingReads.shift()!(false);
  const end = await loop.done;
  assert.equal(end.cause, "end");
  assert.equal(end.writeWaitsRanOut, 2);
  inFlight.shift()!();
});

Deno.test("readLoop() stop() ends a read's wait for a large write that never goes out", async () => {
  // The write stays held to the end: only the stop can end the wait before its 30 s, after which the loop
  // would read the end of input and end with "end".
  const { seen, loop } = await behindHeldWrite("x".repeat(40_000), ["call\n"], 30_000);
  assert.deepEqual(seen, ["read", "write"]);
  loop.stop();
  assert.equal((await loop.done).cause, "stopped");
});

Deno.test("readLoop() holding the lines of a client that stops reading keeps what the lines take, not the reads they came in", async () => {
  // A real process, so that its memory can be measured after a full collection: serve() behind an output that takes
  // nothing, each read one short call and 64 KiB of blank line. A held line that kept the text of its whole read kept
  // 64 KiB per call: 225 MB resident where 57 MB is held.
  const script = new URL("./testdata/held_lines.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--v8-flags=--expose-gc", script],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const { reads, rss } = JSON.parse(stderr.trim().split("\n").at(-1)!);
  assert.ok(reads > 1_000 && reads < 5_000, `reading stopped at the bound on held messages, after ${reads} reads`);
  assert.ok(rss < 128 * 1024 * 1024, `${(rss / 2 ** 20).toFixed(0)} MiB resident with the messages held`);
});
