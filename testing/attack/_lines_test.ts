import assert from "node:assert/strict";
import { Bell, Gate, Lines, pump } from "./_lines.ts";

Deno.test("Lines splits bytes into lines across chunks and keeps a last line without its newline", () => {
  const lines = new Lines(new Bell());
  lines.push(new TextEncoder().encode("a\r\nb"));
  lines.push("c\nd");
  lines.push("e");
  lines.push("\n\nf");
  lines.end();
  assert.deepEqual(lines.lines, ["a", "bc", "de", "", "f"]);
});

Deno.test("Lines joins a line of 4 MiB sent in 64 KiB chunks, and a UTF-8 character split between chunks", () => {
  const lines = new Lines(new Bell());
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  for (let i = 0; i < 64; i++) lines.push(chunk);
  const euro = new TextEncoder().encode("\u20ac\n");
  lines.push(euro.subarray(0, 1));
  lines.push(euro.subarray(1));
  assert.equal(lines.lines.length, 1);
  assert.equal(lines.lines[0].length, 4 * 1024 * 1024 + 1);
  assert.ok(lines.lines[0].endsWith("x\u20ac"));
});

Deno.test("a closed Gate stops pump() reading until it opens", async () => {
  const gate = new Gate();
  const lines = new Lines(new Bell());
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (++pulls > 3) return controller.close();
      controller.enqueue(new TextEncoder().encode(`${pulls}\n`));
    },
  }, { highWaterMark: 0 });
  gate.set(false);
  const done = pump(stream, lines, gate);
  await new Bell().wait(20); // a fixed wait, only to show that nothing is read while the gate is shut
  assert.deepEqual(lines.lines, []);
  gate.set(true);
  await done;
  assert.deepEqual(lines.lines, ["1", "2", "3"]);
});
