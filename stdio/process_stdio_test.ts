// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp}
// Stdin and stdout moved onto the event loop (processStdio(), run()'s
// moveStdioAfter), against a real server subprocess over real pipes: the
// move itself is seen from outside, in the descriptors' flags, and every
// reply arrives once and in order on either side of it.
import assert from "node:assert/strict";
import { call, deadline, hostilePerms, initialize, spawnHostile, STREAM_SERVER, textOf } from "./testdata/hostile.ts";
import { processStdio, processStdioOn } from "./process_stdio.ts";
import { ManualClock } from "../internal/manual_clock.ts";

const O_NONBLOCK = 0o4000;

/** Whether each of the process's stdin and stdout is non-blocking, read from /proc (through `cat`). */
async function nonBlocking(pid: number): Promise<{ stdin: boolean; stdout: boolean }> {
  const flags = async (fd: number) => {
    const out = await new Deno.Command("cat", { args: [`/proc/${pid}/fdinfo/${fd}`] }).output();
    const line = new TextDecoder().decode(out.stdout).split("\n").find((l) => l.startsWith("flags:"));
    assert.ok(line, `flags of fd ${fd}`);
    return (parseInt(line.slice("flags:".length).trim(), 8) & O_NONBLOCK) !== 0;
  };
  return { stdin: await flags(0), stdout: await flags(1) };
}

const linux = Deno.build.os === "linux";

Deno.test({
  name: "moveStdioAfter: 8: stdin and stdout move in the first pause after 8 operations, and calls sent one at a " +
    "time before and after it are answered once each, in order",
  permissions: hostilePerms,
  ignore: !linux,
  async fn() {
    const server = spawnHostile(["--move=8"], "read");
    await initialize(server);
    const ask = async (id: number) => {
      await server.send(call(id, "blob", { bytes: id }));
      const reply = await deadline(server.next(), `reply ${id}`);
      assert.equal(reply.id, id);
      assert.equal(textOf(reply), "b".repeat(id));
    };
    // 10 operations with initialize's: due (8), short of a move without a pause (16).
    for (let id = 1; id <= 4; id++) await ask(id);
    // The client pauses: the server, waiting for input with nothing going out, loads node:net and says so.
    await server.waitForStderr("stdin and stdout move onto the event loop after");
    assert.deepEqual(await nonBlocking(server.child.pid), { stdin: false, stdout: false }, "not moved yet");
    // Each side moves at its next operation: stdout at the next reply, stdin at the read after the one pending.
    for (let id = 5; id <= 60; id++) await ask(id);
    assert.deepEqual(await nonBlocking(server.child.pid), { stdin: true, stdout: true }, "moved");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.equal(server.stderr().split("move onto the event loop").length - 1, 1, "said once");
  },
});

Deno.test({
  name: "moveStdioAfter: 0: 3,000 calls pipelined in one write are answered once each, in order",
  permissions: hostilePerms,
  ignore: !linux,
  async fn() {
    const server = spawnHostile(["--move=0"], "read");
    await initialize(server);
    let text = "";
    for (let id = 1; id <= 3000; id++) text += JSON.stringify(call(id, "blob", { bytes: id % 50 })) + "\n";
    const sent = server.sendRaw(text);
    for (let id = 1; id <= 3000; id++) {
      const reply = await deadline(server.next(), `reply ${id}`);
      assert.equal(reply.id, id);
      assert.equal(textOf(reply), "b".repeat(id % 50));
    }
    await sent;
    assert.deepEqual(await nonBlocking(server.child.pid), { stdin: true, stdout: true });
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "moveStdioAfter: 0: a client that pauses reading loses no reply: 8 replies of 16 MiB arrive, in order",
  permissions: hostilePerms,
  ignore: !linux,
  async fn() {
    const server = spawnHostile(["--move=0"], "read");
    await initialize(server);
    const bytes = 16 * 1024 * 1024;
    for (let id = 1; id <= 8; id++) await server.send(call(id, "blob", { bytes }));
    await server.send(call(9, "blob", { bytes: 3 }));
    await server.waitForStderr(`BLOB ${bytes}`, 4);
    for (let id = 1; id <= 9; id++) {
      const reply = await deadline(server.next(), `reply ${id} of 9`);
      assert.equal(reply.id, id);
      assert.equal(textOf(reply).length, id === 9 ? 3 : bytes);
    }
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "moveStdioAfter: 0: a client that stops reading stdout and closes stdin: the server exits 0 and logs " +
    "the replies it did not deliver",
  permissions: hostilePerms,
  ignore: !linux,
  async fn() {
    const server = spawnHostile(["--move=0", "--grace=300"], "read");
    await initialize(server);
    for (let id = 1; id <= 15; id++) await server.send(call(id, "blob", { bytes: 4 * 1024 * 1024 }));
    await server.send(call(16, "sleep", { ms: 60_000 }));
    await server.waitForStderr("SLEEP_STARTED 60000");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(server.stderr(), /replies not delivered at exit: \d+ queued/);
    assert.equal(server.stderr().split("ON_CLOSE_RAN").length - 1, 1, "onClose ran once");
  },
});

Deno.test({
  name: "moveStdioAfter: 0: a client that closes its end of stdout (EPIPE): the server stops and exits 0",
  permissions: hostilePerms,
  ignore: !linux,
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", STREAM_SERVER, "--move=0"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    await child.stdout.cancel();
    const writer = child.stdin.getWriter();
    const line = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) + "\n");
    try {
      for (let i = 0; i < 50; i++) await writer.write(line);
    } catch {
      // The server may be gone before every ping is written.
    }
    const [status, stderr] = await deadline(
      Promise.all([child.status, new Response(child.stderr).text()]),
      "the server to exit",
    );
    assert.equal(status.code, 0, stderr);
    assert.match(stderr, /output closed/);
  },
});

Deno.test({
  name: "moveStdioAfter: 0 with stdin a file: stdin stays on Deno's pool, stdout moves, every call is answered",
  permissions: "inherit",
  ignore: !linux,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const input = `${dir}/requests.jsonl`;
      let text = JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "file", version: "1" } },
      }) + "\n";
      for (let id = 1; id <= 200; id++) text += JSON.stringify(call(id, "blob", { bytes: 2 })) + "\n";
      await Deno.writeTextFile(input, text);
      const out = await new Deno.Command("sh", {
        args: ["-c", `exec "$0" run --quiet --no-prompt "$1" --move=0 < "$2"`, Deno.execPath(), STREAM_SERVER, input],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const ids = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l).id);
      assert.deepEqual(ids, Array.from({ length: 201 }, (_, i) => i));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("processStdio() with moveAfter Infinity never moves: reads and writes go to the reader and writer given", async () => {
  const seen: string[] = [];
  const stdio = processStdio({
    moveAfter: Infinity,
    reader: { read: (buffer) => (seen.push("read"), buffer.set([1]), Promise.resolve(1)) },
    writer: { write: (bytes) => (seen.push("write"), Promise.resolve(bytes.length)) },
  });
  for (let i = 0; i < 2000; i++) {
    await stdio.reader.read(new Uint8Array(4));
    await stdio.writer.write(new Uint8Array(4));
  }
  assert.equal(seen.length, 4000);
  assert.deepEqual(stdio.moved, { stdin: false, stdout: false });
  stdio.close();
});

Deno.test("processStdio() loads node:net only in a pause: due after moveAfter operations, once a read has waited 50 ms with nothing going out", async () => {
  const clock = new ManualClock();
  let finishWrite: (n: number) => void = () => {};
  let told: () => void = () => {};
  const onMoveCalled = new Promise<void>((resolve) => (told = resolve));
  let operations: number | undefined;
  const stdio = processStdioOn(clock, {
    moveAfter: 2,
    reader: { read: () => new Promise<number | null>(() => {}) },
    writer: { write: () => new Promise<number>((resolve) => (finishWrite = resolve)) },
    onMove: (n) => (operations = n, told()),
  });
  const write = stdio.writer.write(new Uint8Array(1));
  void stdio.reader.read(new Uint8Array(1));
  // Due, and a read waits, but a write is going out: no pause, however long.
  clock.advance(1_000);
  assert.equal(stdio.loadBegun, false, "not while a write goes out");
  finishWrite(1);
  await write;
  clock.advance(49);
  assert.equal(stdio.loadBegun, false, "not before 50 ms of pause");
  clock.advance(1);
  assert.equal(stdio.loadBegun, true, "after 50 ms of pause");
  // A real read of stdin keeps the process alive while node:net loads; this one does not.
  const alive = setInterval(() => {}, 1000);
  await onMoveCalled;
  clearInterval(alive);
  assert.equal(operations, 2);
  assert.deepEqual(stdio.moved, { stdin: false, stdout: false }, "each side moves at its next operation only");
  stdio.close();
});

Deno.test("processStdio() is never due before moveAfter operations, whatever the pauses", () => {
  const clock = new ManualClock();
  const stdio = processStdioOn(clock, {
    moveAfter: 3,
    reader: { read: () => new Promise<number | null>(() => {}) },
    writer: { write: (bytes) => Promise.resolve(bytes.length) },
  });
  void stdio.reader.read(new Uint8Array(1));
  clock.advance(10_000);
  assert.equal(stdio.loadBegun, false);
  stdio.close();
});

Deno.test("processStdio() loads node:net without a pause once twice moveAfter operations are done, as a reply goes out", async () => {
  const clock = new ManualClock();
  const stdio = processStdioOn(clock, {
    moveAfter: 3,
    reader: { read: () => Promise.resolve(1) },
    writer: { write: (bytes) => Promise.resolve(bytes.length) },
  });
  for (let i = 0; i < 2; i++) {
    await stdio.reader.read(new Uint8Array(1));
    await stdio.writer.write(new Uint8Array(1));
  }
  await stdio.reader.read(new Uint8Array(1));
  assert.equal(stdio.loadBegun, false, "5 operations, no pause: not yet");
  // Reads of one long message: no load between them, however many.
  for (let i = 0; i < 20; i++) await stdio.reader.read(new Uint8Array(1));
  assert.equal(stdio.loadBegun, false, "25 operations, all reads since the last reply: not yet");
  await stdio.writer.write(new Uint8Array(1));
  assert.equal(stdio.loadBegun, true, "loaded as the next reply goes out");
  stdio.close();
});
