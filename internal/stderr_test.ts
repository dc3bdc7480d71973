import assert from "node:assert/strict";
import { holdProcess } from "./testdata/hold_process.ts";
import type { ByteWriter } from "./byte_writer.ts";
import { ManualClock } from "./manual_clock.ts";
import { RECORD_BUFFER_BYTES, StderrQueue } from "./stderr.ts";

const decoder = new TextDecoder();

/** A writer whose writes wait until `open()`; records what was written. */
function gatedWriter(): ByteWriter & { text(): string; open(): void; writes: number } {
  let gate = Promise.withResolvers<void>();
  let text = "";
  const out = {
    writes: 0,
    async write(bytes: Uint8Array) {
      out.writes++;
      await gate.promise;
      text += decoder.decode(bytes);
      return bytes.length;
    },
    text: () => text,
    open() {
      gate.resolve();
      gate = { ...gate };
    },
  };
  return out;
}

const brokenPipe = { write: () => Promise.reject(new Deno.errors.BrokenPipe("Broken pipe (os error 32)")) };

Deno.test("StderrQueue.logLine() returns at once while stderr is not read, and drops past its buffer", () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out, 1000);
  for (let i = 0; i < 1000; i++) queue.logLine(`line ${i} ${"x".repeat(90)}`);
  assert.equal(out.writes, 1, "one write in flight, the rest wait");
  assert.ok(queue.dropped > 980, `dropped ${queue.dropped}`);
  assert.equal(out.text(), "");
});

Deno.test("StderrQueue writes one count line for the dropped lines once stderr drains", async () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out, 100);
  for (let i = 0; i < 50; i++) queue.logLine(`line ${i}`);
  const dropped = queue.dropped;
  assert.ok(dropped > 0);
  out.open();
  await queue.flush(10_000);
  const lines = out.text().trimEnd().split("\n");
  assert.equal(lines.at(-1), `${dropped} log lines dropped: stderr was not read`);
  assert.equal(lines[0], "line 0");
  assert.equal(lines.length, 50 - dropped + 1, "every kept line, then the count");
  assert.equal(queue.dropped, 0);
});

Deno.test("StderrQueue ignores a closed stderr: logLine() never throws and writeRecord() rejects", async () => {
  const queue = new StderrQueue(brokenPipe);
  queue.logLine("first");
  await queue.flush(10_000);
  assert.equal(queue.closed, true);
  queue.logLine("after close");
  queue.logBytes(new Uint8Array([65, 10]));
  await assert.rejects(queue.writeRecord("record"), /Cannot write a record to stderr: stderr is closed/);
});

Deno.test("StderrQueue.writeRecord() rejects a record queued before stderr turned out closed", async () => {
  const queue = new StderrQueue(brokenPipe);
  const record = queue.writeRecord("audit");
  await assert.rejects(record, /stderr is closed/);
});

Deno.test("StderrQueue.writeRecord() resolves only once the record was written, in order with log lines", async () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out);
  queue.logLine("before");
  let written = false;
  const record = queue.writeRecord('{"tool":"write_file"}').then(() => (written = true));
  queue.logLine("after");
  // A fixed wait, only to prove that something does not happen: no resolve while the write is held.
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(written, false);
  out.open();
  await record;
  assert.equal(out.text().split("\n").slice(0, 2).join("\n"), 'before\n{"tool":"write_file"}');
  await queue.flush(10_000);
  assert.equal(out.text(), 'before\n{"tool":"write_file"}\nafter\n');
});

Deno.test("StderrQueue.writeRecord() is never dropped silently: it rejects within its bound and is taken off the queue", async () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out, 1000);
  queue.logLine("holds the one write in flight");
  using _held = holdProcess();
  await assert.rejects(queue.writeRecord("audit record", 20), /it was not read within 20 ms/);
  out.open();
  await queue.flush(10_000);
  assert.doesNotMatch(out.text(), /^audit record$/m, "a refused record is not written later");
});

Deno.test("StderrQueue refuses each record at its own deadline, on one timer that written records do not re-arm", async () => {
  // A native timer cancelled once its record was written held ~3 KB until its time had passed: 300 MB at 100,000
  // records a second. A run of records written in time arms one timer and cancels none.
  const clock = new ManualClock();
  let armed = 0;
  let cleared = 0;
  const counting = {
    now: () => clock.now(),
    setTimer: (callback: () => void, ms: number) => (armed++, clock.setTimer(callback, ms)),
    clearTimer: (timer: unknown) => (cleared++, clock.clearTimer(timer)),
  };
  const written = new StderrQueue(
    { write: (bytes) => Promise.resolve(bytes.length) },
    1000,
    RECORD_BUFFER_BYTES,
    counting,
  );
  await Promise.all(Array.from({ length: 1000 }, (_, i) => written.writeRecord(`record ${i}`, 1000)));
  assert.deepEqual({ armed, cleared }, { armed: 1, cleared: 0 });
  clock.advance(1000);
  assert.equal(clock.pending, 0, "with no record waiting, the timer that fired is not armed again");

  // Held behind a write that never ends: a record due sooner than the armed timer re-arms it; each is refused at its
  // own deadline, the later one still waiting after the earlier one's.
  const out = gatedWriter();
  const held = new StderrQueue(out, 1000, RECORD_BUFFER_BYTES, clock);
  held.logLine("holds the one write in flight");
  const outcome = (record: Promise<void>) => {
    const seen = { error: "" };
    record.catch((err: Error) => (seen.error = err.message));
    return seen;
  };
  const late = outcome(held.writeRecord("late record", 60_000));
  const soon = outcome(held.writeRecord("soon record", 20_000));
  clock.advance(20_000);
  await Promise.resolve();
  assert.deepEqual([soon.error, late.error], ["Cannot write a record to stderr: it was not read within 20000 ms", ""]);
  clock.advance(40_000);
  await Promise.resolve();
  assert.equal(late.error, "Cannot write a record to stderr: it was not read within 60000 ms");
  assert.equal(clock.pending, 0);
  out.open();
  await held.flush(10_000);
  assert.doesNotMatch(out.text(), /late record|soon record/, "a refused record is not written later");
});

Deno.test("StderrQueue.writeRecord() refuses at once when its record buffer is full", async () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out, 1000, 64);
  const first = queue.writeRecord("x".repeat(40), 60_000);
  await assert.rejects(queue.writeRecord("y".repeat(40), 60_000), /bytes of records are waiting to be read/);
  out.open();
  await first;
});

Deno.test("StderrQueue counts the record lines it refused and says so, apart from log lines, once stderr drains", async () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out, 1000, 64);
  queue.logLine("holds the one write in flight");
  using _held = holdProcess();
  await assert.rejects(queue.writeRecord("a\nb", 20), /it was not read within 20 ms/);
  await assert.rejects(queue.writeRecord("x".repeat(80), 60_000), /bytes of records are waiting to be read/);
  assert.equal(queue.lostRecords, 3);
  out.open();
  await queue.flush(10_000);
  assert.equal(out.text(), "holds the one write in flight\n3 audit records not written: stderr was not read\n");
  assert.equal(queue.lostRecords, 0);
});

Deno.test("StderrQueue.flush() is bounded when stderr is never read", async () => {
  // The bound is V8's timer, which holds no process; a real pending write would, this gated promise does not.
  using _held = holdProcess();
  const out = gatedWriter();
  const queue = new StderrQueue(out);
  queue.logLine("stuck");
  await queue.flush(20);
  assert.equal(out.text(), "");
  out.open();
  await queue.flush(10_000);
  assert.equal(out.text(), "stuck\n");
});

Deno.test("StderrQueue.logLine() writes one line per call: line breaks and control characters are escaped", async () => {
  const out = gatedWriter();
  const queue = new StderrQueue(out);
  queue.logLine('request "a\n{"seq":1}\r\u001b[2K\u2028\u0085\tend');
  out.open();
  await queue.flush(1000);
  assert.equal(out.text(), 'request "a\\n{"seq":1}\\r\\u001b[2K\\u2028\\u0085\tend\n');
});
