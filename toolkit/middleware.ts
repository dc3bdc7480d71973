import type { Args } from "./args.ts";
import type { ToolResult } from "./result.ts";
import type { ClientInfo, Patterns, Tool } from "./tool.ts";

/** What a middleware knows about the call it wraps. */
export interface CallContext {
  /** The tool's definition (name, annotations, schemas). */
  readonly tool: Tool;
  /** The call's arguments. Do not log them raw: they may hold secrets or file contents. */
  readonly arguments: Args;
  /**
   * False when the arguments break the tool's `inputSchema`: the handler will
   * not run, and `next()` answers with an `isError` result naming the
   * problem. Costly work on the arguments (digesting them) can be skipped.
   */
  readonly argumentsValid: boolean;
  /** True when the call is a probe: `next()` returns the patterns and the handler does not run. */
  readonly probe: boolean;
  /** True for a tool registered with `registerPatternTool` (it has side effects). */
  readonly patternTool: boolean;
  /**
   * The call's permission patterns (pattern tools only). Undefined when they
   * could not be computed: `patterns()` refused the arguments (`next()` then
   * returns its `isError` result), or it threw otherwise, passed the call's
   * deadline or was cancelled (`next()` then rejects the same way).
   */
  readonly patterns: Patterns | undefined;
  /** Aborts on the deadline, on cancellation and on shutdown. */
  readonly signal: AbortSignal;
  /** The calling client. */
  readonly client: ClientInfo;
  /**
   * The JSON-RPC id of the call, the value its reply carries: a string, a
   * number, or, for a number JavaScript cannot hold exactly (above 2^53,
   * `1.5`, `-0`, `1e400`), an {@linkcode ExactId} that keeps the number as the
   * client wrote it (`JSON.stringify` writes it back byte for byte; never a
   * rounded number, nor a string that another call's id could equal).
   */
  readonly requestId: string | number | ExactId;
  /**
   * How the user answered the tool's confirmation (`registerPatternTool`'s
   * `confirm`), once `next()` settled: `accepted`, `declined`, `cancelled`, or
   * `unavailable` when the client cannot ask and the tool runs anyway;
   * `replayed` when a 2026-07-28 client sent back an acceptance already spent
   * on a run (the call is refused, nothing runs); undefined when no
   * confirmation was asked.
   */
  readonly confirmation: "accepted" | "declined" | "cancelled" | "unavailable" | "replayed" | undefined;
  /**
   * Once `next()` has settled: resolves when the tool's handler has ended, at
   * once when it never ran (a probe, invalid arguments, a refused
   * confirmation). `next()` settles on the deadline or a cancellation while a
   * handler that ignores its signal runs on; a middleware that counts running
   * handlers (a concurrency limit) gives its slot back here, as the engine
   * counts such a handler against `maxInFlight` until it ends.
   */
  untilHandlerEnds(): Promise<void>;
}

/**
 * A numeric request id JavaScript cannot hold exactly, as the client wrote it.
 * Inside `JSON.stringify` it is written as that number, byte for byte, as the
 * reply writes it; `text` (and `String(id)`) is its digits as sent. One object
 * per text while it is in use, so two calls under the same id see the same one.
 *
 * @example Write a call's id as its reply carries it, whatever its kind
 * ```ts
 * import type { Middleware } from "@forge/toolkit";
 *
 * const logIds: Middleware = (ctx, next) => {
 *   // 12345678901234567890 stays that number; the string "12345678901234567890" stays a string.
 *   console.error(JSON.stringify({ id: ctx.requestId }));
 *   return next();
 * };
 * ```
 */
export interface ExactId {
  /** The number as the client wrote it. */
  readonly text: string;
  /** Written by `JSON.stringify` as the number `text`, unquoted. */
  toJSON(): unknown;
  /** `text`. */
  toString(): string;
}

/**
 * Calls the rest of the chain and, at its end, the tool. It resolves with the
 * tool's result (a {@linkcode ToolError} thrown by the handler arrives here
 * already turned into an `isError` result) and rejects with a `DOMException`
 * named `TimeoutError` on the deadline, `AbortError` on cancellation or
 * shutdown, `InputRequiredError` when the call paused to ask its client
 * (2026-07-28: the client retries it as a new call with the answers), or the
 * handler's own exception for an infrastructure failure.
 */
export type Next = () => Promise<ToolResult>;

/**
 * Wraps every tool call. Middleware run in the order given to `run()`: the
 * first is outermost. One can return a result without calling `next()` (a
 * refusal), measure, log, or change the result. Errors it throws follow the
 * handler contract: a {@linkcode ToolError} becomes an `isError` result,
 * anything else a generic JSON-RPC error with the detail on stderr.
 *
 * @example Time every call
 * ```ts
 * import type { Middleware } from "@forge/toolkit";
 *
 * const timing: Middleware = async (ctx, next) => {
 *   const start = performance.now();
 *   try {
 *     return await next();
 *   } finally {
 *     console.error(`${ctx.tool.name}: ${(performance.now() - start).toFixed(1)} ms`);
 *   }
 * };
 * ```
 */
export type Middleware = ((ctx: CallContext, next: Next) => ToolResult | Promise<ToolResult>) & MiddlewareScope;

/**
 * What a middleware may say about the tools it wraps. A middleware whose
 * `appliesTo` returns false for a tool is left out of that tool's chain, so
 * it costs those calls nothing: with no middleware left, a plain tool keeps
 * the fast path. The answer is asked once per tool and kept.
 *
 * @example Count the calls of pattern tools (those with side effects) only
 * ```ts
 * import type { Middleware, Tool } from "@forge/toolkit";
 *
 * let calls = 0;
 * const count: Middleware = (_ctx, next) => {
 *   calls++;
 *   return next();
 * };
 * const scoped: Middleware = Object.assign(count, {
 *   appliesTo: (_tool: Tool, patternTool: boolean) => patternTool,
 * });
 * ```
 */
export interface MiddlewareScope {
  /**
   * Whether calls of `tool` go through this middleware.
   * @default {every tool}
   */
  readonly appliesTo?: (tool: Tool, patternTool: boolean) => boolean;
}
