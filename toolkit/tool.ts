import type { Args } from "./args.ts";
import type { AskOptions, ClientRoot, ElicitAnswer, ElicitForm, SampleAnswer, SampleRequest } from "./client_input.ts";
import type { ToolResult } from "./result.ts";
import type { ObjectSchema } from "./schema.ts";

/**
 * What a tool does to the world, as MCP's tool annotations. Clients treat an
 * unannotated tool as destructive and open-world, so the toolkit makes every
 * author state all four.
 */
export interface ToolAnnotations {
  /** The tool changes nothing. Never true for a pattern tool. */
  readOnlyHint: boolean;
  /** A change may destroy or overwrite data (meaningful when not read-only). */
  destructiveHint: boolean;
  /** Calling twice with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** The tool reaches outside the server (network, other systems). */
  openWorldHint: boolean;
  /** A display title; prefer {@linkcode Tool.title}. */
  title?: string;
}

/**
 * A tool definition: the `{name, description, inputSchema}` every MCP tool
 * has, plus what the MCP spec lets authors state (a title, an output schema,
 * annotations) and the toolkit's per-tool deadline.
 *
 * @typeParam A The arguments' type, as `schema()` infers it from the property helpers.
 */
export interface Tool<A = Args> {
  /** 1–128 characters of `A-Z a-z 0-9 _ - .`, with no server prefix. */
  name: string;
  /** A short human-readable name. */
  title?: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * JSON Schema 2020-12 of the arguments, built with {@linkcode schema}.
   * Every call is validated against it before the handler runs.
   */
  inputSchema: ObjectSchema<A>;
  /** JSON Schema of `structuredContent`; results are validated against it before they are sent. */
  outputSchema?: ObjectSchema;
  /** All four hints, stated explicitly. */
  annotations: ToolAnnotations;
  /**
   * Per-call deadline in milliseconds; the server's default when absent. Not
   * sent to clients. It runs from when the call first waits (its handler
   * returns a promise): synchronous code cannot be interrupted, so a handler
   * that answers without waiting has no deadline to meet. A call that runs as
   * a task has its TTL as deadline instead.
   */
  timeoutMs?: number;
  /**
   * The most bytes one reply of this tool can take once encoded, or a
   * function that says so at each call (so a config reload can change it),
   * given the call's arguments as sent: read before they are checked against
   * `inputSchema`, so read them defensively (a value of the wrong type should
   * give the worst case; the call is refused before it runs anyway).
   * From a call's start until its reply is handed to the writer (or dropped),
   * the server counts it with what the call's request holds against
   * `maxInFlightBytes`: a call that would join others past that bound is
   * refused as busy, so calls of a tool with large replies cannot together
   * build more than the bound (the writer's `maxQueuedBytes` bounds them
   * after). One call alone is never refused. Without it, a reply is not
   * counted until it is queued: the calls in flight together are bounded only
   * by `maxInFlight` times the largest reply. Not sent to clients.
   *
   * @example A reply bounded by a setting that can change
   * ```ts
   * import type { Tool } from "@forge/toolkit";
   * import { schema } from "@forge/toolkit";
   *
   * const settings = { maxBytes: 1024 * 1024 };
   * const tool: Tool = {
   *   name: "read",
   *   description: "Reads a file",
   *   inputSchema: schema(),
   *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
   *   // JSON writes a control character in six bytes; 1 KiB for the envelope.
   *   maxResultBytes: () => settings.maxBytes * 6 + 1024,
   * };
   * ```
   */
  maxResultBytes?: number | ((args: Record<string, unknown>) => number);
  /**
   * Whether `format` in `inputSchema` and `outputSchema` is checked for the
   * common formats (`date-time`, `date`, `time`, `duration`, `email`,
   * `hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `uuid`,
   * `json-pointer`, `relative-json-pointer`, `regex`). By default `format` is
   * an annotation, as JSON Schema 2020-12 says. Not sent to clients.
   * @default {false}
   */
  assertFormats?: boolean;
  /**
   * Marks a long-running tool. A 2026-07-28 client that declares the tasks
   * extension (`io.modelcontextprotocol/tasks`) gets a task handle at once and
   * polls for the result while the handler runs; any other client's call runs
   * as usual. `true` takes the server's `taskTtlMs`. Not sent to clients.
   */
  task?: boolean | TaskOptions;
  /** Extra metadata sent with the definition. */
  _meta?: Record<string, unknown>;
}

/**
 * How a long-running tool runs when it runs as a task.
 *
 * @example A report that may take minutes
 * ```ts
 * import { addTool, schema, Server, text } from "@forge/toolkit";
 *
 * const server = new Server({ name: "reports" });
 * addTool(server, {
 *   name: "build_report",
 *   description: "Builds the monthly report",
 *   inputSchema: schema(),
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 *   task: { ttlMs: 30 * 60_000 },
 * }, async (req) => {
 *   await new Promise((resolve) => setTimeout(resolve, 10));
 *   return text(req.signal.aborted ? "stopped" : "report ready");
 * });
 * ```
 */
export interface TaskOptions {
  /**
   * How long the task lives, from its creation, in milliseconds. It bounds the
   * whole task: the handler's signal fires when it passes, and the result can
   * be fetched until then. Choose it well above the work's longest time plus
   * the client's poll interval.
   * @default {the server's taskTtlMs}
   */
  ttlMs?: number;
  /**
   * The tool runs only as a task: a call from a request that does not declare
   * the tasks extension is refused (`-32021` naming the extension in
   * 2026-07-28; an `isError` result in the initialize era, where tasks are not
   * defined), and the handler does not run.
   * @default {false}
   */
  required?: boolean;
  /**
   * The handler asks before it works: a call that may become a task first
   * runs as an ordinary call, so the questions the handler asks first reach
   * the client as an `input_required` result, and the task is created when the
   * client retries with the answers. The handler then runs again from the
   * start inside the task, where those questions resolve at once; what it asks
   * later becomes the task's `inputRequests`. A handler that asks nothing
   * answers at once, with no task.
   * @default {false}
   */
  askFirst?: boolean;
}

/** Who is calling, as far as the client said. */
export interface ClientInfo {
  /** The client's declared name (`""` when it did not say). */
  name: string;
  /** The client's declared version (`""` when it did not say). */
  version: string;
  /** The protocol version this request is served under. */
  protocolVersion: string;
}

/**
 * One tool call as the handler sees it.
 *
 * @typeParam A The arguments' type.
 */
export interface ToolRequest<A = Args> {
  /** The tool's name. */
  readonly name: string;
  /**
   * The arguments, always an object, already validated against the tool's
   * `inputSchema` (so typed by it). The argument helpers read them too.
   */
  readonly arguments: A;
  /** Aborts on the call's deadline, on client cancellation and on shutdown. */
  readonly signal: AbortSignal;
  /** The request's `_meta`, as sent. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The calling client. */
  readonly client: ClientInfo;
  /**
   * How the user answered this call's confirmation (`registerPatternTool`'s
   * `confirm`): `"accepted"`, or `"unavailable"` when the client cannot ask
   * and the tool runs anyway; undefined when nothing was asked (the tool asks
   * nothing, or its `confirm` function gave no question for these arguments).
   * A handler whose question depends on the state it is about to change uses
   * it to act only on what was confirmed: a write asked nothing because the
   * file did not exist creates it without replacing one that appeared since.
   *
   * @example Create only when no replacement was confirmed
   * ```ts
   * import { text, type ToolHandler } from "@forge/toolkit";
   *
   * const handler: ToolHandler = (req) =>
   *   text(req.confirmation === undefined ? "create a new file only" : "replace the file");
   * ```
   */
  readonly confirmation?: "accepted" | "unavailable";
  /**
   * A pattern tool's permission patterns for this call, worked out from its
   * arguments just before the handler runs: those the host approved it under
   * and the audit trail wrote as its intent. Undefined for a tool without
   * patterns. A handler whose effect depends on state that may change in
   * between (a database schema, a file that appears) uses them to do only
   * what they name, and refuses the rest.
   *
   * @example Act only within the patterns
   * ```ts
   * import { type ToolHandler, ToolError, text } from "@forge/toolkit";
   *
   * const handler: ToolHandler = (req) => {
   *   const needed = ["sql:delete:customers", "sql:delete:orders"];
   *   const missing = needed.filter((pattern) => !(req.patterns ?? []).includes(pattern));
   *   if (missing.length > 0) throw new ToolError(`Cannot delete: ${missing.join(", ")} not approved`);
   *   return text("deleted");
   * };
   * ```
   */
  readonly patterns?: readonly string[];
  /**
   * Reports progress when the client asked for it (sent a `progressToken`);
   * otherwise does nothing.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Asks the user a question through the client (`elicitation/create`, form
   * mode) and resolves with the answer, whose `content` is checked against the
   * form's schema. Works in both protocol eras: in the initialize era the
   * request goes to the client and is awaited within the call's deadline; in
   * 2026-07-28 the call answers `input_required` and the handler runs again,
   * from the start, when the client retries with the answer. So code before a
   * question must be safe to run more than once (ask first, act after).
   *
   * `options.key` names the question ({@linkcode AskOptions}).
   *
   * @throws {MissingCapabilityError} When the client did not declare elicitation.
   * @throws {TypeError} When the form or `options.key` is malformed, or the key was already used in this call.
   *
   * @example Ask before overwriting
   * ```ts
   * import { boolProp, schema, text, type ToolHandler } from "@forge/toolkit";
   *
   * const handler: ToolHandler = async (req) => {
   *   const answer = await req.elicit({
   *     message: "Overwrite notes/todo.md?",
   *     requestedSchema: schema({ overwrite: boolProp("Replace the file") }, ["overwrite"]),
   *   });
   *   if (answer.action !== "accept" || !answer.content.overwrite) return text("left as it was");
   *   return text("overwritten");
   * };
   * ```
   */
  elicit<T>(form: ElicitForm<T>, options?: AskOptions): Promise<ElicitAnswer<T>>;
  /**
   * The roots the client declares (`roots/list`), as it sent them. In the
   * initialize era they are asked once and kept until the client sends
   * `notifications/roots/list_changed`; in 2026-07-28 every call asks (one
   * more round).
   *
   * @throws {MissingCapabilityError} When the client did not declare roots.
   *
   * @example List the client's roots
   * ```ts
   * import { json, type ToolHandler } from "@forge/toolkit";
   *
   * const handler: ToolHandler = async (req) => json({ roots: (await req.listRoots()).map((r) => r.uri) });
   * ```
   */
  listRoots(options?: AskOptions): Promise<ClientRoot[]>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`).
   *
   * @throws {MissingCapabilityError} When the client did not declare sampling.
   *
   * @example Summarise with the client's model
   * ```ts
   * import { text, type ToolHandler } from "@forge/toolkit";
   *
   * const handler: ToolHandler = async (req) => {
   *   const answer = await req.sample({
   *     messages: [{ role: "user", content: { type: "text", text: "Summarise: ..." } }],
   *     maxTokens: 200,
   *   });
   *   return text(String((answer.content as { text?: string }).text ?? ""));
   * };
   * ```
   */
  sample(request: SampleRequest, options?: AskOptions): Promise<SampleAnswer>;
}

/**
 * A tool's handler: request in, result out. Throw {@linkcode ToolError} for domain errors.
 *
 * @typeParam A The arguments' type.
 */
export type ToolHandler<A = Args> = (request: ToolRequest<A>) => ToolResult | Promise<ToolResult>;

/** The permission patterns of one call of a pattern tool. */
export interface Patterns {
  /** What this call would do, e.g. `write:notes/todo.md`. */
  patterns: string[];
  /** Patterns the host may approve once for good. */
  always?: string[];
}

/**
 * Computes a call's permission patterns from its (validated) arguments, without side effects.
 * It is bounded like the handler: the call's deadline and a cancellation
 * answer the call without waiting for it, and `signal` fires then, so that a
 * pattern function that does I/O (a database compiling a statement) can stop
 * its work. The toolkit always gives `signal`; it is optional so that a test
 * can call a pattern function with the arguments alone.
 *
 * @typeParam A The arguments' type.
 */
export type PatternFn<A = Args> = (args: A, signal?: AbortSignal) => Patterns | Promise<Patterns>;
