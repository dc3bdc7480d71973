// test-permissions: --allow-run --allow-read={repo}
import assert from "node:assert/strict";
import { holdProcess } from "./testdata/hold_process.ts";
import { fileURLToPath } from "node:url";
import { runDeno, spawnServer, StreamText } from "../testing/mod.ts";
import { denoRun } from "./deno_run.ts";
import { startTimer } from "./native_timer.ts";

Deno.test("startTimer() runs its callback once, after the wait; a cancelled one never runs", async () => {
  using _held = holdProcess();
  const ran: string[] = [];
  const cancelled = startTimer(() => ran.push("cancelled"), 1);
  cancelled.cancel();
  cancelled.cancel();
  const started = performance.now();
  await new Promise<void>((resolve) => startTimer(() => (ran.push("ran"), resolve()), 20));
  assert.ok(performance.now() - started >= 19, "not before its time");
  // A later timer has fired: the cancelled one, due long before, would have too.
  await new Promise<void>((resolve) => startTimer(resolve, 5));
  assert.deepEqual(ran, ["ran"]);
});

Deno.test({
  name: "startTimer() keeps no process alive, and a callback that throws is an uncaught error, as setTimeout's",
  async fn() {
    const fixture = fileURLToPath(new URL("./testdata/native_timer_process.ts", import.meta.url));
    const pending = await runDeno({ args: [fixture, "pending"] });
    assert.equal(pending.code, 0, pending.stderr);
    assert.equal(pending.stdout, "", "the process ended without waiting for the timer");
    const throwing = await runDeno({ args: [fixture, "throwing"] });
    assert.equal(throwing.code, 1);
    assert.match(throwing.stderr, /boom from a timer/);
  },
});

Deno.test({
  name:
    "a server's first asynchronous call arms its deadline, and its first large reply its wait, without reading the global setTimeout (node:timers)",
  async fn() {
    const fixture = fileURLToPath(new URL("./testdata/timer_watch_server.ts", import.meta.url));
    const server = await spawnServer({ args: [fixture] });
    try {
      const answer = (result: unknown) => ((result as { content: { text: string }[] }).content[0].text);
      assert.equal(answer(await server.client.callTool({ name: "wait", arguments: {} })), "waited");
      // A large reply: the read after it waits for its write, on a timer (stdio/_read_loop.ts).
      assert.equal(answer(await server.client.callTool({ name: "big", arguments: {} })).length, 100_000);
      assert.equal(answer(await server.client.callTool({ name: "timers_read", arguments: {} })), "false");
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name:
    "a server that shuts down at the end of input with a call in flight waits out its grace period without reading a global timer (node:timers)",
  async fn() {
    const fixture = fileURLToPath(new URL("./testdata/timer_watch_server.ts", import.meta.url));
    const server = await spawnServer({ args: [fixture] });
    let status: Deno.CommandStatus;
    const call = server.client.callTool({ name: "until_aborted", arguments: {} }).then(
      (result) => JSON.stringify(result),
      (err: unknown) => String(err),
    );
    try {
      await server.waitForStderr("until_aborted started");
    } finally {
      // End of input: shutdown waits (internal/within.ts) for the call, up to the 100 ms grace, then aborts it, and
      // waits for its reply to be written.
      status = await server.close();
    }
    assert.equal(status.code, 0, server.stderr());
    assert.match(await call, /shutting down/i, "the call was aborted at shutdown, once the grace period passed");
    assert.match(server.stderr(), /global timers read by exit: none\n$/);
  },
});

Deno.test({
  name:
    "a server that shuts down with a write to an unread stderr pending waits out its flush's bound without reading a global timer (node:timers)",
  async fn() {
    const fixture = fileURLToPath(new URL("./testdata/timer_watch_server.ts", import.meta.url));
    const child = denoRun([fixture, "report-on-stdout"]).spawn();
    const stdout = new StreamText(child.stdout);
    const stdin = child.stdin.getWriter();
    const call = (id: number, method: string, params: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method, params });
    await stdin.write(new TextEncoder().encode(
      [
        call(0, "initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "timer-test", version: "0" },
        }),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        call(1, "tools/call", { name: "flood", arguments: {} }),
      ].join("\n") + "\n",
    ));
    // 400 KB of log lines wait for a stderr pipe that holds 64 KiB and that this test does not read yet: a write to
    // stderr is pending when the input ends, so shutdown's last step, the flush of stderr, waits on a timer for it.
    await stdout.waitFor("flooded");
    await stdin.close();
    // The server reports on stdout once run() has returned: its flush gave up at its bound, stderr still full.
    await stdout.waitFor("global timers read by exit:");
    const stderr = new StreamText(child.stderr);
    const status = await child.status;
    await Promise.all([stdout.done, stderr.done]);
    assert.equal(status.code, 0, stderr.text.slice(-2000));
    assert.match(stderr.text, /^flood 0000 x+\n/, "stderr was still unread when the server reported");
    assert.match(stdout.text, /global timers read by exit: none\n$/);
  },
});

Deno.test({
  name: "a server whose onClose never ends exits at its bound without reading a global timer (node:timers)",
  async fn() {
    const fixture = fileURLToPath(new URL("./testdata/timer_watch_server.ts", import.meta.url));
    const server = await spawnServer({ args: [fixture, "on-close-hangs"] });
    // End of input, nothing in flight: shutdown reaches onClose at once and waits for it up to its bound.
    const status = await server.close();
    assert.equal(status.code, 0, server.stderr());
    assert.match(server.stderr(), /timer-watch: onClose failed: took over \d+(\.\d+)? ms\n/);
    assert.match(server.stderr(), /global timers read by exit: none\n$/);
  },
});
