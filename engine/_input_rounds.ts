// Questions in the 2026-07-28 era, where a server cannot send requests: the
// call answers `resultType: "input_required"` and the client retries it with
// `inputResponses` and the `requestState` it was given. The handler runs again
// from the start on every round, so straight-line code works: a question
// already answered (in an earlier round, kept in the sealed state, or in this
// request's `inputResponses`) resolves at once; the first unanswered ones
// pause the call. Questions are keyed by the name the handler gave them, else
// by their order in the run (`elicitation-1`, `roots-2`…), and matched with
// the digest of what was asked, so a handler that asks something else under
// that key is asked again.

import { type Clock, systemClock } from "../internal/clock.ts";
import { type Asker, type AskMethod, declares, missingCapability } from "./_asker.ts";
import { STATELESS_VERSION } from "./_era.ts";
import { digestOf, sealState, spendState, type StateBody } from "./_request_state.ts";

/** The most rounds of asking one call may take. */
export const MAX_ROUNDS = 8;
/** The most questions one round may leave unanswered. */
export const MAX_QUESTIONS_PER_ROUND = 16;

/** What an input-required result carries. */
export interface InputRequired {
  inputRequests: Record<string, { method: AskMethod; params?: Record<string, unknown> }>;
  requestState: string;
}

/** How one round of a call asks. */
export interface RoundsOptions {
  tool: string;
  /** The digest of the call's canonical arguments, computed only when a round is sealed. */
  argsDigest: () => Promise<string>;
  capabilities: Record<string, unknown>;
  /** The opened state of the retried request, if any. */
  state: StateBody | undefined;
  /** The retried request's `inputResponses`, if any. */
  responses: Record<string, unknown> | undefined;
  /** Pauses the call: called once, when the round's questions are sealed. */
  pause: (input: InputRequired) => void;
  /**
   * The call's signal: once it has fired for another reason than the pause
   * (cancelled, past its deadline, shutting down), a question rejects with its
   * reason instead of parking the handler, as a question of the initialize era
   * does, so that the handler ends and gives back its place.
   */
  signal?: AbortSignal;
  /**
   * Who asks a question that neither the state nor the responses answer,
   * instead of a new round: a task created after input-required rounds asks
   * its later questions as the task's inputRequests.
   */
  unanswered?: Asker;
  /** Where the round's timer runs: the system's, or a test's that moves time by hand. */
  clock?: Clock;
}

const SHORT: Record<AskMethod, string> = {
  "elicitation/create": "elicitation",
  "roots/list": "roots",
  "sampling/createMessage": "sampling",
};

interface Open {
  /** The question's place in the run: input requests are listed in this order whatever order digests finish in. */
  seq: number;
  method: AskMethod;
  params: Record<string, unknown> | undefined;
  q: string;
  reject: (err: unknown) => void;
}

/** The asker of one call in the 2026-07-28 era. */
export class InputRounds implements Asker {
  readonly era = "stateless";
  readonly version = STATELESS_VERSION;
  readonly #options: RoundsOptions;
  #seq = 0;
  #lookups = 0;
  #answered: StateBody["answers"] = {};
  #open = new Map<string, Open>();
  #timer: unknown;
  #paused = false;
  #asked: InputRequired | undefined;

  /** Spends the state this call was retried with (none on a first round, which has nothing to replay). */
  spend(): "ok" | "replayed" | "busy" {
    const state = this.#options.state;
    return state === undefined ? "ok" : spendState(state);
  }

  constructor(options: RoundsOptions) {
    this.#options = options;
  }

  /** What the call paused to ask, once a round is sealed. */
  get inputRequired(): InputRequired | undefined {
    return this.#asked;
  }

  async ask(
    method: AskMethod,
    params: Record<string, unknown> | undefined,
    named?: string,
    ready?: Promise<unknown>,
  ): Promise<unknown> {
    if (!declares(this.#options.capabilities, method)) throw missingCapability(method);
    if (this.#paused) return new Promise(() => {});
    this.#options.signal?.throwIfAborted();
    const seq = ++this.#seq;
    const key = named ?? `${SHORT[method]}-${seq}`;
    // A lookup until its check and digest are done: the round waits for it, and a question that fails its check
    // is never listed.
    this.#lookups++;
    let q: string;
    try {
      if (ready !== undefined) await ready;
      q = await digestOf({ method, params });
    } catch (err) {
      // The round's timer may have fired while this lookup held it back: the questions already open still need it.
      this.#lookups--;
      this.#schedule();
      throw err;
    }
    this.#lookups--;
    const { state, responses } = this.#options;
    const earlier = state?.answers[key];
    if (earlier !== undefined && earlier.q === q) {
      this.#answered[key] = earlier;
      this.#schedule();
      return earlier.a;
    }
    if (state?.asked[key] === q && responses !== undefined && Object.hasOwn(responses, key)) {
      const a = responses[key];
      this.#answered[key] = { q, a };
      this.#schedule();
      return a;
    }
    if (this.#options.unanswered !== undefined) return this.#options.unanswered.ask(method, params, named);
    // Ended while the question was digested: nothing will ever answer it, nor the ones asked with it.
    const signal = this.#options.signal;
    if (!this.#paused && signal?.aborted) {
      this.#abandon(signal.reason);
      throw signal.reason;
    }
    const round = (state?.round ?? 0) + 1;
    if (round > MAX_ROUNDS) {
      throw new RangeError(`Cannot ask the client: this call has asked in ${MAX_ROUNDS} rounds, the most one call may`);
    }
    if (this.#open.size >= MAX_QUESTIONS_PER_ROUND) {
      throw new RangeError(`Cannot ask the client: more than ${MAX_QUESTIONS_PER_ROUND} questions in one round`);
    }
    return new Promise((_resolve, reject) => {
      this.#open.set(key, { seq, method, params, q, reject });
      this.#schedule();
    });
  }

  /**
   * Pauses once nothing is being looked up and something is unanswered. A
   * timer, not a microtask: questions asked together (`Promise.all`) all
   * register before the round is sealed.
   */
  #schedule(): void {
    if (this.#timer !== undefined || this.#open.size === 0 || this.#paused) return;
    // V8's timer (internal/native_timer.ts): a handler's first question loads no node:timers. Its 1 ms is what
    // Node's setTimeout(0), the global one here, waits too.
    this.#timer = (this.#options.clock ?? systemClock).setTimer(() => {
      this.#timer = undefined;
      if (this.#lookups > 0) return;
      this.#seal();
    }, 1);
  }

  /** Rejects every open question with `reason`: the call ended without pausing. */
  #abandon(reason: unknown): void {
    const open = [...this.#open.values()];
    this.#open.clear();
    for (const { reject } of open) reject(reason);
  }

  async #seal(): Promise<void> {
    const open = [...this.#open].sort(([, a], [, b]) => a.seq - b.seq);
    // A call that ended before its round was sealed (a client that cancels as it calls) cannot pause: its
    // questions reject, and its handler ends instead of waiting for good on an answer no round will bring.
    const signal = this.#options.signal;
    if (signal?.aborted) return this.#abandon(signal.reason);
    this.#paused = true;
    const inputRequests: InputRequired["inputRequests"] = {};
    const asked: Record<string, string> = {};
    for (const [key, { method, params, q }] of open) {
      inputRequests[key] = params === undefined ? { method } : { method, params };
      asked[key] = q;
    }
    const { tool, argsDigest, state } = this.#options;
    try {
      const body = { round: (state?.round ?? 0) + 1, asked, answers: this.#answered };
      const requestState = await sealState(tool, await argsDigest(), body);
      this.#asked = { inputRequests, requestState };
      this.#options.pause(this.#asked);
    } catch (err) {
      for (const [, { reject }] of open) reject(err);
    }
  }
}
