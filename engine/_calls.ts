// The calls in flight, each with one AbortController and a deadline. One
// timer serves every deadline (armed for the earliest), because a timer per
// call would be most of a fast call's cost (docs/benchmarks.md, "Figures
// behind the code"). A call's state
// changes only here: the table opens, tracks, aborts and closes it, and
// `race()` is the one way to wait on it. The table reads the time from a
// Clock, so its tests move time instead of waiting for it.
//
// A call enters the table (and its deadline starts) when it first waits: a
// handler that answers in the turn it was called can be neither cancelled nor
// timed out in between, so such a call costs no clock reading, no table entry
// and, unless its handler reads `signal`, no AbortController.
//
// A call counts against the table's `running` and `heldBytes` from when it
// enters until it is closed and the work it raced has settled: a cancelled
// or timed-out call frees its id and answers at once, but a handler that
// ignores its signal still runs and still holds its request and its reply's
// reservation, so it is counted until it ends.

import type { Id } from "./id.ts";
import { IdMap } from "./id_map.ts";
import { type Clock, systemClock } from "../internal/clock.ts";
import { DeadlineTimer } from "../internal/deadline_timer.ts";

/** Why a call's signal fired; `input` is a call paused to ask its client (2026-07-28). */
export type AbortCause = "timeout" | "cancelled" | "shutdown" | "input";

const NOTHING_PENDING: Promise<unknown> = Promise.resolve();

let abortCall: (call: Call, cause: AbortCause, reason: unknown) => void;
let closeCall: (call: Call) => void;
let trackCall: (call: Call, settled: Promise<unknown>) => void;
let settledOf: (call: Call) => Promise<unknown>;
let setDeadline: (call: Call, deadline: number) => void;
let countCall: (call: Call, holds: number) => void;
let uncountCall: (call: Call) => number;
let addHolds: (call: Call, bytes: number) => boolean;
let lingeringOf: (call: Call) => Promise<unknown> | undefined;

const ignore = (): void => {};

/** One call in flight; only {@linkcode CallTable} changes it. */
export class Call {
  /** The request id (a Map keeps 1 and "1" apart, as JSON-RPC does). */
  readonly key: Id;
  readonly timeoutMs: number;
  #deadline = Infinity;
  // Made when `signal` is first read, aborted at once if the call already was.
  #controller: AbortController | undefined = undefined;
  #cause: AbortCause | undefined = undefined;
  #reason: unknown = undefined;
  #open = true;
  #settled: Promise<unknown> = NOTHING_PENDING;
  // The races waiting on this call, each as its rejecter and the promise it
  // waits on: cheaper than an abort listener on the signal, which costs an
  // EventTarget round per call.
  #racers: unknown[] | undefined = undefined;
  // What the races an abort ended still wait on (a handler that ignores its signal): settled once they are.
  #lingering: Promise<unknown> | undefined = undefined;
  // What the call holds against its table's bytes, while it is counted; -1 when it is not.
  #holds = -1;

  constructor(key: Id, timeoutMs: number) {
    this.key = key;
    this.timeoutMs = timeoutMs;
  }

  /** When the call times out (a clock reading); Infinity until it entered its table. */
  get deadline(): number {
    return this.#deadline;
  }

  /** Fires at the deadline, on cancellation and at shutdown. */
  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = this.#controller = new AbortController();
      if (this.#cause !== undefined) controller.abort(this.#reason);
    }
    return controller.signal;
  }

  /** Why the signal fired; undefined while it has not. */
  get cause(): AbortCause | undefined {
    return this.#cause;
  }

  /** False once the call has its outcome. */
  get open(): boolean {
    return this.#open;
  }

  /** Settles with `promise`, or rejects with the abort reason as soon as the call is aborted. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.#cause !== undefined) {
      if (this.#cause !== "input") this.#linger(promise);
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      (this.#racers ??= []).push(reject, promise);
      promise.then(resolve, reject);
    });
  }

  #linger(promise: Promise<unknown>): void {
    const settled = promise.then(ignore, ignore);
    this.#lingering = this.#lingering === undefined ? settled : Promise.all([this.#lingering, settled]);
  }

  static {
    // The table's access to a call's state, kept out of the class's public face.
    abortCall = (call, cause, reason) => {
      if (call.#cause !== undefined) return;
      call.#cause = cause;
      call.#reason = reason;
      call.#controller?.abort(reason);
      const racers = call.#racers;
      call.#racers = undefined;
      if (racers === undefined) return;
      for (let i = 0; i < racers.length; i += 2) {
        (racers[i] as (reason: unknown) => void)(reason);
        // A call paused to ask has its handler parked for good on the question (it runs again from the start on
        // the retry, a new call): what it raced never settles, so waiting for it would hold the call's place forever.
        if (cause !== "input") call.#linger(racers[i + 1] as Promise<unknown>);
      }
    };
    closeCall = (call) => (call.#open = false);
    trackCall = (call, settled) => (call.#settled = settled);
    settledOf = (call) => call.#settled;
    setDeadline = (call, deadline) => (call.#deadline = deadline);
    countCall = (call, holds) => (call.#holds = holds);
    addHolds = (call, bytes) => {
      if (call.#holds < 0) return false;
      call.#holds += bytes;
      return true;
    };
    uncountCall = (call) => {
      const holds = call.#holds;
      call.#holds = -1;
      return holds;
    };
    lingeringOf = (call) => call.#lingering;
  }
}

/** The table of calls in flight, keyed by request id. */
export class CallTable {
  // By id, a long string id never hashed (IdMap): V8 copies a string made a Map key whole.
  readonly #calls = new IdMap<Call>();
  readonly #clock: Clock;
  readonly #timer: DeadlineTimer;
  #running = 0;
  #heldBytes = 0;
  #lingering = 0;

  /** A table whose deadlines run on `clock`. */
  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
    this.#timer = new DeadlineTimer(clock, (now) => this.#sweep(now));
  }

  /** The calls whose ids are in flight. */
  get size(): number {
    return this.#calls.size;
  }

  /**
   * The calls that entered and have not ended: closed, and the work they
   * raced settled. A cancelled or timed-out call whose handler ignores its
   * signal is counted until the handler ends, though its id is free.
   */
  get running(): number {
    return this.#running;
  }

  /** What the {@linkcode CallTable.running} calls hold together, as given to {@linkcode CallTable.enter}. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Of the {@linkcode CallTable.running} calls, those closed whose handlers still run (they ignored the signal). */
  get lingering(): number {
    return this.#lingering;
  }

  has(key: Id): boolean {
    return this.#calls.has(key);
  }

  /**
   * Starts tracking a call; its signal fires with a TimeoutError at the
   * deadline, `timeoutMs` from now unless given (`Infinity`: whoever opened
   * the call ends it with {@linkcode CallTable.timeOut}); it holds `holds`
   * bytes until it is closed and the work it raced has settled.
   */
  open(key: Id, timeoutMs: number, deadline?: number, holds = 0): Call {
    const call = this.create(key, timeoutMs);
    this.enter(call, deadline, holds);
    return call;
  }

  /**
   * A call not tracked yet: it can be raced and aborted, but neither
   * cancelled by its key nor timed out until it {@linkcode CallTable.enter}s
   * the table.
   */
  create(key: Id, timeoutMs: number): Call {
    return new Call(key, timeoutMs);
  }

  /**
   * Tracks a call made by {@linkcode CallTable.create} from now on: its key
   * finds it, and its deadline (`timeoutMs` from now unless given) starts. It
   * is counted as running, holding `holds` bytes, until it has ended.
   */
  enter(call: Call, deadline: number = this.#clock.now() + call.timeoutMs, holds = 0): void {
    setDeadline(call, deadline);
    countCall(call, holds);
    this.#running++;
    this.#heldBytes += holds;
    this.#calls.set(call.key, call);
    this.#timer.arm(deadline);
  }

  /**
   * Adds `bytes` to what a counted call holds until it has ended (a task's
   * handler given answers it may keep); nothing for a call no longer counted,
   * and false then.
   */
  hold(call: Call, bytes: number): boolean {
    if (!addHolds(call, bytes)) return false;
    this.#heldBytes += bytes;
    return true;
  }

  /** Records the promise that settles once the call's reply is ready, for {@linkcode settledAll}. */
  track(call: Call, settled: Promise<unknown>): void {
    trackCall(call, settled);
  }

  /** Stops tracking a call: it has its outcome. It stops counting once the work it raced has settled too. */
  close(call: Call): void {
    // The timer stays armed: re-arming per call is what one shared timer avoids.
    closeCall(call);
    if (this.#calls.get(call.key) === call) this.#calls.delete(call.key);
    const holds = uncountCall(call);
    if (holds < 0) return;
    const lingering = lingeringOf(call);
    if (lingering === undefined) return this.#release(holds);
    this.#lingering++;
    lingering.then(() => (this.#lingering--, this.#release(holds)));
  }

  #release(holds: number): void {
    this.#running--;
    this.#heldBytes -= holds;
  }

  /** Aborts the call in flight under `key`, if any, as its deadline does. */
  timeOut(key: Id): void {
    const call = this.#calls.get(key);
    if (call) abortCall(call, "timeout", timeoutReason(call));
  }

  /**
   * Aborts the call in flight under `key`, if any, as cancelled by the
   * client, and frees the key at once: a cancelled call sends no reply, so
   * the client may use its id again in its next message. A call aborted
   * before (timed out, paused) keeps its key until it answers.
   */
  cancel(key: Id, reason: unknown): void {
    const call = this.#calls.get(key);
    if (call === undefined) return;
    abortCall(call, "cancelled", reason);
    // close() removes only its own call: this one's, when it settles, leaves a new call under the key alone.
    if (call.cause === "cancelled") this.#calls.delete(key);
  }

  /**
   * Ends a call that paused to ask its client: its handler's signal fires
   * with an `InputRequiredError`, and the call answers with an input-required
   * result instead of waiting for the handler.
   */
  pause(call: Call): void {
    abortCall(call, "input", new DOMException("The call paused to ask the client for input", "InputRequiredError"));
  }

  /** Aborts every call in flight; a call aborted before keeps its first cause. */
  abortAll(cause: AbortCause, reason: unknown): void {
    for (const call of [...this.#calls.values()]) abortCall(call, cause, reason);
  }

  /** Every call's outcome, for waiting on the calls in flight. */
  settledAll(): Promise<unknown[]> {
    return Promise.all([...this.#calls.values()].map(settledOf));
  }

  /** Stops the deadline timer (at shutdown). */
  dispose(): void {
    this.#timer.stop();
  }

  /**
   * Times out the calls due by `now`; returns the next deadline. Never one due
   * later, even by 1 ms: a sweep runs at a sooner call's deadline or at a
   * wake-up a second apart (../internal/deadline_timer.ts), and V8's timer
   * does not fire before its time; if it did, the timer is armed again.
   */
  #sweep(now: number): number {
    let next = Infinity;
    for (const call of this.#calls.values()) {
      if (call.cause !== undefined) continue;
      if (call.deadline <= now) abortCall(call, "timeout", timeoutReason(call));
      else if (call.deadline < next) next = call.deadline;
    }
    return next;
  }
}

function timeoutReason(call: Call): DOMException {
  return new DOMException(`Tool call timed out after ${call.timeoutMs} ms`, "TimeoutError");
}
