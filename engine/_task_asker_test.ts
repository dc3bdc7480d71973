import assert from "node:assert/strict";
import type { Outcome } from "./_call.ts";
import { TaskAsker } from "./_task_asker.ts";
import { type Task, TaskTable } from "./_tasks.ts";
import { MissingCapabilityError } from "../toolkit/missing_capability_error.ts";
import { text } from "../toolkit/result.ts";

const limits = { max: 4, maxBytes: 1_000_000, maxMessageBytes: 100_000, pollIntervalMs: 1_000, ttlMs: 5_000 };

/** A task whose handler waits until the test ends it. */
function waitingTask(table: TaskTable): { task: Task; end(): void } {
  const done = Promise.withResolvers<Outcome>();
  const task = table.create(undefined, () => done.promise);
  assert.ok("call" in task, "the task was created");
  return { task, end: () => done.resolve({ kind: "result", result: text("done") }) };
}

Deno.test("TaskAsker asks in the stateless way: the question becomes the task's input request, answered by tasks/update", async () => {
  const table = new TaskTable(limits, () => {});
  const { task, end } = waitingTask(table);
  const asker = new TaskAsker(table, task, { roots: {} });
  assert.equal(asker.era, "stateless");
  const answer = asker.ask("roots/list", undefined, "which-roots");
  assert.equal(task.status, "input_required");
  assert.deepEqual(task.inputs.get("which-roots")?.request, { method: "roots/list" });
  table.update(task, { "which-roots": { roots: [] } });
  assert.deepEqual(await answer, { roots: [] });
  end();
  table.dispose();
});

Deno.test("TaskAsker refuses a question the creating request's capabilities do not declare, and asks nothing", async () => {
  const table = new TaskTable(limits, () => {});
  const { task, end } = waitingTask(table);
  const asker = new TaskAsker(table, task, { elicitation: { url: {} } });
  await assert.rejects(asker.ask("sampling/createMessage", { messages: [] }), MissingCapabilityError);
  await assert.rejects(asker.ask("elicitation/create", { mode: "form", message: "m" }), MissingCapabilityError);
  assert.equal(task.inputs.size, 0);
  assert.notEqual(task.status, "input_required");
  end();
  table.dispose();
});
