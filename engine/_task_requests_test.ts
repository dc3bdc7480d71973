// test-permissions: --allow-run --allow-env --allow-read={repo}
// The tasks extension over a real server subprocess. @modelcontextprotocol/client
// 2.4 does not speak the extension (it refuses resultType "task"), so the task
// side is driven with raw frames; the official clients show that a client
// without the extension gets the plain result, in both eras.
import assert from "node:assert/strict";
import { Client as SessionClient } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport as SessionStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type RawServer, spawnRaw } from "@forge/toolkit/testing";
import { initialize } from "./testdata/raw_initialize.ts";

const script = new URL("./testdata/task_server.ts", import.meta.url).pathname;
const perms: Deno.PermissionOptions = { run: true, env: true, read: [new URL("..", import.meta.url).pathname] };
const TASKS = "io.modelcontextprotocol/tasks";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Json = Record<string, unknown>;

/** `_meta` of a 2026-07-28 request, declaring the extension or not, and any other capabilities. */
function meta(tasks: boolean, capabilities: Json = {}): Json {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": tasks
      ? { ...capabilities, extensions: { [TASKS]: {} } }
      : capabilities,
  };
}

let nextId = 0;

/** Sends a 2026-07-28 request and returns its reply (other messages are skipped). */
async function ask(server: RawServer, method: string, params: Json, tasks = true, id = `r${++nextId}`): Promise<Json> {
  await server.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: { ...meta(tasks), ...params._meta as Json } },
    }),
  );
  for (;;) {
    // A generous limit that only turns a hang into a failure: spawnRaw's default of 10 s was passed by a server
    // still starting on a starved machine.
    const msg = await server.next(60_000);
    if (msg.id === id) return msg;
  }
}

const call = (server: RawServer, name: string, args: Json = {}, tasks = true) =>
  ask(server, "tools/call", { name, arguments: args }, tasks);
const resultOf = (msg: Json) => msg.result as Json;
const errorOf = (msg: Json) => msg.error as { code: number; message: string; data?: unknown };

/**
 * Polls tasks/get until the task leaves `working`. Between two polls it
 * waits for the next handler to end (`ENDED` on stderr): the task's own
 * handler says so after the poll that found it working, so each wait ends.
 */
async function settled(server: RawServer, taskId: unknown): Promise<Json> {
  for (let ended = count(server.stderr(), "ENDED ");; ended++) {
    const got = await ask(server, "tasks/get", { taskId });
    if (got.error || resultOf(got).status !== "working") return got;
    await server.waitForStderr("ENDED ", ended + 1);
  }
}

const count = (text: string, marker: string) => text.split(marker).length - 1;

/** Waits until `tool`'s handler has heard its signal fire, and returns stderr. */
async function aborted(server: RawServer, tool: string): Promise<string> {
  await server.waitForStderr(`ABORTED ${tool}`);
  return server.stderr();
}

Deno.test({
  name: "a task tool answers resultType task to a client that declares the extension; tasks/get polls to its result",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const discover = resultOf(await ask(server, "server/discover", {}));
    assert.deepEqual((discover.capabilities as Json).extensions, { [TASKS]: {} });
    // held works until the client calls release: a sleep of 150 ms ended before the first tasks/get on a busy machine.
    const created = resultOf(await call(server, "held"));
    assert.equal(created.resultType, "task");
    assert.match(String(created.taskId), UUID);
    assert.equal(created.status, "working");
    assert.equal(created.ttlMs, 600_000);
    assert.equal(created.pollIntervalMs, 1_000);
    assert.ok(!Number.isNaN(Date.parse(String(created.createdAt))));
    const working = resultOf(await ask(server, "tasks/get", { taskId: created.taskId }));
    assert.equal(working.status, "working");
    assert.equal(working.resultType, "complete");
    assert.equal(resultOf(await call(server, "release", {}, false)).resultType, "complete");
    const done = resultOf(await settled(server, created.taskId));
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result, { content: [{ type: "text", text: "released" }] });
    assert.ok((done._meta as Json)["io.modelcontextprotocol/serverInfo"]);
    // Polling again gives the same result: it is kept until the TTL.
    assert.deepEqual(resultOf(await ask(server, "tasks/get", { taskId: created.taskId })).result, done.result);
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name:
    "a task created, polled and cancelled under long string ids with a € is answered under each, its result spliced in " +
    "(each id kept as a large string is)",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const long = `€${"a".repeat(70_000)}\\"`;
    const created = await ask(server, "tools/call", { name: "slow", arguments: { ms: 1 } }, true, `${long}1`);
    assert.equal(created.id, `${long}1`);
    assert.equal(resultOf(created).resultType, "task");
    const taskId = resultOf(created).taskId;
    await settled(server, taskId);
    const got = await ask(server, "tasks/get", { taskId }, true, `${long}2`);
    assert.equal(got.id, `${long}2`);
    assert.equal(resultOf(got).status, "completed");
    assert.deepEqual(resultOf(got).result, { content: [{ type: "text", text: "slept 1" }] });
    const cancelled = await ask(server, "tasks/cancel", { taskId }, true, `${long}3`);
    assert.equal(cancelled.id, `${long}3`);
    const missing = await ask(
      server,
      "tasks/get",
      { taskId: "00000000-0000-4000-8000-000000000000" },
      true,
      `${long}4`,
    );
    assert.equal(missing.id, `${long}4`);
    assert.equal(errorOf(missing).message, "Cannot retrieve task: Task not found");
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "without the extension, or for a tool not marked long-running, the call runs as usual",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const plain = resultOf(await call(server, "slow", { ms: 1 }, false));
    assert.equal(plain.resultType, "complete");
    assert.deepEqual(plain.content, [{ type: "text", text: "slept 1" }]);
    assert.equal(resultOf(await call(server, "quick")).resultType, "complete");
    const invalid = resultOf(await call(server, "slow", { ms: "soon" }));
    assert.equal(invalid.resultType, "complete", "arguments that break the schema are answered at once");
    assert.equal(invalid.isError, true);
    const probe = resultOf(
      await ask(server, "tools/call", {
        name: "slow",
        arguments: { ms: 1 },
        _meta: { "forge.permission_patterns": true },
      }),
    );
    assert.equal(probe.resultType, "complete", "a probe never becomes a task");
    await server.status();
  },
});

Deno.test({
  name:
    "before any task exists tasks/* answer Task not found; two tasks asked for just before input ends are created, " +
    "answered and cancelled at shutdown",
  permissions: perms,
  async fn() {
    // The tasks code loads at the first task: these requests are answered before it is.
    const server = await spawnRaw({ args: [script] });
    const taskId = "00000000-0000-4000-8000-000000000000";
    assert.deepEqual(errorOf(await ask(server, "tasks/get", { taskId })), {
      code: -32602,
      message: "Cannot retrieve task: Task not found",
    });
    assert.deepEqual(errorOf(await ask(server, "tasks/update", { taskId, inputResponses: {} })), {
      code: -32602,
      message: "Cannot update task: Task not found",
    });
    assert.deepEqual(errorOf(await ask(server, "tasks/cancel", { taskId })), {
      code: -32602,
      message: "Cannot cancel task: Task not found",
    });
    // Both calls come before the tasks code has loaded: each gets its own task.
    const line = (id: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 60_000 }, _meta: meta(true) },
      });
    await server.send(`${line("a")}\n${line("b")}`);
    assert.equal((await server.status()).code, 0);
    const replies = server.lines.map((l) => JSON.parse(l) as Json).filter((m) => m.id === "a" || m.id === "b");
    assert.equal(replies.length, 2);
    const ids = replies.map((reply) => {
      assert.equal(resultOf(reply).resultType, "task");
      return resultOf(reply).taskId;
    });
    assert.notEqual(ids[0], ids[1]);
    assert.equal(count(server.stderr(), "ABORTED slow"), 2, "both handlers were cancelled at shutdown");
  },
});

Deno.test({
  name:
    "tasks/* needs the extension: -32021 without it in 2026-07-28, -32601 in the initialize era; bad ids are -32602",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const created = resultOf(await call(server, "slow", { ms: 5_000 }));
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const refused = errorOf(await ask(server, method, { taskId: created.taskId, inputResponses: {} }, false));
      assert.equal(refused.code, -32021);
      assert.deepEqual(refused.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
    assert.equal(resultOf(await ask(server, "tasks/get", { taskId: created.taskId })).status, "working");
    const listen = { notifications: { taskIds: [created.taskId] } };
    assert.equal(errorOf(await ask(server, "subscriptions/listen", listen, false)).code, -32021);
    const missing = errorOf(await ask(server, "tasks/get", { taskId: "00000000-0000-4000-8000-000000000000" }));
    assert.deepEqual(missing, { code: -32602, message: "Cannot retrieve task: Task not found" });
    const huge = errorOf(await ask(server, "tasks/get", { taskId: "x".repeat(200_000) }));
    assert.deepEqual(huge, { code: -32602, message: "Cannot retrieve task: Task not found" }, "the id is never echoed");
    assert.equal(errorOf(await ask(server, "tasks/cancel", { taskId: 7 })).code, -32602);
    assert.equal(
      errorOf(await ask(server, "tasks/update", { taskId: created.taskId, inputResponses: [] })).code,
      -32602,
    );
    await initialize(server);
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: "session", method: "tasks/get", params: created }));
    assert.equal(errorOf(await server.next()).code, -32601);
    await server.status();
  },
});

Deno.test({
  name: "a task ends completed with isError for a ToolError, and failed with -32603 (no path) for a handler bug",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const refused = resultOf(await settled(server, resultOf(await call(server, "refuse")).taskId));
    assert.equal(refused.status, "completed");
    assert.deepEqual(refused.result, {
      content: [{ type: "text", text: "Cannot refuse: nothing to refuse" }],
      isError: true,
    });
    const crashed = resultOf(await settled(server, resultOf(await call(server, "crash")).taskId));
    assert.equal(crashed.status, "failed");
    const failure = crashed.error as { code: number; message: string };
    assert.equal(failure.code, -32603);
    assert.match(failure.message, /^Internal error \(ref [0-9a-z-]+\)$/);
    assert.doesNotMatch(JSON.stringify(crashed), /secret/);
    await server.status();
  },
});

Deno.test({
  name: "tasks/cancel fires the handler's signal and the task ends cancelled; the server keeps serving",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const { taskId } = resultOf(await call(server, "slow", { ms: 30_000 }));
    const ack = resultOf(await ask(server, "tasks/cancel", { taskId }));
    assert.deepEqual(Object.keys(ack).sort(), ["_meta", "resultType"]);
    assert.match(await aborted(server, "slow"), /ABORTED slow: AbortError: Cancelled by the client/);
    const cancelled = resultOf(await ask(server, "tasks/get", { taskId }));
    assert.equal(cancelled.status, "cancelled");
    assert.equal(cancelled.result, undefined);
    // Cancelling again is acknowledged and changes nothing.
    assert.equal(resultOf(await ask(server, "tasks/cancel", { taskId })).resultType, "complete");
    assert.equal(resultOf(await call(server, "slow", { ms: 1 }, false)).resultType, "complete");
    await server.status();
  },
});

Deno.test({
  name: "a task past its TTL is aborted and freed: tasks/get then says it has expired",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const created = resultOf(await call(server, "short_lived", { ms: 30_000 }));
    assert.equal(created.ttlMs, 300);
    // The task is freed before its handler hears the abort, so any request after the line finds it gone.
    assert.match(await aborted(server, "short_lived"), /ABORTED short_lived: TimeoutError/);
    assert.deepEqual(errorOf(await ask(server, "tasks/get", { taskId: created.taskId })), {
      code: -32602,
      message: "Cannot retrieve task: Task has expired",
    });
    // That a finished task is freed at its TTL too is _tasks_test.ts's to show: a real
    // 300 ms TTL cannot promise the task finishes first on a busy machine.
    await server.status();
  },
});

Deno.test({
  name: "past maxTasks a call that would become a task is refused with a clear busy error; freed tasks make room",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script, "--max-tasks=2"] });
    const first = resultOf(await call(server, "slow", { ms: 30_000 }));
    const second = resultOf(await call(server, "slow", { ms: 30_000 }));
    const refused = errorOf(await call(server, "slow", { ms: 1 }));
    assert.equal(refused.code, -32603);
    assert.equal(refused.message, "Server busy: 2 tasks held (maxTasks); retry later, or cancel a task");
    assert.deepEqual(refused.data, { reason: "server_busy", retryable: true, limit: 2 });
    // A task the client cancelled is the first to make room.
    await ask(server, "tasks/cancel", { taskId: first.taskId });
    const third = resultOf(await call(server, "slow", { ms: 30_000 }));
    assert.equal(third.resultType, "task");
    assert.equal(errorOf(await ask(server, "tasks/get", { taskId: first.taskId })).code, -32602);
    assert.equal(errorOf(await call(server, "slow", { ms: 1 })).code, -32603, "running tasks are never evicted");
    // A task past its TTL makes room: the table is full again until short_lived expires.
    await ask(server, "tasks/cancel", { taskId: second.taskId });
    assert.equal(resultOf(await call(server, "short_lived", { ms: 30_000 })).resultType, "task");
    await aborted(server, "short_lived");
    assert.equal(resultOf(await call(server, "slow", { ms: 1 })).resultType, "task");
    await server.status();
  },
});

Deno.test({
  name: "a full task table frees the oldest task whose end the client has read, never one whose result is unread",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script, "--max-tasks=2"] });
    const a = resultOf(await call(server, "slow", { ms: 1 }));
    const b = resultOf(await call(server, "slow", { ms: 1 }));
    await server.waitForStderr("ENDED slow", 2);
    assert.equal(errorOf(await call(server, "slow", { ms: 1 })).code, -32603, "finished but unread: kept");
    assert.equal(resultOf(await settled(server, b.taskId)).status, "completed");
    assert.equal(resultOf(await call(server, "slow", { ms: 1 })).resultType, "task");
    assert.equal(errorOf(await ask(server, "tasks/get", { taskId: b.taskId })).code, -32602, "b was read, so freed");
    assert.equal(resultOf(await ask(server, "tasks/get", { taskId: a.taskId })).status, "completed", "a is unread");
    await server.status();
  },
});

Deno.test({
  name:
    "a task result over maxMessageBytes or maxTaskBytes fails the task with the size error instead of being held; " +
    "a batch (2025-03-26) refuses a tasks/get of a held result unbuilt",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script, "--max=65536", "--task-bytes=100000"] });
    const huge = resultOf(await settled(server, resultOf(await call(server, "huge", { n: 100_000 })).taskId));
    assert.equal(huge.status, "failed");
    const error = huge.error as { code: number; message: string; data: Json };
    assert.equal(error.code, -32603);
    assert.match(
      error.message,
      /^Reply too large: 100\d{3} bytes exceeds the limit of 65536 bytes \(maxMessageBytes\)$/,
    );
    const fits = resultOf(await settled(server, resultOf(await call(server, "huge", { n: 60_000 })).taskId));
    assert.equal(fits.status, "completed");
    const over = resultOf(await settled(server, resultOf(await call(server, "huge", { n: 60_000 })).taskId));
    assert.equal(over.status, "failed");
    assert.match((over.error as { message: string }).message, /maxTaskBytes/);
    // 2026-07-28 has no batches: each tasks/get in one is -32600. Answered, each item spliced the held result into
    // its reply and measured it before finding the array full (1,024 items of 30 MB blocked the server for 68 s).
    await initialize(server, "2025-03-26");
    const get = (id: number) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: fits.taskId, _meta: meta(true) } });
    await server.send(
      `[${Array.from({ length: 200 }, (_, i) => get(i)).join(",")},{"jsonrpc":"2.0","id":"p","method":"ping"}]`,
    );
    const batch = await server.next() as unknown as { id: unknown; result?: unknown; error?: { code: number } }[];
    assert.equal(batch.length, 201);
    assert.deepEqual(batch.at(-1), { jsonrpc: "2.0", id: "p", result: {} });
    assert.deepEqual(new Set(batch.slice(0, -1).map((item) => item.error?.code)), new Set([-32600]));
    await server.status();
  },
});

Deno.test({
  name: "shutdown cancels running tasks: their handlers' signals fire and the server exits 0",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    await call(server, "slow", { ms: 30_000 });
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(server.stderr(), /ABORTED slow: AbortError: Server is shutting down/);
  },
});

Deno.test({
  name: "the official clients without the extension get the plain result of a task tool: SDK 1.32.2 and client 2.4",
  permissions: perms,
  async fn() {
    const args = ["run", "--quiet", "--no-prompt", "--deny-run", script];
    const session = new SessionClient({ name: "session", version: "1" });
    await session.connect(new SessionStdio({ command: Deno.execPath(), args, stderr: "pipe" }));
    assert.deepEqual((await session.callTool({ name: "slow", arguments: { ms: 1 } })).content, [
      { type: "text", text: "slept 1" },
    ]);
    await session.close();
    const stateless = new Client({ name: "stateless", version: "2" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await stateless.connect(new StdioClientTransport({ command: Deno.execPath(), args, stderr: "pipe" }));
    assert.deepEqual((await stateless.callTool({ name: "slow", arguments: { ms: 1 } })).content, [
      { type: "text", text: "slept 1" },
    ]);
    await stateless.close();
  },
});

Deno.test({
  name: "a task's handler asks through inputRequests: input_required on tasks/get, answered by tasks/update, then done",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const { taskId } = resultOf(
      await ask(server, "tools/call", { name: "greet", arguments: {}, _meta: meta(true, { elicitation: {} }) }),
    );
    // The handler asks in the same turn it prints the line.
    await server.waitForStderr("ASKING greet");
    const asked = resultOf(await ask(server, "tasks/get", { taskId }));
    assert.equal(asked.status, "input_required");
    const requests = asked.inputRequests as Record<string, { method: string; params: Json }>;
    const [key] = Object.keys(requests);
    assert.equal(requests[key].method, "elicitation/create");
    assert.equal(requests[key].params.message, "Please enter your name.");
    // A key that is not outstanding is ignored; the answer to the real one resumes the handler.
    await ask(server, "tasks/update", { taskId, inputResponses: { "not-asked": { action: "decline" } } });
    assert.equal(resultOf(await ask(server, "tasks/get", { taskId })).status, "input_required");
    const ack = resultOf(
      await ask(server, "tasks/update", {
        taskId,
        inputResponses: { [key]: { action: "accept", content: { name: "Luca" } } },
      }),
    );
    assert.equal(ack.resultType, "complete");
    const done = resultOf(await settled(server, taskId));
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result, { content: [{ type: "text", text: "Hello, Luca!" }] });
    // Without the elicitation capability the question fails the task with -32021, as it would fail the call.
    const bare = resultOf(await settled(server, resultOf(await call(server, "greet")).taskId));
    assert.equal(bare.status, "failed");
    assert.equal((bare.error as { code: number }).code, -32021);
    await server.status();
  },
});

Deno.test({
  name: "a task's question JSON cannot hold fails the asking handler; tasks/get answers and the server keeps serving",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: [script] });
    const params = { name: "ask_cyclic", arguments: {}, _meta: meta(true, { sampling: {} }) };
    const { taskId } = resultOf(await ask(server, "tools/call", params));
    const done = resultOf(await settled(server, taskId));
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result, { content: [{ type: "text", text: "could not ask: TypeError" }], isError: true });
    const slow = resultOf(await call(server, "slow", { ms: 1 }));
    assert.equal(resultOf(await settled(server, slow.taskId)).status, "completed");
    await server.closeInput();
    assert.equal((await server.status()).code, 0, server.stderr());
  },
});
