// Run with --v8-flags=--expose-gc by stdio/_read_loop_test.ts: a read loop
// behind a writer that never drains holds what it reads, each read one short
// call and a long blank line, until its bound stops reading; then prints the
// reads it made and the heap that stays in use, as JSON.
import { readLoop } from "../_read_loop.ts";
import { FrameWriter } from "../_writer.ts";

const reads = Number(Deno.args[0] ?? 5000);
const call = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
const blank = new TextEncoder().encode(" ".repeat(65_000) + "\n");
let made = 0;
const reader = {
  read(buffer: Uint8Array): Promise<number | null> {
    if (made++ >= reads) return Promise.resolve(null);
    buffer.set(call);
    buffer.set(blank, call.length);
    return Promise.resolve(call.length + blank.length);
  },
};
// One reply fills it: every later line is held.
const writer = new FrameWriter({ write: () => new Promise<number>(() => {}) }, 1, () => {});
readLoop(reader, { writer, maxMessageBytes: 1024 * 1024, sink: () => writer.send("{}"), onError: () => {} });
// Reading stops once the held lines reach the loop's bound; wait until no read comes for a few turns.
let seen = -1;
while (seen !== made) {
  seen = made;
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}
(globalThis as unknown as { gc(): void }).gc();
console.log(JSON.stringify({ reads: made, heapUsed: Deno.memoryUsage().heapUsed }));
Deno.exit(0);
