// How the handler of a task asks its client. A task cannot answer
// input_required (its call was answered with the task handle), so a question
// becomes one of the task's `inputRequests`: the client sees it on tasks/get
// and answers it with tasks/update, while the handler awaits. The request that
// created the task decides what may be asked, as for any 2026-07-28 call, and
// its protocol version which forms.

import { type Asker, type AskMethod, declares, missingCapability } from "./_asker.ts";
import type { Task, TaskTable } from "./_tasks.ts";

/** The asker of one task. */
export class TaskAsker implements Asker {
  // Answers arrive as inputResponses: a malformed one fails the task with -32602, as it would fail a call.
  readonly era = "stateless";
  readonly #table: TaskTable;
  readonly #task: Task;
  readonly #capabilities: Record<string, unknown>;
  /** The protocol version of the request that created the task. */
  readonly version: string | undefined;

  constructor(table: TaskTable, task: Task, capabilities: Record<string, unknown>, version?: string) {
    this.#table = table;
    this.#task = task;
    this.#capabilities = capabilities;
    this.version = version;
  }

  async ask(
    method: AskMethod,
    params: Record<string, unknown> | undefined,
    key?: string,
    ready?: Promise<unknown>,
  ): Promise<unknown> {
    if (!declares(this.#capabilities, method)) throw missingCapability(method);
    if (ready !== undefined) {
      // Its key is taken now, in the order the handler asked; a question that fails its check never becomes one of
      // the task's inputRequests.
      key ??= this.#table.inputKey(this.#task);
      await ready;
    }
    return this.#table.ask(this.#task, method, params, key);
  }
}
