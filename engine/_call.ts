// One tools/call from arguments to outcome: patterns, the probe short-cut,
// the middleware chain, the handler, and the checks on what it returned.
// It never throws: every failure becomes either a tool result (a domain
// error the model can fix) or a JSON-RPC error (everything else).

import { jsonForm } from "./_json_form.ts";
import { type Asker, asProtocolError, protocolErrorOf, questionsOf } from "./_asker.ts";
import type { Call } from "./_calls.ts";
import { type Confirmation, confirmCall } from "./_confirm.ts";
import type { InputRequired } from "./_input_rounds.ts";
import { ErrorCode, type RpcError } from "./jsonrpc.ts";
import { type Id, idForLog } from "./id.ts";
import type { Entry } from "../toolkit/registry.ts";
import type { Args } from "../toolkit/args.ts";
import type { CallContext, Middleware } from "../toolkit/middleware.ts";
import { checkPatterns, PROBE_META_KEY, probeResult } from "./probe.ts";
import { error, type ToolResult } from "../toolkit/result.ts";
import type { ClientInfo, Patterns, ToolRequest } from "../toolkit/tool.ts";
import { ToolError } from "../internal/tool_error.ts";
import { questionFailure } from "./_uncaught_questions.ts";
import { endOf, HANDLER_END, type HandlerEnd, type HandlerEndOffer } from "../internal/handler_end.ts";

/** What the dispatcher needs to run one call. */
export interface CallInput {
  entry: Entry;
  args: Args;
  meta: Record<string, unknown>;
  /** The request id as its reply carries it, which middleware see (an exact number as such, never its text). */
  id: Id;
  /** The client the call was sent by, as the handler and the middleware see it: one object per call. */
  client: ClientInfo;
  call: Call;
  middleware: readonly Middleware[];
  progress: ToolRequest["progress"];
  log: (line: string) => void;
  /** What makes the call's asker, at the handler's first question. */
  origin: CallOrigin;
  /**
   * How the handler's questions reach the client: given, or made by
   * `origin` at the first question (most calls ask nothing) and kept here.
   */
  asker?: Asker;
}

/**
 * What a stream lends each of its calls on demand: one object per stream,
 * shared by its calls, so that a call whose handler asks no question (most)
 * costs nothing for it, where each call used to make a closure for its asker
 * (docs/benchmarks.md, "The hot path against the floor", item 10).
 */
export interface CallOrigin {
  /** How the call asks its client questions. */
  asker(input: CallInput): Asker;
}

/** A call's outcome: a result to send, a JSON-RPC error, or silence (cancelled). */
export type Outcome =
  | { kind: "result"; result: ToolResult }
  | { kind: "input_required"; input: InputRequired }
  | { kind: "error"; error: RpcError }
  | { kind: "none" };

/**
 * Runs one call to its outcome. A plain tool (no middleware, no patterns, not
 * a probe) skips the general chain: a handler that returns without a promise
 * is answered in the same turn, and a promise is raced once against the
 * call's abort, because the general path's promise chain is most of such a
 * call's cost (docs/benchmarks.md, "The hot path"). Middleware, patterns and probes go through
 * {@linkcode runCallAsync}; the outcomes are the same either way.
 */
export function runCall(input: CallInput): Outcome | Promise<Outcome> {
  const { entry } = input;
  // The input is passed on as it is (a copy would lose what a class instance keeps in its prototype and fields).
  const chain = input.middleware.length > 0 ? chainFor(input.middleware, entry) : input.middleware;
  if (chain.length > 0 || entry.patterns || input.meta[PROBE_META_KEY] === true) return runCallAsync(input, chain);
  const invalid = entry.validate(input.args);
  if (invalid !== undefined) return { kind: "result", result: error(invalid) };
  let value: ToolResult | Promise<ToolResult>;
  let pending: boolean;
  try {
    value = entry.handler(requestOf(input));
    // Inside the try: a `then` getter can throw too.
    pending = isThenable(value);
  } catch (err) {
    if (isDomainError(err)) return { kind: "result", result: error(err.message) };
    return failure(input, err);
  }
  if (!pending) return resultOutcome(input, value as ToolResult);
  return input.call.race(value as Promise<ToolResult>).then(
    (result) => resultOutcome(input, result),
    (err) =>
      input.call.cause === undefined && isDomainError(err)
        ? { kind: "result", result: error(err.message) }
        : failure(input, err),
  );
}

const chains = new WeakMap<readonly Middleware[], WeakMap<Entry, readonly Middleware[]>>();

/** The middleware that apply to a tool, in order: asked once per list and tool, then kept. */
function chainFor(list: readonly Middleware[], entry: Entry): readonly Middleware[] {
  let byEntry = chains.get(list);
  if (byEntry === undefined) chains.set(list, byEntry = new WeakMap());
  let chain = byEntry.get(entry);
  if (chain === undefined) {
    const patternTool = entry.patterns !== undefined;
    const kept = list.filter((mw) => mw.appliesTo?.(entry.tool, patternTool) ?? true);
    chain = kept.length === list.length ? list : kept;
    byEntry.set(entry, chain);
  }
  return chain;
}

function resultOutcome(input: CallInput, result: ToolResult): Outcome {
  try {
    return { kind: "result", result: checkResult(input.entry, result) };
  } catch (err) {
    return failure(input, err);
  }
}

function isThenable(value: unknown): value is Promise<ToolResult> {
  return typeof (value as Promise<unknown> | null)?.then === "function";
}

/** The call's asker, made at its first use. */
function askerOf(input: CallInput): Asker {
  return input.asker ??= input.origin.asker(input);
}

function requestOf(
  input: CallInput,
  confirmation?: "accepted" | "unavailable",
  patterns?: readonly string[],
): ToolRequest {
  return new CallRequest(input, confirmation, patterns);
}

/**
 * What a handler gets. Its signal, and so the call's AbortController, is made
 * only when the handler reads it (a getter on the class: a getter in an object
 * literal costs more than the controller). The question methods are closures,
 * so that they still work taken off the request.
 */
class CallRequest implements ToolRequest {
  readonly name: string;
  readonly arguments: Args;
  readonly meta: Record<string, unknown>;
  readonly client: ClientInfo;
  readonly confirmation: "accepted" | "unavailable" | undefined;
  readonly patterns: readonly string[] | undefined;
  readonly progress: ToolRequest["progress"];
  readonly #input: CallInput;
  // The keys this run of the handler named: a name is used once per call. Most calls ask nothing.
  #named: Set<string> | undefined;

  constructor(
    input: CallInput,
    confirmation: "accepted" | "unavailable" | undefined,
    patterns: readonly string[] | undefined,
  ) {
    this.name = input.entry.tool.name;
    this.arguments = input.args;
    this.meta = input.meta;
    this.client = input.client;
    this.confirmation = confirmation;
    this.patterns = patterns;
    this.progress = input.progress;
    this.#input = input;
  }

  get signal(): AbortSignal {
    return this.#input.call.signal;
  }

  elicit: ToolRequest["elicit"] = (form, options) => this.#watched(this.#questions().elicit(form, options));
  listRoots: ToolRequest["listRoots"] = (options) => this.#watched(this.#questions().listRoots(options));
  sample: ToolRequest["sample"] = (request, options) => this.#watched(this.#questions().sample(request, options));

  #questions(): ReturnType<typeof questionsOf> {
    return questionsOf(askerOf(this.#input), this.#named ??= new Set());
  }

  /**
   * `asked`, whose failure, if the handler leaves it uncaught (it dropped the
   * promise), is said on stderr instead of ending the process: the client
   * decides most of them (an error or malformed answer, a cancellation, its
   * input's end), and would end the server for every call.
   */
  #watched<T>(asked: Promise<T>): Promise<T> {
    const { log, id, entry } = this.#input;
    return asked.catch((err: unknown) => {
      throw questionFailure(err, () =>
        log(
          `tool ${entry.tool.name}: a question to the client of request ${idForLog(id)} failed and its handler did ` +
            `not catch it: ${errorDetail(err).split("\n")[0]}; a handler should await each question it asks, or ` +
            "catch its failure",
        ));
    });
  }
}

const REPLAYED = "its confirmation was already used for a run; call the tool again without it to ask the user again";

/** The general path: patterns, probes and `middleware` (those of the input's that apply to its tool). */
async function runCallAsync(input: CallInput, middleware: readonly Middleware[]): Promise<Outcome> {
  const { entry, call } = input;
  const signal = call.signal;
  try {
    const probe = input.meta[PROBE_META_KEY] === true;
    let patterns: Patterns | undefined;
    // Invalid arguments never reach the patterns or the handler, but the
    // middleware (an audit trail, a rate limit) still sees the call.
    let patternProblem = entry.validate(input.args);
    const argumentsValid = patternProblem === undefined;
    // A pattern function that failed otherwise than with a domain error (a bug, the call's deadline, its
    // cancellation): the middleware (an audit trail) still see the call, without patterns, and their `next()` fails
    // the same way, so the call's answer is the one it would get without them.
    let patternFailure: { reason: unknown } | undefined;
    if (entry.patterns && patternProblem === undefined) {
      try {
        // Raced like the handler: a pattern function that does I/O (a database's compile) is bounded by the call's
        // deadline and cancellation, and is given the call's signal to stop its work.
        patterns = checkPatterns(await call.race(Promise.resolve(entry.patterns(input.args, signal))));
      } catch (err) {
        if (isToolError(err)) patternProblem = err.message;
        else patternFailure = { reason: err };
      }
    }
    let confirmation: Confirmation | undefined;
    // The handler's own promise once it runs: it may run on past the call's end (a handler that ignores its signal).
    let handlerRun: Promise<ToolResult> | undefined;
    const core = async (): Promise<ToolResult> => {
      if (patternFailure !== undefined) throw patternFailure.reason;
      if (patternProblem !== undefined) return error(patternProblem);
      if (probe) return probeResult(patterns);
      if (entry.confirm) {
        // Raced like the handler: a call paused to ask ends here, and the middleware hears of it.
        confirmation = await call.race(
          confirmCall(entry.tool.name, entry.confirm, input.args, askerOf(input)),
        );
        if (confirmation === "replayed") {
          throw asProtocolError(new ToolError(`Cannot run tool "${entry.tool.name}": ${REPLAYED}`), {
            code: ErrorCode.invalidParams,
            message: `Invalid params: requestState refused: ${REPLAYED}`,
            data: { requestState: "replayed" },
          });
        }
        if (confirmation === "declined" || confirmation === "cancelled") {
          return error(
            `Cannot run tool "${entry.tool.name}": the user ${confirmation} the confirmation; nothing was done`,
          );
        }
      }
      // Declined and cancelled returned above: what is left is what the handler may act on.
      const confirmed = confirmation as "accepted" | "unavailable" | undefined;
      const handled = domainErrorsAsResults(() =>
        entry.handler(
          requestOf(input, confirmed, patterns === undefined ? undefined : Object.freeze(patterns.patterns)),
        )
      );
      handlerRun = handled;
      // Without middleware the outer race below is the only one needed.
      return middleware.length === 0 ? await handled : await call.race(handled);
    };
    let next = () => domainErrorsAsResults(core);
    if (middleware.length > 0) {
      // A handler paused to ask is parked for good on its question (its retry is a new call): it has ended here.
      const handlerEnd = (): Promise<HandlerEnd | undefined> =>
        handlerRun === undefined || call.cause === "input" ? Promise.resolve(undefined) : handlerRun.then(endOf, threw);
      const ctx: CallContext & HandlerEndOffer = {
        tool: entry.tool,
        arguments: input.args,
        argumentsValid,
        probe,
        patternTool: entry.patterns !== undefined,
        patterns,
        signal,
        client: input.client,
        requestId: input.id,
        get confirmation() {
          return confirmation;
        },
        untilHandlerEnds: () => handlerEnd().then(ignoreOutcome),
        // For the audit trail: how a handler its call's deadline or cancellation left running ended.
        [HANDLER_END]: handlerEnd,
      };
      for (let i = middleware.length - 1; i >= 0; i--) {
        const mw = middleware[i];
        const inner = next;
        next = () => domainErrorsAsResults(() => mw(ctx, inner));
      }
    }
    const result = await call.race(next());
    return { kind: "result", result: checkResult(entry, result) };
  } catch (err) {
    return failure(input, err);
  }
}

const ignoreOutcome = (): void => {};
const threw = (): HandlerEnd => "error";

async function domainErrorsAsResults(fn: () => ToolResult | Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (isDomainError(err)) return error(err.message);
    throw err;
  }
}

function checkResult(entry: Entry, result: ToolResult): ToolResult {
  if (result === null || typeof result !== "object" || !Array.isArray(result.content)) {
    throw new TypeError(`Cannot send the result of tool "${entry.tool.name}": ${resultMistake(result)}`);
  }
  if (result.isError) {
    if (result.structuredContent === undefined) return result;
    const { structuredContent: _, ...rest } = result;
    return rest;
  }
  const check = entry.validateOutput;
  if (check !== undefined && result._meta?.[PROBE_META_KEY] === undefined) {
    if (result.structuredContent === undefined) {
      throw new TypeError(
        `Cannot send the result of tool "${entry.tool.name}": outputSchema check failed: it has no structuredContent`,
      );
    }
    // What the client will read: a Date as its string, without keys JSON drops (./_json_form.ts).
    let sent: unknown;
    try {
      sent = jsonForm(result.structuredContent);
    } catch (err) {
      throw new TypeError(`Cannot send the result of tool "${entry.tool.name}": ${(err as Error).message}`);
    }
    const problem = check(sent);
    if (problem) {
      throw new TypeError(`Cannot send the result of tool "${entry.tool.name}": outputSchema check failed: ${problem}`);
    }
    if (sent !== result.structuredContent) return { ...result, structuredContent: sent as Record<string, unknown> };
  }
  return result;
}

/** What is wrong with a handler's return value, and the fix. */
function resultMistake(result: unknown): string {
  if (typeof result === "string") return "the handler returned a string; return text(...) instead";
  if (result === undefined) return "the handler returned nothing; return text(...), json(...) or error(...)";
  return "it has no content array; build results with text(), json() or error()";
}

/** A plain Error is most often a domain failure thrown the wrong way: say so, once, on the log line. */
function plainErrorHint(err: unknown): string {
  try {
    if (!(err instanceof Error) || err.constructor !== Error) return "";
  } catch {
    return "";
  }
  return " with a plain Error; for a failure the model can fix (bad input, not found, denied) throw ToolError," +
    " which becomes an isError result the model reads, instead of this generic internal error";
}

let failures = 0;

/** Whether `err` is a ToolError; a hostile value (a Proxy whose traps throw) counts as not. */
function isToolError(err: unknown): err is ToolError {
  try {
    return err instanceof ToolError;
  } catch {
    return false;
  }
}

/** What to log about a failure; never throws, whatever was thrown (`Object.create(null)`, a hostile Proxy). */
function errorDetail(err: unknown): string {
  try {
    return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  } catch {
    return "a thrown value that cannot be shown";
  }
}

/** A ToolError that becomes an isError result (not one marked to answer with a JSON-RPC error). */
function isDomainError(err: unknown): err is ToolError {
  return isToolError(err) && protocolErrorOf(err) === undefined;
}

/**
 * The answer of a call its deadline or the shutdown ended, in the initialize
 * era's codes (outcomeForEra() words it for 2026-07-28): the one wording,
 * whether the handler had started or not.
 */
export function endedOutcome(call: Call): Outcome {
  return call.cause === "shutdown"
    ? { kind: "error", error: { code: ErrorCode.shuttingDown, message: "Server is shutting down" } }
    : {
      kind: "error",
      error: { code: ErrorCode.requestTimeout, message: `Tool call timed out after ${call.timeoutMs} ms` },
    };
}

function failure(input: CallInput, err: unknown): Outcome {
  const call = input.call;
  if (call.cause === "cancelled") return { kind: "none" };
  if (call.cause === "input") {
    const asker = input.asker;
    const asked = typeof asker === "object" ? asker.inputRequired : undefined;
    if (asked !== undefined) return { kind: "input_required", input: asked };
  }
  const rpc = call.cause === undefined ? protocolErrorOf(err) : undefined;
  if (rpc !== undefined) return { kind: "error", error: rpc };
  if (call.cause === "timeout") {
    input.log(`tool ${input.entry.tool.name}: timed out after ${call.timeoutMs} ms (request ${idForLog(input.id)})`);
  }
  if (call.cause === "timeout" || call.cause === "shutdown") return endedOutcome(call);
  const ref = `${Date.now().toString(36)}-${(++failures).toString(36)}`;
  const detail = errorDetail(err);
  input.log(`tool ${input.entry.tool.name} failed (ref ${ref})${plainErrorHint(err)}: ${detail}`);
  return { kind: "error", error: { code: ErrorCode.internalError, message: `Internal error (ref ${ref})` } };
}
