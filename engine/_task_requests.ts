// The wire side of the tasks extension: who may get a task, the task handle a
// long-running tools/call answers with, and the three methods tasks/get,
// tasks/update and tasks/cancel. The extension exists in 2026-07-28 only
// (under the initialize era these methods are not found), and only a request
// that declares it in its own clientCapabilities may create or touch a task.

import { type Era, META_CAPABILITIES } from "./_era.ts";
import { ErrorCode, type RpcError } from "./jsonrpc.ts";
import { encodeErrorReply, encodeReply, type JsonParts, replyAfterId } from "./json_parts.ts";
import type { Id } from "./id.ts";
import type { Session } from "./_session.ts";
import { quote } from "../internal/quote.ts";
import type { Lookup, Task, TaskTable } from "./_tasks.ts";

/** The status message of a task its client cancelled. */
export const CANCELLED_BY_CLIENT = "Cancelled by the client";

/** The extension's identifier, in clientCapabilities.extensions and in server/discover. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The request methods the extension adds. */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

/** Whether a 2026-07-28 request's `_meta` declares the extension. */
export function declaresTasks(meta: Record<string, unknown>): boolean {
  const caps = meta[META_CAPABILITIES] as Record<string, unknown> | undefined;
  const extensions = caps?.extensions;
  if (extensions === null || typeof extensions !== "object" || Array.isArray(extensions)) return false;
  const declared = (extensions as Record<string, unknown>)[TASKS_EXTENSION];
  return declared !== null && typeof declared === "object" && !Array.isArray(declared);
}

/** The reply to a tools/call that became a task: the handle, or the refusal. */
export function createdReply(id: Id, created: Task | RpcError, table: TaskTable, session: Session): string | JsonParts {
  if (!("call" in created)) return encodeErrorReply(id, created);
  return encodeReply(id, { ...session.statelessResult(fields(created, table)), resultType: "task" });
}

/**
 * Answers tasks/get, tasks/update or tasks/cancel from a 2026-07-28 request.
 * `refuse` is asked, before a tasks/update delivers answers, whether what they
 * hold (kept by the task until its handler ends) is past the stream's bound:
 * it returns the refusal then, and nothing is delivered.
 */
export function answerTaskRequest(
  id: Id,
  method: string,
  params: Record<string, unknown> | undefined,
  meta: Record<string, unknown>,
  table: TaskTable | undefined,
  session: Session,
  refuse: (holds: number) => RpcError | undefined = () => undefined,
): string | JsonParts {
  if (!declaresTasks(meta)) return missingExtension(id, method);
  const taskId = params?.taskId;
  if (typeof taskId !== "string") return invalid(id, 'Invalid params: "taskId" must be a string');
  // No table yet: no task was ever created, so none can be found.
  const found: Lookup = table === undefined ? { missing: "not found" } : table.lookup(taskId);
  if (table === undefined || !("task" in found)) {
    const problem = "missing" in found && found.missing === "expired" ? "Task has expired" : "Task not found";
    return invalid(id, `Cannot ${VERB[method]} task: ${problem}`);
  }
  const task = found.task;
  if (method === "tasks/update") {
    const responses = params?.inputResponses;
    if (responses === null || typeof responses !== "object" || Array.isArray(responses)) {
      return invalid(id, 'Invalid params: "inputResponses" must be an object');
    }
    const answers = responses as Record<string, unknown>;
    const holds = table.answersCost(task, answers);
    const refused = holds > 0 ? refuse(holds) : undefined;
    if (refused !== undefined) return encodeErrorReply(id, refused);
    table.update(task, answers, holds);
  } else if (method === "tasks/cancel") {
    table.cancel(task, CANCELLED_BY_CLIENT);
  } else {
    return detailed(id, task, table, session);
  }
  return encodeReply(id, session.statelessResult({}));
}

/**
 * The refusal of a `subscriptions/listen` that asks for task status
 * notifications without declaring the extension; undefined when there is
 * nothing to refuse. (A declaring client is acknowledged with no task ids:
 * this server sends no task notifications, clients poll.)
 */
export function taskSubscriptionRefusal(
  id: Id,
  params: Record<string, unknown> | undefined,
  meta: Record<string, unknown>,
): string | JsonParts | undefined {
  const notifications = params?.notifications as Record<string, unknown> | undefined;
  if (notifications?.taskIds === undefined || declaresTasks(meta)) return undefined;
  return missingExtension(id, "subscriptions/listen for taskIds");
}

/**
 * The answer to a call of a tool that runs only as a task, from a request that
 * cannot have one: `-32021` naming the extension in 2026-07-28; in the
 * initialize era, where the extension is not defined, an `isError` result.
 */
export function taskRequired(id: Id, tool: string, era: Era): string | JsonParts {
  if (era === "stateless") return missingExtension(id, `tool ${quote(tool)} runs only as a task and`);
  return encodeReply(id, {
    content: [{
      type: "text",
      text: `Cannot run tool ${quote(tool)}: it runs only as a task, which needs ${STATELESS_TASKS}`,
    }],
    isError: true,
  });
}

const STATELESS_TASKS = `the ${TASKS_EXTENSION} extension of protocol version 2026-07-28`;

function missingExtension(id: Id, what: string): string | JsonParts {
  return encodeErrorReply(id, {
    code: ErrorCode.missingRequiredClientCapability,
    message: `Missing required client capability: ${what} needs the extension ${TASKS_EXTENSION}`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  });
}

const VERB: Record<string, string> = { "tasks/get": "retrieve", "tasks/update": "update", "tasks/cancel": "cancel" };

function invalid(id: Id, message: string): string | JsonParts {
  return encodeErrorReply(id, { code: ErrorCode.invalidParams, message });
}

/** The fields every view of a task carries. */
function fields(task: Task, table: TaskTable): Record<string, unknown> {
  const view: Record<string, unknown> = {
    taskId: task.id,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: table.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) view.statusMessage = task.statusMessage;
  return view;
}

/** tasks/get: the task with what its status carries; a result is spliced in as the text it is held as. */
function detailed(id: Id, task: Task, table: TaskTable, session: Session): string | JsonParts {
  const view = session.statelessResult(fields(task, table));
  if (task.status === "input_required") {
    view.inputRequests = Object.fromEntries([...task.inputs].map(([key, pending]) => [key, pending.request]));
  } else if (task.status === "failed") {
    view.error = task.error;
  }
  const text = JSON.stringify(view);
  table.markSeen(task);
  if (task.status !== "completed" || task.resultJson === undefined) return replyAfterId(id, `,"result":${text}}`);
  // The result member goes before the view's closing brace; a long id is written as a large string is.
  return replyAfterId(id, `,"result":${text.slice(0, -1)},"result":${task.resultJson}}}`);
}
