// The tasks of one stream (extension io.modelcontextprotocol/tasks): a
// long-running call answered with a handle, its handler run in the background,
// its outcome kept for the client to poll. Tasks live in memory only — on
// stdio one process serves one client — and are bounded in number, in the
// bytes of the results they hold, and in time: a task is freed when its TTL
// (counted from creation) has passed, and a handler still running then is
// aborted. A task's id is a random UUID: it is the only key to its result.
// The table's one timer owns the TTL: a running handler is aborted in the
// same step that frees its task, so no request ever sees one without the
// other. Time is read from a Clock, so the tests move it.

import { type Call, CallTable } from "./_calls.ts";
import type { Outcome } from "./_call.ts";
import { outcomeForEra } from "./_era_errors.ts";
import { ErrorCode, type RpcError } from "./jsonrpc.ts";
import { type Clock, systemClock } from "../internal/clock.ts";
import { DeadlineTimer } from "../internal/deadline_timer.ts";
import { heldCost } from "./_held_cost.ts";
import { CANCELLED_BY_CLIENT } from "./_task_requests.ts";

/** A task's status, as the extension names it. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The limits of one stream's tasks, resolved from serve()'s options. */
export interface TaskLimits {
  /** The most tasks held at once, running or finished. */
  max: number;
  /** The most bytes of finished results held at once. */
  maxBytes: number;
  /** The largest reply, in bytes: a result that cannot fit in a `tasks/get` reply fails the task. */
  maxMessageBytes: number;
  /** The poll interval suggested to clients. */
  pollIntervalMs: number;
  /** The TTL of a task whose tool names none. */
  ttlMs: number;
}

/** Room left in a `tasks/get` reply for everything but the result. */
const ENVELOPE_BYTES = 1024;
/** How many freed task ids are remembered, to say "expired" rather than "not found". */
const REMEMBERED_EXPIRED = 256;

interface PendingInput {
  request: { method: string; params?: Record<string, unknown> };
  resolve: (answer: unknown) => void;
  reject: (reason: unknown) => void;
}

/** One task; only {@linkcode TaskTable} changes it. */
export class Task {
  readonly id: string;
  readonly createdAt: number = Date.now();
  readonly ttlMs: number;
  readonly expiresAt: number;
  readonly call: Call;
  status: TaskStatus = "working";
  lastUpdatedAt: number = this.createdAt;
  statusMessage: string | undefined;
  /** The result's JSON text once completed: held as text, the smallest form it has. */
  resultJson: string | undefined;
  resultBytes = 0;
  error: RpcError | undefined;
  readonly inputs: Map<string, PendingInput> = new Map();
  /** True once a tasks/get reply told the client how the task ended. */
  seenEnded = false;
  inputCount = 0;

  constructor(id: string, ttlMs: number, call: Call, expiresAt: number) {
    this.id = id;
    this.ttlMs = ttlMs;
    this.expiresAt = expiresAt;
    this.call = call;
  }

  get terminal(): boolean {
    return this.status === "completed" || this.status === "failed" || this.status === "cancelled";
  }
}

/** What a lookup found: the task, or why there is none. */
export type Lookup = { task: Task } | { missing: "not found" | "expired" };

/** The tasks of one stream. */
export class TaskTable {
  readonly #limits: TaskLimits;
  readonly #log: (line: string) => void;
  readonly #tasks = new Map<string, Task>();
  readonly #clock: Clock;
  readonly #calls: CallTable;
  readonly #expired: string[] = [];
  #heldBytes = 0;
  // The count of lingering handlers last said on stderr.
  #lingeringSaid = 0;
  readonly #timer: DeadlineTimer;
  // Set by shutdown(): no task is created after it.
  #shutDown = false;

  /** A table within `limits`, logging to `log`, whose TTLs run on `clock`. */
  constructor(limits: TaskLimits, log: (line: string) => void, clock: Clock = systemClock) {
    this.#limits = limits;
    this.#log = log;
    this.#clock = clock;
    this.#calls = new CallTable(clock);
    this.#timer = new DeadlineTimer(clock, (now) => this.#sweep(now));
  }

  get size(): number {
    return this.#tasks.size;
  }

  /**
   * How many of the tasks that fill the table are handlers still running
   * after their tasks were cancelled or expired, in words; said on stderr too,
   * again only when that number has changed (a client that keeps creating
   * cannot flood the log).
   */
  #noteLingering(n: number): string {
    const words = `${n} of them ${n === 1 ? "is a handler" : "are handlers"} still running after ${
      n === 1 ? "its task was" : "their tasks were"
    } cancelled or expired`;
    if (n !== this.#lingeringSaid) {
      this.#lingeringSaid = n;
      this.#log(`busy: ${words} (a handler that ignores its signal holds its place until it ends)`);
    }
    return words;
  }

  get pollIntervalMs(): number {
    return this.#limits.pollIntervalMs;
  }

  /**
   * Starts `run` as a task whose handler's deadline is its TTL (the table's
   * default when `ttlMs` is undefined), holding `holds` bytes (its request)
   * until its handler has ended ({@linkcode TaskTable.heldBytes}), a
   * cancelled or expired task's too. Returns the refusal instead when `max`
   * tasks are held.
   */
  create(ttlMs: number | undefined, run: (task: Task) => Outcome | Promise<Outcome>, holds = 0): Task | RpcError {
    // A start that was still checking its state when shutdown began: no handler may run unaborted after it.
    if (this.#shutDown) {
      return {
        code: ErrorCode.internalError,
        message: "Server is shutting down",
        data: { reason: "shutting_down", retryable: false },
      };
    }
    ttlMs ??= this.#limits.ttlMs;
    const max = this.#limits.max;
    // The timer frees expired tasks; a sweep here only makes sure a full table is really full.
    if (this.#tasks.size >= max) this.#timer.sweepNow();
    if (this.#tasks.size >= max) this.#evictOne();
    // A cancelled or expired task leaves the table, but its handler, if it ignores its signal, runs on: it counts
    // against max until it ends (`running`), as a cancelled call does against maxInFlight.
    if (this.#tasks.size >= max || this.#calls.running >= max) {
      // A handler still running for a task that has ended (cancelled or expired) ignored its signal.
      let live = 0;
      for (const task of this.#tasks.values()) if (!task.terminal) live++;
      const lingering = this.#calls.running - live;
      return {
        code: ErrorCode.internalError,
        message: lingering === 0
          ? `Server busy: ${max} tasks held (maxTasks); retry later, or cancel a task`
          : `Server busy: ${max} tasks held (maxTasks), ${this.#noteLingering(lingering)}; retry later`,
        data: { reason: "server_busy", retryable: true, limit: max },
      };
    }
    const id = crypto.randomUUID();
    // The call's deadline is the TTL, which #free() enforces: the call gets no timer of its own.
    const task = new Task(id, ttlMs, this.#calls.open(id, ttlMs, Infinity, holds), this.#clock.now() + ttlMs);
    this.#tasks.set(id, task);
    this.#timer.arm(task.expiresAt);
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = run(task);
    } catch (err) {
      outcome = { kind: "error", error: { code: ErrorCode.internalError, message: "Internal error" } };
      this.#log(`task ${id} could not start: ${String(err)}`);
    }
    if (outcome instanceof Promise) {
      const settled = outcome.then((done) => this.#settle(task, done));
      this.#calls.track(task.call, settled);
    } else {
      this.#settle(task, outcome);
    }
    return task;
  }

  /** What the tasks whose handlers have not ended hold, as given to {@linkcode TaskTable.create}. */
  get heldBytes(): number {
    return this.#calls.heldBytes;
  }

  /** Records that the client was told how `task` ended: it may be freed first when room is needed. */
  markSeen(task: Task): void {
    if (task.terminal) task.seenEnded = true;
  }

  /** The task under `id`, or why there is none. */
  lookup(id: string): Lookup {
    const task = this.#tasks.get(id);
    // The timer may not have fired yet for a task whose TTL has just passed.
    if (task && task.expiresAt <= this.#clock.now()) this.#free(task);
    else if (task) return { task };
    return { missing: this.#expired.includes(id) ? "expired" : "not found" };
  }

  /** The key of `task`'s next unnamed question: `input-N`, N its place among them. */
  inputKey(task: Task): string {
    return `input-${++task.inputCount}`;
  }

  /**
   * Asks the client for input on behalf of a running task, under `key` or a
   * generated `input-N`; resolves with the client's raw answer.
   */
  ask(task: Task, method: string, params: Record<string, unknown> | undefined, key?: string): Promise<unknown> {
    if (task.terminal || task.call.signal.aborted) return Promise.reject(task.call.signal.reason);
    let request: PendingInput["request"];
    try {
      // A copy as JSON: a question JSON cannot hold (a cycle, a BigInt) fails the asking handler now, never a
      // later tasks/get, and the handler cannot change what was asked once it is shown.
      request = JSON.parse(JSON.stringify(params === undefined ? { method } : { method, params }));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      task.inputs.set(key ?? this.inputKey(task), { request, resolve, reject });
      this.#touch(task, "input_required");
    });
  }

  /**
   * What the answers in `responses` to `task`'s outstanding questions hold
   * once delivered (its handler may keep them until it ends), estimated from
   * above as a request is ({@linkcode heldCost}); 0 when none is outstanding.
   */
  answersCost(task: Task, responses: Record<string, unknown>): number {
    let cost = 0;
    for (const key of Object.keys(responses)) {
      if (task.inputs.has(key)) cost += heldCost(responses[key], 0, true);
    }
    return cost;
  }

  /**
   * Delivers `tasks/update` answers. A key that is not outstanding is ignored,
   * as the extension asks; the task is working again once none is left. The
   * task holds `holds` bytes more (what the answers delivered hold,
   * {@linkcode TaskTable.answersCost}) until its handler ends.
   */
  update(task: Task, responses: Record<string, unknown>, holds = 0): void {
    if (holds > 0) this.#calls.hold(task.call, holds);
    for (const [key, answer] of Object.entries(responses)) {
      const pending = task.inputs.get(key);
      if (!pending) continue;
      task.inputs.delete(key);
      pending.resolve(answer);
    }
    if (task.status === "input_required" && task.inputs.size === 0) this.#touch(task, "working");
  }

  /** Cancels a task that has not ended: its handler's signal fires and the task is cancelled at once. */
  cancel(task: Task, reason: string): void {
    if (task.terminal) return;
    this.#calls.cancel(task.id, new DOMException(reason, "AbortError"));
    this.#end(task, "cancelled", reason);
  }

  /** Cancels every running task (at shutdown) and waits for their handlers, briefly. */
  shutdown(): Promise<unknown> {
    this.#shutDown = true;
    for (const task of this.#tasks.values()) {
      if (task.terminal) continue;
      this.#end(task, "cancelled", "Server is shutting down");
    }
    this.#calls.abortAll("shutdown", new DOMException("Server is shutting down", "AbortError"));
    return this.#calls.settledAll();
  }

  /** Stops the timers; tasks are dropped. */
  dispose(): void {
    this.#timer.stop();
    this.#calls.dispose();
  }

  #settle(task: Task, outcome: Outcome): void {
    this.#calls.close(task.call);
    // Cancelled, shut down or expired meanwhile: what the handler produced is dropped.
    if (task.terminal || this.#tasks.get(task.id) !== task) return;
    // Tasks exist only in the stateless era.
    const done = outcomeForEra(outcome, "stateless");
    if (done.kind === "none") return this.#end(task, "cancelled", "Cancelled");
    // A task's asker (_task_asker.ts) waits for tasks/update instead of pausing the call.
    if (done.kind === "input_required") return this.#end(task, "failed", "A task cannot pause to ask its client");
    if (done.kind === "error") {
      task.error = done.error;
      return this.#end(task, "failed", done.error.message);
    }
    let json: string;
    try {
      json = JSON.stringify(done.result);
    } catch (err) {
      this.#log(`result of task ${task.id} cannot be serialised: ${String(err)}`);
      task.error = { code: ErrorCode.internalError, message: "Internal error: the result cannot be serialised" };
      return this.#end(task, "failed", task.error.message);
    }
    const size = encoder.encode(json).length;
    const limit = this.#limits.maxMessageBytes;
    if (size + ENVELOPE_BYTES > limit) {
      this.#log(`result of task ${task.id} (${size} bytes) not kept: over maxMessageBytes ${limit}`);
      task.error = {
        code: ErrorCode.internalError,
        message: `Reply too large: ${size} bytes exceeds the limit of ${limit} bytes (maxMessageBytes)`,
        data: { size, limit },
      };
      return this.#end(task, "failed", task.error.message);
    }
    const budget = this.#limits.maxBytes;
    if (this.#heldBytes + size > budget) {
      this.#log(`result of task ${task.id} (${size} bytes) not kept: task results would pass maxTaskBytes ${budget}`);
      task.error = {
        code: ErrorCode.internalError,
        message:
          `Server busy: task results already hold ${this.#heldBytes} of ${budget} bytes (maxTaskBytes); retry later`,
        data: { reason: "server_busy", retryable: true, limit: budget },
      };
      return this.#end(task, "failed", task.error.message);
    }
    this.#heldBytes += size;
    task.resultJson = json;
    task.resultBytes = size;
    this.#end(task, "completed", undefined);
  }

  #end(task: Task, status: TaskStatus, message: string | undefined): void {
    task.statusMessage = message;
    this.#touch(task, status);
    const reason = new DOMException(message ?? "Task ended", "AbortError");
    for (const pending of task.inputs.values()) pending.reject(reason);
    task.inputs.clear();
  }

  #touch(task: Task, status: TaskStatus): void {
    task.status = status;
    task.lastUpdatedAt = Date.now();
  }

  #free(task: Task): void {
    this.#tasks.delete(task.id);
    this.#expired.push(task.id);
    if (this.#expired.length > REMEMBERED_EXPIRED) this.#expired.shift();
    this.#heldBytes -= task.resultBytes;
    task.resultJson = undefined;
    task.resultBytes = 0;
    if (!task.terminal) {
      this.#calls.timeOut(task.id);
      this.#end(task, "cancelled", "Task expired");
    }
  }

  /**
   * Makes room in a full table by freeing the oldest task the client is done
   * with: one it cancelled, or one whose end it has already been told. Tasks
   * still running, or whose outcome nobody has read, are kept.
   */
  #evictOne(): void {
    for (const task of this.#tasks.values()) {
      if (task.terminal && (task.seenEnded || task.statusMessage === CANCELLED_BY_CLIENT)) return this.#free(task);
    }
  }

  /** Frees every task past its TTL at `now`; returns the next task's expiry. */
  #sweep(now: number): number {
    let next = Infinity;
    for (const task of [...this.#tasks.values()]) {
      if (task.expiresAt <= now) this.#free(task);
      else if (task.expiresAt < next) next = task.expiresAt;
    }
    return next;
  }
}

const encoder = new TextEncoder();
