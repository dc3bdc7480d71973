// test-permissions: --allow-run --allow-env --allow-read={repo}
// Two task markings of the tasks extension, over a real server subprocess: a
// tool that runs only as a task (`task: {required: true}`) is refused, without
// running, to a request that cannot have a task; a tool that asks first
// (`task: {askFirst: true}`) puts its first questions as input_required before
// the task exists and creates the task on the retry that answers them. The
// start of a task that is asynchronous (the stream's first task, while the
// tasks code loads; an ask-first retry, while its state is checked) is a call
// in flight like any other: its id is taken, a cancel reaches it, a drain
// answers it.
import assert from "node:assert/strict";
import { type RawServer, spawnRaw } from "@forge/toolkit/testing";
import { initialize } from "./testdata/raw_initialize.ts";

const script = new URL("./testdata/task_server.ts", import.meta.url).pathname;
type Json = Record<string, unknown>;
const TASKS = "io.modelcontextprotocol/tasks";
let nextId = 0;

function meta(capabilities: Json): Json {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

async function ask(server: RawServer, method: string, params: Json, capabilities?: Json): Promise<Json> {
  const id = ++nextId;
  const withMeta = capabilities === undefined ? params : { ...params, _meta: meta(capabilities) };
  await server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: withMeta }));
  for (;;) {
    const msg = await server.next();
    if (msg.id === id) return msg;
  }
}

const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };
const ACCEPT = (name: string) => ({ action: "accept", content: { name } });

/**
 * Polls tasks/get until the task has ended. Between two polls it waits for
 * the next handler to end (`ENDED` on stderr): the task's own handler says so
 * after the poll that found it running, so each wait ends.
 */
async function ended(server: RawServer, taskId: unknown): Promise<Json> {
  for (let seen = server.stderr().split("ENDED ").length - 1;; seen++) {
    const task = (await ask(server, "tasks/get", { taskId }, WITH_TASKS)).result as Json;
    if (task.status !== "working" && task.status !== "input_required") return task;
    await server.waitForStderr("ENDED ", seen + 1);
  }
}

Deno.test("a task-only tool is -32021 naming the tasks extension without it, an isError result in the initialize era, and never runs", async () => {
  const server = await spawnRaw({ args: [script] });
  const refused = await ask(server, "tools/call", { name: "only_task", arguments: {} }, {});
  const error = refused.error as { code: number; message: string; data: unknown };
  assert.equal(error.code, -32021);
  assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
  assert.match(error.message, /tool "only_task" runs only as a task/);
  await initialize(server);
  const session = (await ask(server, "tools/call", { name: "only_task", arguments: {} })).result as Json;
  assert.equal(session.isError, true);
  assert.match(JSON.stringify(session.content), /runs only as a task/);
  // With the extension it becomes a task, and only then does the handler run.
  const created = (await ask(server, "tools/call", { name: "only_task", arguments: {} }, WITH_TASKS)).result as Json;
  assert.equal(created.resultType, "task");
  const done = await ended(server, created.taskId);
  assert.equal(done.status, "completed");
  assert.deepEqual((done.result as Json).content, [{ type: "text", text: "done as a task" }]);
  await server.closeInput();
  await server.status();
  assert.equal(server.stderr().match(/RAN only_task/g)?.length, 1);
});

Deno.test("an ask-first task tool asks through input_required before the task exists; the answering retry creates the task, which ends with the answer", async () => {
  const server = await spawnRaw({ args: [script] });
  const first = (await ask(server, "tools/call", { name: "ask_then_task", arguments: {} }, WITH_TASKS)).result as Json;
  assert.equal(first.resultType, "input_required");
  assert.equal(first.taskId, undefined);
  assert.deepEqual(Object.keys(first.inputRequests as Json), ["user_name"]);
  const created = (await ask(server, "tools/call", {
    name: "ask_then_task",
    arguments: {},
    inputResponses: { user_name: ACCEPT("Alice") },
    requestState: first.requestState,
  }, WITH_TASKS)).result as Json;
  assert.equal(created.resultType, "task");
  assert.equal(created.requestState, undefined);
  assert.equal(created.inputRequests, undefined);
  // The question asked inside the task is the task's input, under its own key.
  // The handler asks its second question in the turn it prints this line.
  await server.waitForStderr("ASKED-FIRST answered");
  const waiting = (await ask(server, "tasks/get", { taskId: created.taskId }, WITH_TASKS)).result as Json;
  assert.equal(waiting.status, "input_required");
  assert.deepEqual(Object.keys(waiting.inputRequests as Json), ["nickname"]);
  await ask(server, "tasks/update", { taskId: created.taskId, inputResponses: { nickname: ACCEPT("Al") } }, WITH_TASKS);
  const done = await ended(server, created.taskId);
  assert.equal(done.status, "completed");
  assert.deepEqual((done.result as Json).content, [{ type: "text", text: "Hello, Alice (Al)!" }]);
  await server.closeInput();
  await server.status();
});

Deno.test("an ask-first retry whose requestState was altered is -32602 and creates no task", async () => {
  const server = await spawnRaw({ args: [script] });
  const first = (await ask(server, "tools/call", { name: "ask_then_task", arguments: {} }, WITH_TASKS)).result as Json;
  const state = String(first.requestState);
  // The character before the last is all data (the last may carry only padding bits): another one there alters it.
  // (Chosen by the last character, it was left as it was once in some 64 runs, and the retry then went through.)
  const altered = state.slice(0, -2) + (state.at(-2) === "A" ? "B" : "A") + state.slice(-1);
  assert.notEqual(altered, state);
  const refused = await ask(server, "tools/call", {
    name: "ask_then_task",
    arguments: {},
    inputResponses: { user_name: ACCEPT("Mallory") },
    requestState: altered,
  }, WITH_TASKS);
  assert.equal((refused.error as { code: number }).code, -32602);
  await server.closeInput();
  await server.status();
  assert.doesNotMatch(server.stderr(), /ASKED-FIRST answered/);
});

/** One write holding every message: the server reads them in one turn. */
function together(...messages: Json[]): string {
  return messages.map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })).join("\n");
}

/** Every message the server writes until it exits. */
async function rest(server: RawServer): Promise<Json[]> {
  await server.closeInput();
  await server.status();
  const out: Json[] = [];
  for (;;) {
    try {
      out.push(await server.next(1));
    } catch {
      return out;
    }
  }
}

Deno.test("a stream's first task takes its id while the tasks code loads: a second request under it is -32600, and one handler runs", async () => {
  const server = await spawnRaw({ args: [script] });
  const call = {
    id: "d",
    method: "tools/call",
    params: { name: "slow", arguments: { ms: 1 }, _meta: meta(WITH_TASKS) },
  };
  await server.send(together(call, call));
  const replies = [await server.next(), await server.next()];
  const created = replies.find((r) => (r.result as Json | undefined)?.resultType === "task");
  const refused = replies.find((r) => r.error !== undefined);
  assert.ok(created !== undefined && refused !== undefined, JSON.stringify(replies));
  assert.equal((refused.error as { code: number }).code, -32600);
  assert.match((refused.error as { message: string }).message, /already used by a request in flight/);
  assert.equal((await ended(server, (created.result as Json).taskId)).status, "completed");
  assert.deepEqual(await rest(server), []);
  assert.equal(server.stderr().match(/ENDED slow/g)?.length, 1);
});

Deno.test("an ask-first retry takes its id while its state is checked: a second request under it is -32600, one task is made", async () => {
  const server = await spawnRaw({ args: [script] });
  const first = (await ask(server, "tools/call", { name: "ask_then_task", arguments: {} }, WITH_TASKS)).result as Json;
  const params = {
    name: "ask_then_task",
    arguments: {},
    inputResponses: { user_name: ACCEPT("Alice") },
    requestState: first.requestState,
    _meta: meta(WITH_TASKS),
  };
  await server.send(together({ id: "r", method: "tools/call", params }, { id: "r", method: "tools/call", params }));
  const replies = [await server.next(), await server.next()];
  assert.deepEqual(
    replies.map((r) => r.error === undefined ? (r.result as Json).resultType : (r.error as Json).code).sort(),
    [
      -32600,
      "task",
    ],
  );
  await server.waitForStderr("ASKED-FIRST answered");
  await rest(server);
  assert.equal(server.stderr().match(/ASKED-FIRST answered/g)?.length, 1);
});

Deno.test("an ask-first retry cancelled while its state is checked is answered with nothing and never creates its task", async () => {
  const server = await spawnRaw({ args: [script] });
  const first = (await ask(server, "tools/call", { name: "ask_then_task", arguments: {} }, WITH_TASKS)).result as Json;
  const params = (name: string) => ({
    name: "ask_then_task",
    arguments: {},
    inputResponses: { user_name: ACCEPT(name) },
    requestState: first.requestState,
    _meta: meta(WITH_TASKS),
  });
  await server.send(together(
    { id: "cancelled", method: "tools/call", params: params("Mallory") },
    { method: "notifications/cancelled", params: { requestId: "cancelled" } },
    { id: "kept", method: "tools/call", params: params("Alice") },
  ));
  // The kept retry's task goes through its second question to its end: the cancelled one's state check, started
  // first, has long settled by then.
  const kept = await server.next();
  assert.equal(kept.id, "kept", JSON.stringify(kept));
  const taskId = (kept.result as Json).taskId;
  await server.waitForStderr("ASKED-FIRST answered");
  await ask(server, "tasks/update", { taskId, inputResponses: { nickname: ACCEPT("Al") } }, WITH_TASKS);
  const done = await ended(server, taskId);
  assert.deepEqual((done.result as Json).content, [{ type: "text", text: "Hello, Alice (Al)!" }]);
  assert.deepEqual((await rest(server)).filter((m) => m.id === "cancelled"), []);
  assert.equal(server.stderr().match(/ASKED-FIRST answered/g)?.length, 1, server.stderr());
});

Deno.test("an ask-first retry whose input ends while its state is checked is still answered: a task the drain cancels, or shutting down", async () => {
  const server = await spawnRaw({ args: [script] });
  const first = (await ask(server, "tools/call", { name: "ask_then_task", arguments: {} }, WITH_TASKS)).result as Json;
  await server.send(together({
    id: "last",
    method: "tools/call",
    params: {
      name: "ask_then_task",
      arguments: {},
      inputResponses: { user_name: ACCEPT("Alice") },
      requestState: first.requestState,
      _meta: meta(WITH_TASKS),
    },
  }));
  const replies = await rest(server);
  assert.equal(replies.length, 1, JSON.stringify(replies));
  const reply = replies[0];
  assert.equal(reply.id, "last");
  // Either answer keeps the request: a task the drain cancels, or a refusal that says the server is going away.
  if (reply.error !== undefined) {
    assert.deepEqual((reply.error as Json).data, { reason: "shutting_down", retryable: false });
  } else {
    assert.equal((reply.result as Json).resultType, "task");
  }
});
