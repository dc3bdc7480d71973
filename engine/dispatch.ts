// Routes decoded messages to the protocol methods of a tools-only server and
// encodes the replies. Quick methods answer synchronously; tools/call runs
// through _call.ts and answers when it settles, in whatever order calls end.
// Era state lives in _session.ts, listeners in _subscriptions.ts, the calls in
// flight in _calls.ts.

import type { Asker } from "./_asker.ts";
import { batchReply, type BatchSlot, type Outgoing, type Reply, tooLargeForBatch } from "./_batch.ts";
import { type CallOrigin, endedOutcome, type Outcome, runCall } from "./_call.ts";
import { type Call, CallTable } from "./_calls.ts";
import { type CallStream, DispatchedCall } from "./_dispatched_call.ts";
import { heldCost } from "./_held_cost.ts";
import { ClientRequests, SessionAsker } from "./_client_requests.ts";
import { InputRounds } from "./_input_rounds.ts";
import { digestOf, openState, type StateBody, type StateProblem } from "./_request_state.ts";
import {
  badEnvelope,
  BATCH_VERSION,
  type Envelope,
  envelopeOf,
  type Era,
  META_VERSION,
  STATELESS_VERSION,
} from "./_era.ts";
import { busyBytesError, busyError, outcomeForEra } from "./_era_errors.ts";
import { encodeErrorReply, encodeReply, replyAfterId, ReplyTooLarge } from "./json_parts.ts";
import { ErrorCode, type Message, type RequestMessage, type RpcError } from "./jsonrpc.ts";
import { rpcErrorText } from "./_rpc_error_text.ts";
import { ExactNumber, type Id, idForLog } from "./id.ts";
import { PROBE_META_KEY } from "./probe.ts";
import { noProgress, progressFor } from "./_progress.ts";
import { describeValue } from "../internal/describe_value.ts";
import { quote } from "../internal/quote.ts";
import { type Entry, type Registry, registryOf } from "../toolkit/registry.ts";
import { Session } from "./_session.ts";
import { Subscriptions } from "./_subscriptions.ts";
import {
  answerTaskRequest,
  createdReply,
  declaresTasks,
  TASK_METHODS,
  taskRequired,
  TASKS_EXTENSION,
  taskSubscriptionRefusal,
} from "./_task_requests.ts";
import type { TaskAsker } from "./_task_asker.ts";
import type { TaskLimits, TaskTable } from "./_tasks.ts";
import type { Clock } from "../internal/clock.ts";
import { within } from "../internal/within.ts";
import type { Middleware } from "../toolkit/middleware.ts";
import type { ToolResult } from "../toolkit/result.ts";
import type { Server } from "../toolkit/server.ts";

/** Dispatcher settings, resolved from run()'s options. */
export interface DispatchOptions {
  timeoutMs: number;
  maxInFlight: number;
  /**
   * The most bytes the requests of the calls that wait may hold together, parsed (`maxInFlightBytes`); none when
   * absent.
   */
  maxInFlightBytes?: number;
  maxMessageBytes: number;
  listTtlMs: number;
  tasks: TaskLimits;
  middleware: readonly Middleware[];
  log: (line: string) => void;
  /** What the deadlines and task TTLs run on: the system clock unless a test moves time itself. */
  clock?: Clock;
}

type Params = Record<string, unknown> | undefined;

/** Where a dispatcher's frames go: a writer that says when the client is behind. */
export interface Outbox {
  /** Queues one frame. */
  send(frame: Outgoing): void;
  /** True while more than the stream's bound of replies waits for the client. */
  readonly congested: boolean;
  /** Resolves once nothing waits to be written. */
  idle(): Promise<void>;
}

/** Serves one stream of messages for one server. */
export class Dispatcher {
  readonly #registry: Registry;
  readonly #out: Outbox;
  readonly #send: (frame: Outgoing) => void;
  readonly #options: DispatchOptions;
  readonly #calls: CallTable;
  // The bytes of the message being handled (none counted for a batch's items, see #holds), and what the open
  // subscriptions hold (the calls in flight hold theirs in #calls, the tasks theirs in the task table, each until
  // its handler ends).
  #lineBytes = 0;
  #heldBytes = 0;
  // The client's roots answer last measured for #rootsHeld, and what it holds.
  #rootsMeasured: unknown = undefined;
  #rootsCost = 0;
  // The number of lingering handlers last named on stderr (see #noteLingering).
  #lingeringSaid = 0;
  readonly #session: Session;
  readonly #subscriptions: Subscriptions;
  // Made at the first task: a server whose clients never ask for one does not load the tasks code.
  #tasks: Tasks | undefined;
  #tasksLoading: Promise<Tasks> | undefined;
  // Set once a drain has shut the task table down (or would have, had there been one).
  #tasksClosed = false;
  readonly #unsubscribe: () => void;
  readonly #clientRequests: ClientRequests;
  // What every call shares; its origin lends a call its asker, made only if its handler asks a question.
  readonly #stream: CallStream;
  #accepting = true;

  constructor(server: Server, out: Outbox, options: DispatchOptions) {
    this.#registry = registryOf(server);
    this.#out = out;
    const send = this.#send = (frame: Outgoing) => out.send(frame);
    this.#options = options;
    this.#calls = new CallTable(options.clock);
    const origin: CallOrigin = { asker: (input) => this.#newAsker(input as DispatchedCall) };
    const { middleware, log } = options;
    const clientOf = (envelope: Envelope) => this.#session.client(envelope);
    const newCall = (id: Id, entry: Entry) => this.#newCall(id, entry);
    this.#stream = { newCall, middleware, log, origin, clientOf };
    this.#session = new Session(server, options.listTtlMs);
    // An open subscription holds its id against maxInFlightBytes, as a call that waits holds its request.
    this.#subscriptions = new Subscriptions(send, (bytes) => (this.#heldBytes += bytes));
    this.#clientRequests = new ClientRequests(send);
    this.#unsubscribe = this.#registry.onChange(() =>
      this.#subscriptions.toolsChanged(this.#session.sessionVersion !== undefined)
    );
  }

  /**
   * Handles one decoded message (or batch) of `bytes` bytes; refused lines
   * never reach it. A call that waits holds `bytes` (an item of a batch, the
   * text of its own params and id) and what its parsed params take beyond
   * them, until it settles, against `maxInFlightBytes`.
   */
  receive(msg: Message, bytes = 0): void {
    if (!this.#accepting) return;
    // A batch's bytes say nothing of one item's: its items are counted by their own text instead (#holds).
    this.#lineBytes = msg.kind === "batch" ? 0 : bytes;
    const reply = msg.kind === "batch"
      ? batchReply(
        this.#session.sessionVersion,
        msg.items,
        (item, slot) => this.#handle(item, slot),
        this.#options.maxMessageBytes,
      )
      : this.#handle(msg);
    if (reply === undefined) return;
    if (reply instanceof Promise) reply.then((r) => r !== undefined && this.#send(r));
    else this.#send(reply);
  }

  /**
   * Answers `value`, one parsed message of `bytes` bytes, when it is a
   * tools/call in the form nearly every call takes, and returns true; for
   * anything else it returns false having done nothing, and the caller hands
   * the message to {@linkcode receive}. The answer is the same either way:
   * this path only skips the steps such a call does not need
   * (docs/benchmarks.md, "The hot path against the floor", item 10).
   */
  receiveCall(value: unknown, bytes: number): boolean {
    if (!this.#accepting) return false;
    this.#lineBytes = bytes;
    const reply = this.#quickCall(value);
    if (reply === GENERAL) return false;
    if (reply instanceof Promise) reply.then((r) => r !== undefined && this.#send(r));
    else if (reply !== undefined) this.#send(reply);
    return true;
  }

  /**
   * A tools/call whose JSON-RPC shape is plain (`"2.0"`, a string or an
   * exactly read number as its id, params an object) and that needs none of
   * the general path's cases: no other request under its id, its era's
   * envelope well formed (a session already initialized), a known tool that
   * is not a task and reserves no reply bytes, arguments an object, room in
   * flight and within `maxInFlightBytes`, and no probe flag, progress token,
   * input responses or request state. Anything else is GENERAL, before any of
   * it is acted on.
   */
  #quickCall(value: unknown): Reply | typeof GENERAL {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return GENERAL;
    const msg = value as Record<string, unknown>;
    if (msg.method !== "tools/call" || msg.jsonrpc !== "2.0") return GENERAL;
    const id = msg.id;
    if (typeof id !== "string" && (typeof id !== "number" || !Number.isFinite(id))) return GENERAL;
    const params = msg.params;
    if (params === null || typeof params !== "object" || Array.isArray(params)) return GENERAL;
    if (this.#idInUse(id)) return GENERAL;
    const p = params as Record<string, unknown>;
    const meta = metaOf(p);
    if (meta !== undefined && (meta[PROBE_META_KEY] !== undefined || meta.progressToken !== undefined)) return GENERAL;
    const envelope = envelopeOf(meta);
    if (envelope.era === "invalid") return GENERAL;
    const era: Era = envelope.era;
    if (era === "session" ? this.#session.sessionVersion === undefined : p.inputResponses !== undefined) return GENERAL;
    if (era === "stateless" && p.requestState !== undefined) return GENERAL;
    const name = p.name;
    const entry = typeof name === "string" ? this.#registry.tools.get(name) : undefined;
    if (entry === undefined || entry.maxResultBytes !== undefined) return GENERAL;
    const task = entry.tool.task;
    if (task !== undefined && task !== false) return GENERAL;
    const args = p.arguments ?? {};
    if (args === null || typeof args !== "object" || Array.isArray(args)) return GENERAL;
    if (this.#calls.running >= this.#options.maxInFlight) return GENERAL;
    // Beside calls that wait, what it holds is counted now, as the general path counts it; past the bound, that
    // path refuses it (and says why on stderr).
    const held = this.#held;
    const holds = held > 0 ? this.#holds(p, id, undefined) : undefined;
    if (holds !== undefined && !this.#withinBytes(held, holds)) return GENERAL;
    const given = args as Record<string, unknown>;
    const input = new DispatchedCall(
      this.#stream,
      id,
      entry,
      given,
      meta ?? {},
      envelope,
      undefined,
      noProgress,
      undefined,
      undefined,
    );
    return this.#answer(id, runCall(input), era, undefined, input, undefined, p, 0, holds);
  }

  /**
   * Takes a response from the client of `bytes` bytes, over `limit`, that was
   * never parsed: the request of this server it answers, if one waits, fails
   * with an error that says so (its handler need not wait for its deadline);
   * one for no request of ours is dropped. Either way nothing is sent back,
   * as no response is ever answered.
   */
  answerTooLarge(id: Id | null, bytes: number, limit: number): void {
    const named = id === null ? "" : ` to request ${idForLog(id)}`;
    this.#options.log(`a response${named} of ${bytes} bytes was dropped: over maxMessageBytes ${limit}`);
    if (!this.#accepting || id === null) return;
    this.#clientRequests.refuse(id, `its response of ${bytes} bytes is over maxMessageBytes (${limit})`);
  }

  /** Stops taking new messages; calls in flight go on. */
  stop(): void {
    this.#accepting = false;
  }

  /**
   * Fails the questions to the client that wait (no answer can be read any
   * more), lets calls in flight finish for up to `graceMs`, then aborts the
   * rest (they answer "shutting down"), ends open subscriptions and stops hearing
   * about registry changes, so a server served again notifies only its new
   * stream.
   */
  async drain(graceMs: number): Promise<void> {
    this.#accepting = false;
    // No answer to a question can arrive once input is no longer read: a handler that waits for one hears so now,
    // and may end within the grace period (before, it waited all of it and its call answered "shutting down").
    this.#clientRequests.abandonAll("the server reads no more input (it is shutting down)");
    // So would one that waits for `notifications/initialized`: it goes on, and is refused the same way.
    this.#session.releaseWaiting();
    // No task can be polled once input has ended: they are cancelled now, not given the grace period.
    // A task whose code is still loading is created first (it was asked for before), then cancelled here.
    if (this.#tasksLoading !== undefined) await this.#tasksLoading;
    const tasksEnded = this.#tasks?.table.shutdown();
    // A table the tasks code makes from now on (a start whose state was still being checked) is born shut down.
    this.#tasksClosed = true;
    if (this.#calls.size > 0) await within(this.#calls.settledAll(), graceMs);
    if (this.#calls.size > 0) {
      this.#calls.abortAll("shutdown", new DOMException("Server is shutting down", "AbortError"));
      await within(this.#calls.settledAll(), 250);
    }
    if (tasksEnded !== undefined) await within(tasksEnded, 250);
    this.#subscriptions.endAll();
    this.#unsubscribe();
    this.#calls.dispose();
    this.#tasks?.table.dispose();
  }

  /** The extensions server/discover names: tasks when a tool can run as one. */
  #extensions(): Record<string, unknown> | undefined {
    for (const entry of this.#registry.tools.values()) {
      if (entry.tool.task) return { [TASKS_EXTENSION]: {} };
    }
    return undefined;
  }

  /** The reply to one message; `slot` is its place in a batch's reply, when it came in one. */
  #handle(msg: Message, slot?: BatchSlot): Reply {
    switch (msg.kind) {
      case "request":
        return this.#request(msg, slot);
      case "notification":
        this.#notification(msg.method, msg.params);
        return undefined;
      case "invalid":
        return encodeErrorReply(msg.id, msg.error);
      case "batch":
        return encodeErrorReply(null, { code: ErrorCode.invalidRequest, message: "Invalid request: nested batch" });
      case "response":
        if (msg.id === null) this.#strayResponse(msg.error);
        else this.#clientRequests.settle(msg.id, msg);
        return undefined;
    }
  }

  /** Says on stderr that a response without an id was dropped: it names no request, and is never answered. */
  #strayResponse(error: RpcError | undefined): void {
    const said = error === undefined ? "a result" : rpcErrorText(error);
    this.#options.log(`a response without an id was dropped (${said}): it names no request`);
  }

  #request(msg: RequestMessage, slot: BatchSlot | undefined): Reply {
    const { id, method } = msg;
    // One id, one request in flight: a second would get a second answer under
    // it, and a cancellation could not tell them apart.
    if (this.#idInUse(id)) {
      return fail(
        id,
        ErrorCode.invalidRequest,
        `Invalid request: id ${idForLog(id)} is already used by a request in flight`,
      );
    }
    if (Array.isArray(msg.params)) return fail(id, ErrorCode.invalidParams, "Invalid params: must be an object");
    const params = msg.params;
    const envelope = envelopeOf(metaOf(params));
    if (envelope.era === "invalid") return encodeErrorReply(id, envelope.error);
    const stateless = envelope.era === "stateless";
    // 2026-07-28 has no batches: its answers (a subscription's, a task's stored result) have no place in one array.
    if (stateless && slot !== undefined) {
      return fail(
        id,
        ErrorCode.invalidRequest,
        `Invalid request: a ${STATELESS_VERSION} request cannot be sent in a batch (batches are part of ${BATCH_VERSION} ` +
          "only); send it on its own line",
      );
    }
    switch (method) {
      case "initialize":
        // The handshake belongs to the initialize era: a request that speaks 2026-07-28 has no such method.
        if (stateless) {
          return fail(
            id,
            ErrorCode.methodNotFound,
            `Method not found: "initialize" is not part of ${STATELESS_VERSION}`,
          );
        }
        return encodeReply(id, this.#session.initialize(params));
      case "server/discover":
        // Discovery is a 2026-07-28 method: without its envelope it is refused, still answered so no probe waits.
        if (!stateless) return encodeErrorReply(id, badEnvelope(META_VERSION, "missing").error);
        return encodeReply(id, this.#session.discovery(this.#extensions()));
      case "ping":
        if (stateless) {
          return fail(id, ErrorCode.methodNotFound, `Method not found: "ping" is not part of ${STATELESS_VERSION}`);
        }
        return encodeReply(id, {});
    }
    if (!stateless && this.#session.sessionVersion === undefined) {
      return encodeErrorReply(id, {
        code: ErrorCode.invalidParams,
        message: `Not initialized: send "initialize" first, or put "${META_VERSION}" in _meta (${STATELESS_VERSION})`,
        data: { envelope: { key: META_VERSION, problem: "missing" } },
      });
    }
    switch (method) {
      case "tools/list":
        if (params?.cursor !== undefined) return fail(id, ErrorCode.invalidParams, "Invalid params: unknown cursor");
        // The list's text is made once per change and spliced: in a batch, an item it cannot fit costs nothing.
        if (!stateless) {
          return replyAfterId(id, `,"result":{"tools":${this.#registry.listJson()}}}`);
        }
        return encodeReply(id, this.#session.toolsList(this.#registry.list(), envelope));
      case "tools/call":
        return this.#toolsCall(id, params, envelope, slot);
      case "subscriptions/listen":
        if (stateless) {
          const refused = taskSubscriptionRefusal(id, params, metaOf(params) ?? {});
          if (refused !== undefined) return refused;
          // What an open subscription holds is its id (sent again in each notification and in its last reply).
          const holds = heldCost(id, 0, true);
          const held = this.#held;
          if (held > 0 && this.#overBytes(held, holds)) {
            return encodeErrorReply(id, busyBytesError("stateless", this.#options.maxInFlightBytes!));
          }
          return this.#subscriptions.listen(id, params, holds);
        }
    }
    if (stateless && TASK_METHODS.has(method)) {
      // Answers a task's handler may keep are held against maxInFlightBytes, as a retried call's inputResponses are.
      const refuse = (holds: number) => {
        const held = this.#held;
        return held > 0 && this.#overBytes(held, holds)
          ? busyBytesError("stateless", this.#options.maxInFlightBytes!)
          : undefined;
      };
      return answerTaskRequest(id, method, params, metaOf(params) ?? {}, this.#tasks?.table, this.#session, refuse);
    }
    // A notification's name with an id is a malformed message, not an unknown method: say what is wrong with it.
    if (method.startsWith("notifications/")) {
      return fail(
        id,
        ErrorCode.invalidRequest,
        `Invalid request: ${quote(method)} is a notification: it must not carry an id`,
      );
    }
    return fail(id, ErrorCode.methodNotFound, `Method not found: ${quote(method)}`);
  }

  #notification(method: string, params: Params | unknown[]): void {
    if (method === "notifications/initialized") this.#session.clientInitialized();
    if (method === "notifications/roots/list_changed") this.#session.rootsChanged();
    if (method !== "notifications/cancelled" || !params || Array.isArray(params)) return;
    const requestId = params.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number" && !(requestId instanceof ExactNumber)) return;
    if (this.#subscriptions.cancel(requestId)) return;
    const reason = typeof params.reason === "string" ? params.reason.slice(0, 200) : "cancelled by the client";
    this.#calls.cancel(requestId, new DOMException(reason, "AbortError"));
  }

  #toolsCall(id: Id, params: Params, envelope: Envelope, slot: BatchSlot | undefined): Reply {
    const name = params?.name;
    if (typeof name !== "string") return fail(id, ErrorCode.invalidParams, 'Invalid params: "name" must be a string');
    const entry = this.#registry.tools.get(name);
    if (!entry) return fail(id, ErrorCode.invalidParams, `Unknown tool: ${quote(name)}`);
    const given = params?.arguments ?? {};
    if (given === null || typeof given !== "object" || Array.isArray(given)) {
      return fail(id, ErrorCode.invalidParams, 'Invalid params: "arguments" must be an object');
    }
    const args = given as Record<string, unknown>;
    const era: Era = envelope.era === "stateless" ? "stateless" : "session";
    const stateless = era === "stateless";
    // Counted until their handlers end, cancelled and timed-out calls included.
    if (this.#calls.running >= this.#options.maxInFlight) {
      this.#noteLingering();
      return encodeErrorReply(id, busyError(era, this.#options.maxInFlight));
    }
    const meta = metaOf(params) ?? {};
    const flag = meta[PROBE_META_KEY];
    const probe = flag === true;
    // Fail closed: a host that sends the probe flag as "true" or 1 expects a dry run, and must not get the action.
    if (flag !== undefined && flag !== false && !probe) return fail(id, ErrorCode.invalidParams, probeFlagError(flag));
    // What its reply may take is reserved with what its request holds (see Tool.maxResultBytes); a probe's reply is
    // its patterns, never the tool's result, so it reserves nothing.
    const most = probe ? undefined : entry.maxResultBytes;
    const reserve = most === undefined ? 0 : this.#reserve(most, name, args);
    // One call alone is never refused by what it holds: only one that would join others past the bound. What it
    // holds is counted when it is needed: a call answered in this turn holds nothing once it is.
    const held = this.#held;
    let holds: number | undefined;
    if (held > 0) {
      holds = this.#holds(params, id, slot) + reserve;
      if (this.#overBytes(held, holds)) {
        return encodeErrorReply(id, busyBytesError(era, this.#options.maxInFlightBytes!));
      }
    }
    const responses = stateless ? params?.inputResponses : undefined;
    if (responses !== undefined && (responses === null || typeof responses !== "object" || Array.isArray(responses))) {
      return fail(id, ErrorCode.invalidParams, 'Invalid params: "inputResponses" must be an object');
    }
    const task = entry.tool.task;
    const asTask = stateless && task !== undefined && task !== false && !probe && declaresTasks(meta);
    if (typeof task === "object" && task.required && !probe && !asTask) return taskRequired(id, name, era);
    const requestState = stateless ? params?.requestState : undefined;
    // Arguments that break the schema are answered at once, as any call's, not after a round of polling.
    if (asTask && entry.validate(args) === undefined) {
      const askFirst = typeof task === "object" && task.askFirst === true;
      // A task holds its request while its start and its handler run, as a call that waits does.
      const taskHolds = holds ?? this.#holds(params, id, slot) + reserve;
      // An ask-first tool's first round is an ordinary call (its questions answer input_required); the retry
      // that brings the answers creates the task.
      if (!askFirst) {
        if (this.#tasks !== undefined) return this.#createTask(id, entry, args, meta, envelope, taskHolds, undefined);
        // The stream's first task waits for the tasks code: it is a call in flight meanwhile.
        return this.#taskInFlight(
          id,
          entry,
          taskHolds,
          (call) => this.#createTask(id, entry, args, meta, envelope, taskHolds, undefined, call),
        );
      }
      if (requestState !== undefined) {
        // The state is checked asynchronously: a call in flight meanwhile, which its task is created only if still open.
        return this.#taskInFlight(
          id,
          entry,
          taskHolds,
          (call) =>
            call.race(openState(requestState, name, () => digestOf(args))).then((opened) =>
              opened.ok
                ? this.#createTask(id, entry, args, meta, envelope, taskHolds, {
                  state: opened.body,
                  responses,
                  args,
                }, call)
                : encodeErrorReply(id, stateError(opened.problem))
            ),
        );
      }
    }
    // The call enters the table when it first waits, below: a synchronous answer never does.
    let outcome: Outcome | Promise<Outcome>;
    let input: DispatchedCall | undefined;
    let call: Call | undefined;
    // Arguments that break the schema are answered as any call's, before a state is opened (and they are digested).
    if (requestState === undefined || entry.validate(args) !== undefined) {
      // Progress goes out while the call is open: a call that may report it has its Call from the start.
      if (meta.progressToken !== undefined) {
        call = this.#newCall(id, entry);
      }
      const progress = call === undefined ? noProgress : progressFor(meta, call, this.#out);
      const rounds = responses === undefined ? undefined : { responses };
      outcome = runCall(
        input = new DispatchedCall(this.#stream, id, entry, args, meta, envelope, call, progress, undefined, rounds),
      );
    } else {
      const checked = call = this.#newCall(id, entry);
      // The state is checked before anything runs: a forged or transplanted one never reaches the handler, and
      // the arguments are digested only for a state this server sealed for this tool.
      let digest: Promise<string> | undefined;
      const argsDigest = () => digest ??= digestOf(args);
      outcome = checked.race(openState(requestState, name, argsDigest)).then(
        (opened) => {
          if (!opened.ok) return badState(opened.problem);
          const progress = progressFor(meta, checked, this.#out);
          const rounds = { responses, state: opened.body, argsDigest };
          return runCall(
            new DispatchedCall(this.#stream, id, entry, args, meta, envelope, checked, progress, undefined, rounds),
          );
        },
        () => ({ kind: "none" as const }),
        // Aborted before its handler started (deadline or shutdown while the state was checked).
      ).then((o) =>
        o.kind === "none" && checked.cause !== undefined && checked.cause !== "cancelled" ? endedOutcome(checked) : o
      );
    }
    return this.#answer(id, outcome, era, slot, input, call, params, reserve, holds);
  }

  /**
   * The reply to a call that ran: built in this turn when its outcome is
   * ready (closing its Call, if one was made), else once it settles. A call
   * that waits has its Call (runCall() raced it), which enters the table and
   * holds `holds` bytes, or what its request holds and `reserve` more, until
   * it is closed and its handler has ended.
   */
  #answer(
    id: Id,
    outcome: Outcome | Promise<Outcome>,
    era: Era,
    slot: BatchSlot | undefined,
    input: DispatchedCall | undefined,
    call: Call | undefined,
    params: Params,
    reserve: number,
    holds: number | undefined,
  ): Reply {
    if (!(outcome instanceof Promise)) return this.#finish(id, input?.made ?? call, outcome, era, slot);
    const waiting = call ?? input!.call;
    this.#calls.enter(waiting, undefined, holds ?? this.#holds(params, id, slot) + reserve);
    const settled = outcome.then((done) => this.#finish(id, waiting, done, era, slot));
    this.#calls.track(waiting, settled);
    return settled;
  }

  /** Whether a request in flight (a call that waits, an open subscription) already has `id`. */
  #idInUse(id: Id): boolean {
    return (this.#calls.size > 0 && this.#calls.has(id)) || this.#subscriptions.has(id);
  }

  /** A call of `entry` under `id`, not in the table yet, with the tool's deadline or the stream's. */
  #newCall(id: Id, entry: Entry): Call {
    return this.#calls.create(id, entry.tool.timeoutMs ?? this.#options.timeoutMs);
  }

  /**
   * What is held now against `maxInFlightBytes`: open subscriptions' ids,
   * waiting calls' and tasks' requests and the answers their handlers were
   * given, and the client's roots while they are kept.
   */
  get #held(): number {
    return this.#heldBytes + this.#calls.heldBytes + (this.#tasks?.table.heldBytes ?? 0) + this.#rootsHeld();
  }

  /**
   * What the client's kept answer to `roots/list` holds (initialize era):
   * kept for every call until the client says its roots changed, it outlives
   * the call that asked. Measured once per answer kept.
   */
  #rootsHeld(): number {
    if (this.#options.maxInFlightBytes === undefined) return 0;
    const roots = this.#session.handshake.roots;
    if (roots === undefined) {
      // Dropped (the client said its roots changed): not kept alive here either.
      this.#rootsMeasured = undefined;
      return 0;
    }
    if (roots !== this.#rootsMeasured) {
      this.#rootsMeasured = roots;
      this.#rootsCost = heldCost(roots, 0, true);
    }
    return this.#rootsCost;
  }

  /**
   * Fails the questions to the client (initialize era) that `call`'s handler
   * left waiting when the call got its outcome (it did not await them):
   * otherwise each kept one of the MAX_PENDING places until the client
   * answered, and a client that never did refused every later question of
   * every call. Stderr says so, as the handler may not have caught them.
   */
  #endQuestions(call: Call): void {
    // Those still waiting for the client's `initialized` too: each held its call's closures until then (never, for a
    // client that does not send it).
    const ended = this.#clientRequests.endOwner(call) + this.#session.endWaitingOf(call);
    if (ended === 0) return;
    this.#options.log(
      `request ${idForLog(call.key)} ended with ${ended} question(s) to the client unanswered: they fail ` +
        '("the tool call that asked has ended"); a handler should await its questions before it returns',
    );
  }

  /**
   * Lets a client's result to a question of `call`'s handler (initialize era)
   * through when what it holds, estimated as a request's, keeps what is held
   * within `maxInFlightBytes`: the call then holds it too, until its handler
   * ends (it may keep the answer that long). Past the bound it is refused:
   * the problem is returned (the handler's question fails with it) and said
   * on stderr, and the result is dropped.
   */
  #admitAnswer(call: Call, result: unknown): string | undefined {
    const max = this.#options.maxInFlightBytes;
    if (max === undefined) return undefined;
    const holds = heldCost(result, 0, true);
    const held = this.#held;
    if (this.#overBytes(held, holds)) {
      const problem = `its answer would hold ${holds} bytes where the calls in flight already hold ${held} of ` +
        `maxInFlightBytes (${max}); it was dropped`;
      this.#options.log(`an answer to a question of request ${idForLog(call.key)} was refused: ${problem}`);
      return problem;
    }
    // A call no longer counted has ended: nothing would release it. (Its questions end with it, #endQuestions(): a guard.)
    if (!this.#calls.hold(call, holds)) return "the tool call that asked has ended; it was dropped";
    return undefined;
  }

  /**
   * Whether `holds` more bytes would take the `held` ones past
   * `maxInFlightBytes`: the request is then refused busy, and stderr told of
   * handlers still running after their calls ended.
   */
  #overBytes(held: number, holds: number): boolean {
    if (this.#withinBytes(held, holds)) return false;
    this.#noteLingering();
    return true;
  }

  /** Whether `holds` more bytes keep the `held` ones within `maxInFlightBytes`. */
  #withinBytes(held: number, holds: number): boolean {
    return held + holds <= (this.#options.maxInFlightBytes ?? Infinity);
  }

  /**
   * Says on stderr, when a call is refused busy, how many of the calls that
   * fill the server are handlers still running after their calls were
   * cancelled or timed out: an author learns why, where nothing else would
   * tell. Said again only when that number has changed, so a client that
   * keeps calling cannot flood the log.
   */
  #noteLingering(): void {
    const n = this.#calls.lingering;
    if (n === 0 || n === this.#lingeringSaid) return;
    this.#lingeringSaid = n;
    this.#options.log(
      `busy: ${n} of the calls in flight ${n === 1 ? "is a handler" : "are handlers"} still running after ${
        n === 1 ? "its call was" : "their calls were"
      } cancelled or timed out (a handler that ignores req.signal holds its place and bytes until it ends)`,
    );
  }

  /**
   * The bytes a call of tool `name` reserves for its reply: `most`, or what
   * it returns for the call's `args`. A function that throws or returns no
   * positive number reserves the whole of `maxInFlightBytes` (the call runs
   * only alone), and is logged.
   */
  #reserve(
    most: number | ((args: Record<string, unknown>) => number),
    name: string,
    args: Record<string, unknown>,
  ): number {
    if (typeof most === "number") return most;
    let problem: string;
    try {
      const bytes: unknown = most(args);
      if (typeof bytes === "number" && Number.isFinite(bytes) && bytes > 0) return bytes;
      problem = `gave ${describeValue(bytes)}, not a positive number`;
    } catch (err) {
      problem = `threw ${String(err).slice(0, 200)}`;
    }
    this.#options.log(`tool ${quote(name)}: maxResultBytes() ${problem}; the call runs only alone`);
    return this.#options.maxInFlightBytes ?? 0;
  }

  /**
   * What a call of the message being handled holds while it waits, against
   * `maxInFlightBytes`: its bytes and what its parsed params take beyond them
   * ({@linkcode heldCost}), walked only when that bound is set; an item of a
   * batch (it has a `slot`), whose share of the batch's bytes says nothing of its own size
   * (one item of 20 MiB beside 1,023 short ones was counted 20 KiB), by the
   * text of its params and id instead.
   */
  #holds(params: Params, id: Id, slot: BatchSlot | undefined): number {
    if (this.#options.maxInFlightBytes === undefined) return this.#lineBytes;
    if (slot !== undefined) return heldCost(params, 0, true) + heldCost(id, 0, true);
    return heldCost(params, this.#lineBytes);
  }

  /**
   * Runs the asynchronous start of a task (its state checked, the tasks code
   * loaded) as a call in flight: its id is taken, so a second request under
   * it is refused; a cancel, the deadline or shutdown ends it; a drain waits
   * for it. A cancelled start is answered with nothing, as a cancelled call.
   * It holds `holds` bytes against `maxInFlightBytes` until it settles.
   */
  #taskInFlight(
    id: Id,
    entry: Entry,
    holds: number,
    start: (call: Call) => Outgoing | Promise<Outgoing>,
  ): Promise<Outgoing | undefined> {
    const call = this.#newCall(id, entry);
    this.#calls.enter(call, undefined, holds);
    let started: Promise<Outgoing>;
    try {
      // Started in this turn: the tasks code starts loading now, so a drain that begins in this turn waits for it.
      started = Promise.resolve(start(call));
    } catch (err) {
      started = Promise.reject(err);
    }
    const settled = call.race(started).then(
      (reply) => (this.#calls.close(call), reply),
      (err) => {
        if (call.cause === "cancelled") return (this.#calls.close(call), undefined);
        if (call.cause !== undefined) {
          return this.#reply(id, call, endedOutcome(call), "stateless", this.#options.maxMessageBytes);
        }
        this.#calls.close(call);
        this.#options.log(`task for request ${idForLog(id)} could not start: ${String(err)}`);
        return encodeErrorReply(id, { code: ErrorCode.internalError, message: "Internal error" });
      },
    );
    this.#calls.track(call, settled);
    return settled;
  }

  /**
   * Answers with a new task whose handler runs in the background. `gathered`
   * holds what an ask-first tool's input-required rounds collected: those
   * questions resolve at once, later ones become the task's inputRequests.
   * `pending` is the call in flight while the start was asynchronous: no
   * task is created once it has ended (cancelled, timed out, shut down).
   * While its handler runs, the task holds `holds` bytes against
   * `maxInFlightBytes`.
   */
  #createTask(
    id: Id,
    entry: Entry,
    args: Record<string, unknown>,
    meta: Record<string, unknown>,
    envelope: Envelope,
    holds: number,
    gathered: Gathered | undefined,
    pending?: Call,
  ): Outgoing | Promise<Outgoing> {
    return this.#withTasks((tasks) => {
      // Its answer is dropped: the call's race has already settled it.
      if (pending?.cause !== undefined) return "";
      const task = entry.tool.task;
      // The extension carries no progress on tasks; status is polled instead.
      const ttlMs = typeof task === "object" ? task.ttlMs : undefined;
      const capabilities = envelope.era === "stateless" ? envelope.capabilities : {};
      const version = envelope.era === "stateless" ? STATELESS_VERSION : this.#session.sessionVersion;
      // The task table holds its request in its count until its handler ends, a cancelled or expired task's too.
      const created = tasks.table.create(ttlMs, (task) => {
        const asker = new tasks.TaskAsker(tasks.table, task, capabilities, version);
        const gatheredAsker = gathered === undefined ? asker : new InputRounds({
          tool: entry.tool.name,
          argsDigest: () => digestOf(gathered.args),
          capabilities,
          state: gathered.state,
          responses: gathered.responses as Record<string, unknown> | undefined,
          pause: () => {},
          unanswered: asker,
        });
        return runCall(
          new DispatchedCall(
            this.#stream,
            id,
            entry,
            args,
            meta,
            envelope,
            task.call,
            noProgress,
            gatheredAsker,
            undefined,
          ),
        );
      }, holds);
      return createdReply(id, created, tasks.table, this.#session);
    });
  }

  /** Runs `use` with the tasks code, loading it at the stream's first task. */
  #withTasks<T>(use: (tasks: Tasks) => T): T | Promise<T> {
    if (this.#tasks !== undefined) return use(this.#tasks);
    // Literal import()s, so that `deno compile` and `deno publish` still see the modules.
    this.#tasksLoading ??= import("./_task_support.ts").then(
      ({ TaskTable, TaskAsker }) => {
        const table = new TaskTable(this.#options.tasks, this.#options.log, this.#options.clock);
        if (this.#tasksClosed) void table.shutdown();
        return this.#tasks = { table, TaskAsker };
      },
    );
    return this.#tasksLoading.then(use);
  }

  /** How a call asks its client, made at its first question. */
  #newAsker(input: DispatchedCall): Asker {
    const { call, envelope, args } = input;
    if (envelope.era !== "stateless") {
      return new SessionAsker(
        this.#clientRequests,
        this.#session.handshake,
        call.signal,
        (result) => this.#admitAnswer(call, result),
        call,
      );
    }
    return new InputRounds({
      tool: input.entry.tool.name,
      // Most calls never ask: the arguments are digested only when a round is sealed.
      argsDigest: input.rounds?.argsDigest ?? (() => digestOf(args)),
      capabilities: envelope.capabilities,
      state: input.rounds?.state,
      responses: input.rounds?.responses as Record<string, unknown> | undefined,
      pause: () => this.#calls.pause(call),
      signal: call.signal,
    });
  }

  /**
   * The reply to a call that settled. In a batch, the reply is built within
   * the room its slot has left and takes its place in the same turn, so
   * calls that end together never build more than the batch's reply can hold.
   */
  #finish(id: Id, call: Call | undefined, outcome: Outcome, era: Era, slot?: BatchSlot): Outgoing | undefined {
    const reply = this.#reply(id, call, outcome, era, slot?.limit() ?? this.#options.maxMessageBytes);
    return slot === undefined ? reply : slot.take(reply);
  }

  /** The reply to request `id`, closing its call (if one was made: a synchronous call may have none). */
  #reply(id: Id, call: Call | undefined, outcome: Outcome, era: Era, max: number): Outgoing | undefined {
    if (call !== undefined) {
      this.#calls.close(call);
      // Only a call that asked can own a question; when none waits, this costs one read.
      if ((this.#clientRequests.size > 0 || this.#session.waitingForInitialized > 0) && era === "session") {
        this.#endQuestions(call);
      }
    }
    outcome = outcomeForEra(outcome, era);
    if (outcome.kind === "none") return undefined;
    if (outcome.kind === "error") return encodeErrorReply(id, outcome.error);
    if (outcome.kind === "input_required") {
      const { inputRequests, requestState } = outcome.input;
      return this.#encodeToolResult(
        id,
        { inputRequests, requestState } as unknown as ToolResult,
        era,
        max,
        "input_required",
      );
    }
    return this.#encodeToolResult(id, outcome.result, era, max);
  }

  #encodeToolResult(id: Id, result: ToolResult, era: Era, max: number, resultType?: string): Outgoing {
    try {
      if (era === "session") return encodeReply(id, result, max);
      return this.#session.statelessReply(id, result as unknown as Record<string, unknown>, resultType, max);
    } catch (err) {
      this.#options.log(`result of request ${idForLog(id)} cannot be serialised: ${String(err)}`);
      if (err instanceof ReplyTooLarge) {
        const limit = this.#options.maxMessageBytes;
        // Below the stream's limit, `max` is what a batch's reply had left for this one.
        return max < limit ? tooLargeForBatch(id, limit) : encodeErrorReply(id, {
          code: ErrorCode.internalError,
          message: `Reply too large: it exceeds the limit of ${max} bytes (maxMessageBytes)`,
          data: { limit: max },
        });
      }
      return encodeErrorReply(id, {
        code: ErrorCode.internalError,
        message: "Internal error: the result cannot be serialised",
      });
    }
  }
}

/** What an ask-first tool's input-required rounds gathered before its task is created. */
interface Gathered {
  state: StateBody;
  responses: unknown;
  args: Record<string, unknown>;
}

/** The tasks code, loaded at the first task, and the stream's table. */
interface Tasks {
  table: TaskTable;
  TaskAsker: typeof TaskAsker;
}

/** What {@linkcode Dispatcher.receiveCall} answers for a message it leaves to the general path. */
const GENERAL = Symbol("general");

function metaOf(params: Params): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta)
    ? meta as Record<string, unknown>
    : undefined;
}

const STATE_PROBLEMS: Record<StateProblem, string> = {
  malformed: "it is not a state this server issued",
  forged: "it was not issued by this server process, or was altered",
  expired: "it has expired; call the tool again without it",
  "other-call": "it belongs to another call (a different tool or arguments)",
};

/** The answer to a retried call whose requestState does not open. */
function badState(problem: StateProblem): Outcome {
  return { kind: "error", error: stateError(problem) };
}

function stateError(problem: StateProblem): RpcError {
  return {
    code: ErrorCode.invalidParams,
    message: `Invalid params: requestState refused: ${STATE_PROBLEMS[problem]}`,
    data: { requestState: problem },
  };
}

/** The refusal of a probe flag that is neither `true` nor `false`: nothing runs on a flag the server cannot read. */
function probeFlagError(flag: unknown): string {
  return `Invalid params: _meta["${PROBE_META_KEY}"] must be true (a probe) or false, not ${
    describeValue(flag)
  }; nothing was run`;
}

function fail(id: Id, code: number, message: string): Outgoing {
  return encodeErrorReply(id, { code, message });
}
