import assert from "node:assert/strict";
import { CallTable } from "./_calls.ts";
import { ExactNumber } from "./id.ts";
import { MAX_PROGRESS_TOKEN_CHARS, noProgress, progressFor, type ProgressOut } from "./_progress.ts";
import { ManualClock } from "../internal/manual_clock.ts";

/** A stream's writer that holds what it was sent and is behind while `congested` is set. */
function writer(): ProgressOut & { frames: string[]; congested: boolean; drain(): Promise<void> } {
  let drained = Promise.withResolvers<void>();
  return {
    frames: [],
    congested: false,
    send(frame: string) {
      this.frames.push(frame);
    },
    idle: () => drained.promise,
    /** Catches up; resolves after whatever waited for it (it waited first). */
    drain() {
      this.congested = false;
      const was = drained;
      drained = Promise.withResolvers<void>();
      was.resolve();
      return was.promise;
    },
  };
}

const params = (frame: string) => JSON.parse(frame).params;

Deno.test("progressFor() sends notifications/progress with the token, total and message as given", () => {
  const table = new CallTable(new ManualClock());
  const out = writer();
  const progress = progressFor({ progressToken: "tok" }, table.open(1, 1000), out);
  progress(1, 10, "first");
  progress(2);
  assert.deepEqual(out.frames.map((f) => JSON.parse(f)), [
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "tok", progress: 1, total: 10, message: "first" },
    },
    { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 2 } },
  ]);
  table.dispose();
});

Deno.test("progressFor() drops values that do not increase, are not finite, or come after the call closed", () => {
  const table = new CallTable(new ManualClock());
  const out = writer();
  const call = table.open(1, 1000);
  const progress = progressFor({ progressToken: 7 }, call, out);
  progress(5);
  progress(5);
  progress(4);
  progress(NaN);
  progress(Infinity);
  progress(6, Infinity);
  table.close(call);
  progress(7);
  assert.deepEqual(out.frames.map((f) => params(f)), [{ progressToken: 7, progress: 5 }, {
    progressToken: 7,
    progress: 6,
  }]);
  table.dispose();
});

Deno.test("progressFor() is silent without a usable token: none, a wrong type, or longer than the limit", () => {
  const table = new CallTable(new ManualClock());
  const call = table.open(1, 1000);
  for (
    const meta of [{}, { progressToken: true }, { progressToken: { a: 1 } }, {
      progressToken: "t".repeat(MAX_PROGRESS_TOKEN_CHARS + 1),
    }]
  ) {
    assert.equal(progressFor(meta, call, writer()), noProgress, JSON.stringify(meta).slice(0, 40));
  }
  assert.notEqual(progressFor({ progressToken: "t".repeat(MAX_PROGRESS_TOKEN_CHARS) }, call, writer()), noProgress);
  table.dispose();
});

Deno.test("progressFor() sends an exact number token back as the text the client sent", () => {
  const table = new CallTable(new ManualClock());
  const out = writer();
  progressFor({ progressToken: ExactNumber.of("9007199254740993") }, table.open(1, 1000), out)(1);
  assert.match(out.frames[0], /"progressToken":9007199254740993,/);
  table.dispose();
});

Deno.test("progressFor() keeps only the latest report while the client is behind, and sends it once drained", async () => {
  const table = new CallTable(new ManualClock());
  const out = writer();
  const progress = progressFor({ progressToken: "t" }, table.open(1, 1000), out);
  out.congested = true;
  for (let i = 1; i <= 1000; i++) progress(i, 1000);
  assert.equal(out.frames.length, 0, "nothing queues while the stream is behind");
  await out.drain();
  assert.deepEqual(out.frames.map((f) => params(f).progress), [1000]);
  table.dispose();
});

Deno.test("progressFor() drops the waiting report when the call closes before the stream drains", async () => {
  const table = new CallTable(new ManualClock());
  const out = writer();
  const call = table.open(1, 1000);
  const progress = progressFor({ progressToken: "t" }, call, out);
  out.congested = true;
  progress(1);
  table.close(call);
  await out.drain();
  assert.deepEqual(out.frames, []);
  table.dispose();
});
