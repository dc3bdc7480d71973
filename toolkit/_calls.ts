// The calls in flight, each with one AbortController and a deadline. One
// timer serves every deadline (armed for the earliest), because a timer per
// call costs more than the rest of a fast call put together.

/** Why a call's signal fired. */
export type AbortCause = "timeout" | "cancelled" | "shutdown";

/** One call in flight. */
export interface Call {
  readonly key: string | number;
  readonly controller: AbortController;
  readonly deadline: number;
  readonly timeoutMs: number;
  cause: AbortCause | undefined;
  /** Settles the call's outcome; set by the dispatcher. */
  settled: Promise<unknown>;
  /** Rejecters of the races waiting on this call; called on abort without EventTarget. */
  onAbort: ((reason: unknown) => void)[] | undefined;
}

/** The table of calls in flight, keyed by request id. */
export class CallTable {
  readonly #calls = new Map<string | number, Call>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;

  get size(): number {
    return this.#calls.size;
  }

  has(key: string | number): boolean {
    return this.#calls.has(key);
  }

  get(key: string | number): Call | undefined {
    return this.#calls.get(key);
  }

  /** Starts tracking a call; its signal fires with a TimeoutError at the deadline. */
  open(key: string | number, timeoutMs: number): Call {
    const deadline = performance.now() + timeoutMs;
    const call: Call = {
      key,
      controller: new AbortController(),
      deadline,
      timeoutMs,
      cause: undefined,
      settled: Promise.resolve(),
      onAbort: undefined,
    };
    this.#calls.set(key, call);
    if (deadline < this.#armedFor) this.#arm(deadline);
    return call;
  }

  /** Stops tracking a call. */
  close(call: Call): void {
    // The timer stays armed: re-arming per call is what one shared timer avoids.
    if (this.#calls.get(call.key) === call) this.#calls.delete(call.key);
  }

  /** Aborts one call, recording why. */
  abort(call: Call, cause: AbortCause, reason: unknown): void {
    if (call.controller.signal.aborted) return;
    call.cause = cause;
    call.controller.abort(reason);
    const hooks = call.onAbort;
    call.onAbort = undefined;
    if (hooks) { for (const hook of hooks) hook(reason); }
  }

  /** Aborts every call in flight. */
  abortAll(cause: AbortCause, reason: unknown): void {
    for (const call of [...this.#calls.values()]) this.abort(call, cause, reason);
  }

  /** Every call's outcome, for waiting on the calls in flight. */
  settledAll(): Promise<unknown[]> {
    return Promise.all([...this.#calls.values()].map((c) => c.settled));
  }

  /** Stops the deadline timer (at shutdown). */
  dispose(): void {
    this.#disarm();
  }

  #arm(at: number): void {
    this.#disarm();
    this.#armedFor = at;
    const timer = setTimeout(() => this.#sweep(), Math.max(0, at - performance.now()));
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  #sweep(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const call of this.#calls.values()) {
      if (call.controller.signal.aborted) continue;
      if (call.deadline <= now + 1) {
        const reason = new DOMException(`Tool call timed out after ${call.timeoutMs} ms`, "TimeoutError");
        this.abort(call, "timeout", reason);
      } else if (call.deadline < next) next = call.deadline;
    }
    if (next !== Infinity) this.#arm(next);
  }
}
