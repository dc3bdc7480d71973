import assert from "node:assert/strict";
import type { Outcome } from "./_call.ts";
import { type Task, TaskTable } from "./_tasks.ts";
import { addTool, schema, Server, text } from "../mod.ts";
import { ManualClock } from "../internal/manual_clock.ts";

const limits = { max: 4, maxBytes: 1_000_000, maxMessageBytes: 100_000, pollIntervalMs: 1_000, ttlMs: 5_000 };

function started(table: TaskTable, run: (task: Task) => Outcome | Promise<Outcome>): Task {
  const task = table.create(undefined, run);
  assert.ok("call" in task, "the task was created");
  return task;
}

Deno.test("a task asks for input: input_required with keyed requests, tasks/update answers, working again", async () => {
  const table = new TaskTable(limits, () => {});
  let answer: unknown;
  let answered!: () => void;
  const hasAnswer = new Promise<void>((r) => (answered = r));
  let release!: () => void;
  let outcome!: Promise<Outcome>;
  const task = started(table, (task) =>
    outcome = (async () => {
      answer = await table.ask(task, "elicitation/create", { mode: "form", message: "Overwrite?" });
      answered();
      await new Promise<void>((r) => (release = r));
      return { kind: "result", result: text("done") } as const;
    })());
  await Promise.resolve();
  assert.equal(task.status, "input_required");
  assert.deepEqual([...task.inputs].map(([key, p]) => [key, p.request]), [
    ["input-1", { method: "elicitation/create", params: { mode: "form", message: "Overwrite?" } }],
  ]);
  table.update(task, { "input-9": { action: "decline" } });
  assert.equal(task.status, "input_required", "a key that is not outstanding is ignored");
  table.update(task, { "input-1": { action: "accept", content: {} } });
  assert.equal(task.status, "working");
  await hasAnswer;
  assert.deepEqual(answer, { action: "accept", content: {} });
  table.update(task, { "input-1": { action: "decline" } });
  assert.deepEqual(answer, { action: "accept", content: {} }, "an answered key is never answered twice");
  release();
  // The table settled the task in a reaction it registered before this await's.
  await outcome;
  assert.equal(task.status, "completed");
  assert.equal(task.resultJson, '{"content":[{"type":"text","text":"done"}]}');
  table.dispose();
});

Deno.test("cancelling a task that waits for input rejects the question and fires the handler's signal", async () => {
  const table = new TaskTable(limits, () => {});
  let seen: unknown;
  let outcome!: Promise<Outcome>;
  const task = started(table, (task) =>
    outcome = table.ask(task, "roots/list", undefined).then(
      () => ({ kind: "result", result: text("answered") }),
      (err) => (seen = err, task.call.signal.aborted ? { kind: "none" } : { kind: "result", result: text("?") }),
    ));
  await Promise.resolve();
  table.cancel(task, "Cancelled by the client");
  await outcome;
  assert.equal(task.status, "cancelled");
  assert.equal(task.call.signal.aborted, true);
  assert.equal((seen as DOMException).name, "AbortError");
  assert.equal(task.inputs.size, 0);
  await assert.rejects(table.ask(task, "roots/list", undefined));
  table.dispose();
});

Deno.test("a running task is freed at its TTL, and its handler aborted with a TimeoutError in that same step", async () => {
  const clock = new ManualClock();
  const table = new TaskTable({ ...limits, ttlMs: 300 }, () => {}, clock);
  let seenAtAbort: unknown;
  let outcome!: Promise<Outcome>;
  const task = started(table, (task) =>
    outcome = new Promise((resolve) => {
      task.call.signal.addEventListener("abort", () => {
        seenAtAbort = table.lookup(task.id);
        resolve({ kind: "none" });
      });
    }));
  clock.advance(299);
  assert.deepEqual(table.lookup(task.id), { task: task }, "alive until its TTL");
  clock.advance(1);
  assert.deepEqual(seenAtAbort, { missing: "expired" }, "freed before its handler hears of it");
  assert.equal(task.call.cause, "timeout");
  assert.equal((task.call.signal.reason as DOMException).message, "Tool call timed out after 300 ms");
  assert.equal(task.status, "cancelled");
  assert.equal(task.statusMessage, "Task expired");
  await outcome;
  assert.deepEqual(table.lookup(task.id), { missing: "expired" });
  assert.equal(table.size, 0);
  table.dispose();
});

Deno.test("a finished task is kept until its TTL, then freed; an unknown id is not found", async () => {
  const clock = new ManualClock();
  const table = new TaskTable(limits, () => {}, clock);
  const first = started(table, () => ({ kind: "result", result: text("one") }));
  clock.advance(1_000);
  const second = table.create(60_000, () => Promise.resolve({ kind: "result", result: text("two") } as const));
  assert.ok("call" in second);
  await Promise.resolve();
  assert.equal(first.status, "completed");
  clock.advance(3_999);
  assert.deepEqual(table.lookup(first.id), { task: first });
  clock.advance(1);
  assert.deepEqual(table.lookup(first.id), { missing: "expired" });
  assert.deepEqual(table.lookup(second.id), { task: second }, "a task with its own TTL lives on");
  assert.equal(clock.pending, 1, "the timer is armed for the next TTL");
  assert.deepEqual(table.lookup("no-such-task"), { missing: "not found" });
  table.dispose();
  assert.equal(clock.pending, 0);
});

Deno.test("a full table refuses a new task until a TTL frees one; running tasks are never evicted", async () => {
  const clock = new ManualClock();
  const table = new TaskTable({ ...limits, max: 2 }, () => {}, clock);
  // Handlers that end when their signal fires, as a handler should: the TTL's abort ends the oldest.
  const ends: Promise<Outcome>[] = [];
  const endsOnAbort = (task: Task) => {
    const end = new Promise<Outcome>((resolve) =>
      task.call.signal.addEventListener("abort", () => resolve({ kind: "none" }))
    );
    ends.push(end);
    return end;
  };
  started(table, endsOnAbort);
  clock.advance(10);
  started(table, endsOnAbort);
  const refused = table.create(undefined, endsOnAbort);
  assert.ok(!("call" in refused));
  assert.equal(refused.message, "Server busy: 2 tasks held (maxTasks); retry later, or cancel a task");
  clock.advance(4_990);
  await ends[0];
  // The task's settlement and its release are reactions of that end: one turn of the event loop runs them.
  await new Promise((r) => setTimeout(r, 0));
  assert.ok("call" in table.create(undefined, endsOnAbort), "the oldest task's TTL made room");
  assert.equal(table.size, 2);
  table.dispose();
});

Deno.test("a cancelled task whose handler ignores its signal holds its place against maxTasks until the handler ends", async () => {
  const logged: string[] = [];
  const table = new TaskTable({ ...limits, max: 2 }, (line) => logged.push(line));
  const gates: PromiseWithResolvers<void>[] = [];
  const stubborn = (): Promise<Outcome> => {
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    return gate.promise.then(() => ({ kind: "result", result: text("late") }));
  };
  const [first, second] = [started(table, stubborn), started(table, stubborn)];
  table.cancel(first, "Cancelled by the client");
  table.cancel(second, "Cancelled by the client");
  assert.equal(first.status, "cancelled");
  // Both handlers still run: a third task would be the third handler at once (a red team ran 150 past maxTasks 64).
  const refused = table.create(undefined, stubborn);
  assert.ok(!("call" in refused), "a task was created while maxTasks handlers still ran");
  // The client and the log are told why the table is full though no task is listed.
  assert.equal(
    refused.message,
    "Server busy: 2 tasks held (maxTasks), 2 of them are handlers still running after their tasks were cancelled or " +
      "expired; retry later",
  );
  assert.ok(!("call" in table.create(undefined, stubborn)));
  assert.deepEqual(logged, [
    "busy: 2 of them are handlers still running after their tasks were cancelled or expired (a handler that ignores " +
    "its signal holds its place until it ends)",
  ], "said once while the count is the same");
  assert.equal(gates.length, 2, "the refused tasks never ran");
  gates[0].resolve();
  await gates[0].promise;
  await new Promise((r) => setTimeout(r, 0));
  const third = started(table, stubborn);
  assert.equal(gates.length, 3);
  for (const gate of gates) gate.resolve();
  table.cancel(third, "done");
  table.dispose();
});

Deno.test("tool registration refuses a task option that is not true, false or { ttlMs } with a whole positive ttlMs", () => {
  const server = new Server({ name: "t" });
  const tool = (task: unknown) => ({
    name: `t${String(Math.random()).slice(2)}`,
    description: "d",
    inputSchema: schema(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    task: task as never,
  });
  for (const bad of [null, "yes", { ttlMs: 0 }, { ttlMs: 1.5 }, { ttlMs: "60000" }]) {
    assert.throws(() => addTool(server, tool(bad), () => text("x")), /Cannot register tool "t\d+": task must be/);
  }
  for (const good of [true, false, {}, { ttlMs: 60_000 }]) addTool(server, tool(good), () => text("x"));
});

Deno.test("a table that has shut down creates no task: it answers shutting down and never runs the handler", async () => {
  const table = new TaskTable(limits, () => {});
  await table.shutdown();
  let ran = false;
  const refused = table.create(undefined, () => {
    ran = true;
    return { kind: "result", result: text("late") };
  });
  assert.deepEqual(refused, {
    code: -32603,
    message: "Server is shutting down",
    data: { reason: "shutting_down", retryable: false },
  });
  assert.equal(ran, false);
  assert.equal(table.size, 0);
  table.dispose();
});
