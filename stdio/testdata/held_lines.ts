// Run with --v8-flags=--expose-gc by stdio/_read_loop_test.ts: serve() over
// in-memory pipes, behind an output that never takes a byte, holds what it
// reads, each read one short call and a long blank line, until its bound on
// held messages stops reading; then prints the reads it made and its resident
// memory after a full collection, as one JSON line on stderr (serve() keeps
// stdout for replies). Resident, not the heap: what a held message kept of its
// read did not show in heapUsed.
import { serve } from "../serve.ts";
import { Server } from "../../mod.ts";

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
// The first reply is never written, and one queued reply is past the bound: every later message is held.
const writer = { write: () => new Promise<number>(() => {}) };
serve(new Server({ name: "held" }), { reader, writer }, { maxQueuedBytes: 1, log: () => {} });
// Reading stops once the held messages reach the read loop's bound; wait until no read comes for a few turns.
let seen = -1;
while (seen !== made) {
  seen = made;
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}
(globalThis as unknown as { gc(): void }).gc();
console.error(JSON.stringify({ reads: made, rss: Deno.memoryUsage().rss }));
Deno.exit(0);
