import assert from "node:assert/strict";
import { jsonLine, readJsonLines } from "./json_lines.ts";

/** A stream of the given chunks, as a pipe would deliver them. */
function chunks(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(parts.map((part) => typeof part === "string" ? encoder.encode(part) : part));
}

async function all(stream: ReadableStream<Uint8Array>, max = 1_000): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of readJsonLines(stream, max)) values.push(value);
  return values;
}

Deno.test("readJsonLines() reads one value per line, however the lines are cut into chunks", async () => {
  const bytes = new TextEncoder().encode('{"a":1}\n[2,"é\\n"]\n"three"\n');
  const whole = await all(chunks(bytes));
  assert.deepEqual(whole, [{ a: 1 }, [2, "é\n"], "three"]);
  // Every cut, including one inside the two-byte "é".
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(await all(chunks(bytes.slice(0, cut), bytes.slice(cut))), whole, `cut at ${cut}`);
  }
  assert.deepEqual(await all(chunks(...[...bytes].map((byte) => new Uint8Array([byte])))), whole);
});

Deno.test("readJsonLines() refuses a line past its cap, split or whole, and a line that is not JSON", async () => {
  await assert.rejects(all(chunks(`"${"x".repeat(20)}"\n`), 10), {
    name: "RangeError",
    message: "Cannot read a line: it is longer than 10 bytes",
  });
  await assert.rejects(all(chunks('"xxxxxx', "xxxxxx"), 10), RangeError);
  await assert.rejects(all(chunks("not json\n")), SyntaxError);
  // Exactly at the cap is accepted.
  assert.deepEqual(await all(chunks(`"${"x".repeat(8)}"\n`), 10), ["x".repeat(8)]);
});

Deno.test("readJsonLines() ends with the stream; an unfinished last line is not a value", async () => {
  assert.deepEqual(await all(chunks('{"a":1}\n{"b":')), [{ a: 1 }]);
  assert.deepEqual(await all(chunks()), []);
});

Deno.test("jsonLine() writes one line that readJsonLines() reads back, line breaks in strings escaped", async () => {
  const value = { sql: "SELECT 1;\n-- two lines", params: [null, 1.5] };
  const line = jsonLine(value);
  assert.equal(line.filter((byte) => byte === 10).length, 1);
  assert.deepEqual(await all(chunks(line, line)), [value, value]);
});
