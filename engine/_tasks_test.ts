import assert from "node:assert/strict";
import type { Outcome } from "./_call.ts";
import { type Task, TaskTable } from "./_tasks.ts";
import { addTool, schema, Server, text } from "../mod.ts";

const limits = { max: 4, maxBytes: 1_000_000, maxMessageBytes: 100_000, pollIntervalMs: 1_000, ttlMs: 5_000 };

function started(table: TaskTable, run: (task: Task) => Outcome | Promise<Outcome>): Task {
  const task = table.create(undefined, run);
  assert.ok("call" in task, "the task was created");
  return task;
}

Deno.test("a task asks for input: input_required with keyed requests, tasks/update answers, working again", async () => {
  const table = new TaskTable(limits, () => {});
  let answer: unknown;
  let release!: () => void;
  const task = started(table, async (task) => {
    answer = await table.ask(task, "elicitation/create", { mode: "form", message: "Overwrite?" });
    await new Promise<void>((r) => (release = r));
    return { kind: "result", result: text("done") };
  });
  await Promise.resolve();
  assert.equal(task.status, "input_required");
  assert.deepEqual([...task.inputs].map(([key, p]) => [key, p.request]), [
    ["input-1", { method: "elicitation/create", params: { mode: "form", message: "Overwrite?" } }],
  ]);
  table.update(task, { "input-9": { action: "decline" } });
  assert.equal(task.status, "input_required", "a key that is not outstanding is ignored");
  table.update(task, { "input-1": { action: "accept", content: {} } });
  assert.equal(task.status, "working");
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(answer, { action: "accept", content: {} });
  table.update(task, { "input-1": { action: "decline" } });
  assert.deepEqual(answer, { action: "accept", content: {} }, "an answered key is never answered twice");
  release();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(task.status, "completed");
  assert.equal(task.resultJson, '{"content":[{"type":"text","text":"done"}]}');
  table.dispose();
});

Deno.test("cancelling a task that waits for input rejects the question and fires the handler's signal", async () => {
  const table = new TaskTable(limits, () => {});
  let seen: unknown;
  const task = started(table, (task) =>
    table.ask(task, "roots/list", undefined).then(
      () => ({ kind: "result", result: text("answered") }),
      (err) => (seen = err, task.call.signal.aborted ? { kind: "none" } : { kind: "result", result: text("?") }),
    ));
  await Promise.resolve();
  table.cancel(task, "Cancelled by the client");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(task.status, "cancelled");
  assert.equal(task.call.signal.aborted, true);
  assert.equal((seen as DOMException).name, "AbortError");
  assert.equal(task.inputs.size, 0);
  await assert.rejects(table.ask(task, "roots/list", undefined));
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
