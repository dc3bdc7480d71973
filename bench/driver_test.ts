// test-permissions: --allow-run
import assert from "node:assert/strict";
import { addThreadCpu, LineSplitter, ServerProcess } from "./driver.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function split(chunks: (string | Uint8Array)[]): string[] {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (const chunk of chunks) {
    splitter.push(
      typeof chunk === "string" ? encoder.encode(chunk) : chunk,
      (line) => lines.push(decoder.decode(line)),
    );
  }
  return lines;
}

Deno.test("LineSplitter joins a line split over several chunks and keeps the unfinished tail", () => {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  const onLine = (line: Uint8Array) => lines.push(decoder.decode(line));
  splitter.push(encoder.encode('{"id":'), onLine);
  splitter.push(encoder.encode("1"), onLine);
  splitter.push(encoder.encode('}\n{"id":2}\n{"id"'), onLine);
  assert.deepEqual(lines, ['{"id":1}', '{"id":2}']);
  assert.equal(splitter.pending, 5);
});

Deno.test("LineSplitter removes the \\r of a CRLF line ending, also when \\r and \\n arrive apart", () => {
  assert.deepEqual(split(["a\r\nb\r", "\nc\n"]), ["a", "b", "c"]);
});

Deno.test("LineSplitter keeps a \\r that is not at the end of a line", () => {
  assert.deepEqual(split(["a\rb\n"]), ["a\rb"]);
});

Deno.test("LineSplitter copies the tail, so the caller may reuse its read buffer", () => {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  const buffer = encoder.encode("hello");
  splitter.push(buffer, (line) => lines.push(decoder.decode(line)));
  buffer.fill(0x21);
  splitter.push(encoder.encode(" world\n"), (line) => lines.push(decoder.decode(line)));
  assert.deepEqual(lines, ["hello world"]);
});

Deno.test("LineSplitter copies each byte of an 8 MiB line at most twice when it arrives in 4 KiB chunks", () => {
  const size = 8 * 1024 * 1024;
  const chunk = new Uint8Array(4096).fill(0x78);
  const splitter = new LineSplitter();
  let got = 0;
  for (let sent = 0; sent < size; sent += chunk.length) splitter.push(chunk, () => assert.fail("no line yet"));
  splitter.push(encoder.encode("\n"), (line) => (got = line.length));
  assert.equal(got, size);
  // A quadratic reader (re-concatenating its buffer per chunk) would copy ~size²/(2·4096) bytes: ~8 GiB here.
  assert.ok(splitter.copiedBytes <= 2 * size, `copied ${splitter.copiedBytes} bytes for a ${size}-byte line`);
});

Deno.test("LineSplitter hands out many short lines of one chunk without copying them", () => {
  const splitter = new LineSplitter();
  let count = 0;
  splitter.push(encoder.encode("x\n".repeat(10_000)), () => count++);
  assert.equal(count, 10_000);
  assert.equal(splitter.copiedBytes, 0);
});

// A server that answers every request line with an empty result, by id.
const ECHO_SERVER = `
const decoder = new TextDecoder();
let rest = "";
for await (const chunk of Deno.stdin.readable) {
  const lines = (rest + decoder.decode(chunk)).split("\\n");
  rest = lines.pop();
  const out = lines.filter((l) => l).map((l) => JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(l).id, result: {} }) + "\\n");
  await Deno.stdout.write(new TextEncoder().encode(out.join("")));
}`;

function spawnEval(code: string): ServerProcess {
  return ServerProcess.spawn({ command: Deno.execPath(), args: ["eval", "--quiet", code] });
}

Deno.test({
  name: "ServerProcess matches replies to requests by id, one at a time and pipelined",
  permissions: { run: true },
  fn: async () => {
    const server = spawnEval(ECHO_SERVER);
    try {
      const outcome = await server.request("ping", {}, 10_000);
      assert.equal(outcome.kind, "reply");
      assert.deepEqual(outcome.kind === "reply" && outcome.message.result, {});
      const run = await server.pipeline(
        500,
        16,
        (id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`,
        (m) => typeof m.result === "object",
        10_000,
      );
      assert.deepEqual({ ok: run.ok, bad: run.bad, stopped: run.stopped }, { ok: 500, bad: 0, stopped: undefined });
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name: "ServerProcess reports a server that never answers as a timeout instead of waiting",
  permissions: { run: true },
  fn: async () => {
    const server = spawnEval("for await (const _ of Deno.stdin.readable) { /* read and say nothing */ }");
    try {
      const outcome = await server.request("ping", {}, 300);
      assert.deepEqual(outcome.kind === "none" && outcome.reason, "no answer (timeout after 0.3 s)");
      const run = await server.pipeline(
        10,
        10,
        (id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`,
        () => true,
        300,
      );
      assert.equal(run.ok, 0);
      assert.match(run.stopped ?? "", /^no answer \(stalled/);
    } finally {
      await server.close(500);
    }
  },
});

Deno.test({
  name: "ServerProcess reports a server that exits with the request unanswered",
  permissions: { run: true },
  fn: async () => {
    const server = spawnEval("Deno.exit(7)");
    const outcome = await server.request("ping", {}, 10_000);
    assert.deepEqual(outcome.kind === "none" && outcome.reason, "server exited (code 7)");
    await server.close();
  },
});

Deno.test({
  name: "ServerProcess cannot spawn without the run permission",
  permissions: { run: false },
  fn: () => {
    assert.throws(() => spawnEval("1"), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "ServerProcess reads the child's RSS and CPU time from /proc",
  permissions: { run: true },
  fn: async () => {
    const server = spawnEval(ECHO_SERVER);
    try {
      await server.request("ping", {}, 10_000);
      const rss = (await server.memoryKiB())?.rss;
      const cpu = await server.cpuSeconds();
      assert.ok(rss !== undefined && rss > 1024, `RSS ${rss} KiB`);
      assert.ok(cpu !== undefined && cpu > 0, `CPU ${cpu} s`);
    } finally {
      await server.close();
    }
  },
});

Deno.test("addThreadCpu() counts each thread's time since the last reading: a thread that exits takes nothing away", () => {
  const last = new Map<string, number>();
  assert.equal(addThreadCpu(last, new Map([["1", 100], ["2", 50]])), 150, "the first reading counts whole");
  assert.equal(addThreadCpu(last, new Map([["1", 130], ["2", 60]])), 40);
  // Thread 2 exited (a pool thread idle for 10 s): a plain sum would have dropped by its 60.
  assert.equal(addThreadCpu(last, new Map([["1", 150]])), 20);
  // A new thread counts whole; one whose counter went down is a new thread under a reused id.
  assert.equal(addThreadCpu(last, new Map([["1", 160], ["3", 5], ["2", 7]])), 10 + 5 + 7);
  assert.deepEqual([...last], [["1", 160], ["3", 5], ["2", 7]]);
});
