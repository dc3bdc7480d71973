// Requests this server sends its client in the initialize era
// (`elicitation/create`, `roots/list`, `sampling/createMessage`), and the
// matching of the client's responses, which arrive on stdin among its own
// requests. Each waits within its call's AbortSignal (deadline, cancellation,
// shutdown) and no longer than its call is open (a question its handler did
// not await when the call answered): an abandoned request is forgotten, the
// client is told with `notifications/cancelled`, and a late response is dropped.

import { type Asker, type AskMethod, CAPABILITY, declares, rootsAnswer } from "./_asker.ts";
import { encodeNotification, type ResponseMessage } from "./jsonrpc.ts";
import { rpcErrorText } from "./_rpc_error_text.ts";
import type { Id } from "./id.ts";
import { MissingCapabilityError } from "../toolkit/missing_capability_error.ts";
import { ToolError } from "../internal/tool_error.ts";
import { questionFailure } from "./_uncaught_questions.ts";

/** The most requests to the client that may wait for an answer at once, per stream. */
export const MAX_PENDING = 64;

interface Pending {
  method: AskMethod;
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
  admit: Admit | undefined;
  owner: Owner | undefined;
}

/** What asks (a tool call): its requests may wait only while it is open, and {@linkcode ClientRequests.endOwner} ends them. */
export interface Owner {
  /** False once the call has its outcome. */
  readonly open: boolean;
}

const CALL_ENDED = "the tool call that asked has ended";

// A handler that never awaited the question (it dropped the promise) would otherwise have its rejection end the
// process as unhandled: such a rejection is said on stderr when the call ends (see the dispatcher), not again.
function callEnded(method: AskMethod): ToolError {
  return questionFailure(new ToolError(`Cannot get the client's answer to ${method}: ${CALL_ENDED}`));
}

/**
 * Asked before a client's result reaches the handler that waits for it (which
 * may keep it until it ends): undefined lets it through, counted against what
 * the handler's call holds; a problem refuses it, and the question fails with it.
 */
export type Admit = (result: unknown) => string | undefined;

/** The requests in flight to the client of one stream. */
export class ClientRequests {
  readonly #send: (frame: string) => void;
  readonly #pending = new Map<string, Pending>();
  // How many requests each owner has waiting: an owner with none is not here, and ending it costs a lookup.
  readonly #owners = new Map<Owner, number>();
  #next = 0;
  // Why no request may go out any more, once abandonAll() said so.
  #ended: string | undefined;

  constructor(send: (frame: string) => void) {
    this.#send = send;
  }

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Sends a request and resolves with the client's result; rejects on its
   * error, when `signal` fires, when `admit` refuses the result, or when
   * `owner` ends first ({@linkcode ClientRequests.endOwner}; an owner no
   * longer open is refused at once).
   */
  request(
    method: AskMethod,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    admit?: Admit,
    owner?: Owner,
  ): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#ended !== undefined) {
      return Promise.reject(new ToolError(`Cannot get the client's answer to ${method}: ${this.#ended}`));
    }
    if (owner !== undefined && !owner.open) return Promise.reject(callEnded(method));
    if (this.#pending.size >= MAX_PENDING) {
      return Promise.reject(
        new ToolError(`Cannot send ${method} to the client: ${MAX_PENDING} requests already wait for its answers`),
      );
    }
    // Our own id space: the client's request ids are another namespace, and a prefix keeps logs readable.
    const id = `forge-${++this.#next}`;
    return new Promise((resolve, reject) => {
      const abandon = () => {
        if (this.#take(id) === undefined) return;
        this.#send(encodeNotification("notifications/cancelled", { requestId: id, reason: "the tool call ended" }));
        reject(signal.reason);
      };
      signal.addEventListener("abort", abandon, { once: true });
      const done = () => signal.removeEventListener("abort", abandon);
      this.#pending.set(id, {
        method,
        resolve: (result) => (done(), resolve(result)),
        reject: (err) => (done(), reject(err)),
        admit,
        owner,
      });
      if (owner !== undefined) this.#owners.set(owner, (this.#owners.get(owner) ?? 0) + 1);
      const request = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
      this.#send(JSON.stringify(request));
    });
  }

  /**
   * Fails every request that waits, as no answer can come any more (the
   * server reads no more input): the client is told with
   * `notifications/cancelled`, and each handler hears why at once instead of
   * waiting out the shutdown's grace period. A request made after is
   * refused the same way.
   */
  abandonAll(problem: string): void {
    this.#ended = problem;
    for (const [id, pending] of this.#pending) {
      this.#take(id);
      this.#send(encodeNotification("notifications/cancelled", { requestId: id, reason: problem }));
      pending.reject(new ToolError(`Cannot get the client's answer to ${pending.method}: ${problem}`));
    }
  }

  /** Fails the request `id`, if one of ours waits, because its response could not be read: `problem` says why. */
  refuse(id: Id, problem: string): void {
    if (typeof id !== "string") return;
    const pending = this.#take(id);
    if (pending === undefined) return;
    pending.reject(new ToolError(`Cannot get the client's answer to ${pending.method}: ${problem}`));
  }

  /**
   * Fails the requests `owner` still has waiting, as it has ended (a tool
   * call answered while its handler had not awaited them): the client is
   * told with `notifications/cancelled`, a late response is dropped, and each
   * question rejects with a ToolError saying the call has ended. Returns how
   * many there were.
   */
  endOwner(owner: Owner): number {
    const count = this.#owners.get(owner);
    if (count === undefined) return 0;
    for (const [id, pending] of this.#pending) {
      if (pending.owner !== owner) continue;
      this.#take(id);
      this.#send(encodeNotification("notifications/cancelled", { requestId: id, reason: CALL_ENDED }));
      pending.reject(callEnded(pending.method));
    }
    return count;
  }

  /** Removes the request `id` from those waiting, and from its owner's count. */
  #take(id: string): Pending | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    const owner = pending.owner;
    if (owner !== undefined) {
      const left = this.#owners.get(owner)! - 1;
      if (left === 0) this.#owners.delete(owner);
      else this.#owners.set(owner, left);
    }
    return pending;
  }

  /**
   * Routes a response from the client: its result resolves the request, its
   * error or the problem that makes it unreadable rejects it. One for no
   * request of ours is dropped.
   */
  settle(id: Id | null, response: Pick<ResponseMessage, "result" | "error" | "problem">): void {
    if (typeof id !== "string") return;
    const pending = this.#take(id);
    if (pending === undefined) return;
    const { error, problem } = response;
    if (problem !== undefined) {
      pending.reject(
        new ToolError(`Cannot get the client's answer to ${pending.method}: its response is malformed (${problem})`),
      );
      return;
    }
    if (error === undefined) {
      const refused = pending.admit?.(response.result);
      if (refused === undefined) pending.resolve(response.result);
      else pending.reject(new ToolError(`Cannot get the client's answer to ${pending.method}: ${refused}`));
      return;
    }
    pending.reject(
      new ToolError(`Cannot get the client's answer to ${pending.method}: it answered with ${rpcErrorText(error)}`),
    );
  }
}

/** The initialize-era state an asker reads: the version and capabilities `initialize` settled, and the roots cache. */
export interface HandshakeState {
  /** The protocol version `initialize` settled on (undefined before it). */
  readonly version: string | undefined;
  readonly capabilities: Record<string, unknown> | undefined;
  /** The client's last answer to `roots/list`, until it says the roots changed. */
  roots: unknown;
  /** Counts `notifications/roots/list_changed`, so an answer asked before one is not kept after it. */
  readonly rootsGeneration: number;
  /**
   * Until the client sent `notifications/initialized` after `initialize`, a
   * wait for it (no request may go out before) that a call's signal ends
   * (a rejection) or the call's end (false, for a question its handler left
   * waiting); undefined after.
   */
  readonly initialized: ((signal: AbortSignal, owner?: Owner) => Promise<boolean>) | undefined;
}

/** The asker of one call in the initialize era. */
export class SessionAsker implements Asker {
  readonly era = "session";
  readonly #requests: ClientRequests;
  readonly #client: HandshakeState;
  readonly #signal: AbortSignal;
  readonly #admit: Admit | undefined;
  readonly #owner: Owner | undefined;

  /**
   * `admit` is asked before each of the client's results reaches the
   * handler (see {@linkcode Admit}); `owner` is the call, whose questions
   * wait no longer than it is open.
   */
  constructor(requests: ClientRequests, client: HandshakeState, signal: AbortSignal, admit?: Admit, owner?: Owner) {
    this.#requests = requests;
    this.#client = client;
    this.#signal = signal;
    this.#admit = admit;
    this.#owner = owner;
  }

  /** The version the session settled on: a form is checked against its rules. */
  get version(): string | undefined {
    return this.#client.version;
  }

  async ask(
    method: AskMethod,
    params: Record<string, unknown> | undefined,
    _key?: string,
    ready?: Promise<unknown>,
  ): Promise<unknown> {
    if (!declares(this.#client.capabilities, method)) throw new MissingCapabilityError(CAPABILITY[method], method);
    // The lifecycle forbids requests to a client that has not said `initialized`: the question waits for it.
    const initialized = this.#client.initialized;
    if (initialized !== undefined && !(await initialized(this.#signal, this.#owner))) throw callEnded(method);
    // A question that fails its check is never sent. Awaited after the wait above; a wait begun late is no longer held:
    // after the end of input it goes on at once, and the question is refused.
    if (ready !== undefined) await ready;
    if (method !== "roots/list") return this.#requests.request(method, params, this.#signal, this.#admit, this.#owner);
    // Roots change rarely and the client says when (notifications/roots/list_changed): a well-formed answer is kept
    // until then. Only an answer is shared, never a request in flight, whose wait belongs to one call's signal.
    const cached = this.#client.roots;
    if (cached !== undefined) return Promise.resolve(cached);
    const generation = this.#client.rootsGeneration;
    const asked = this.#requests.request(method, params, this.#signal, this.#admit, this.#owner);
    asked.then((answer) => {
      if (this.#client.rootsGeneration !== generation) return;
      // An answer of the wrong shape fails its call and is not kept: the next call asks again.
      try {
        rootsAnswer(answer);
      } catch {
        return;
      }
      this.#client.roots = answer;
    }, () => {});
    return asked;
  }
}
