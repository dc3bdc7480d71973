// One tools/call as the dispatcher hands it to runCall(). Its Call (the
// owner of its AbortController and of its place in the table) is made when
// something first needs it: the handler reads `signal` or returns a promise,
// the call fails, or it reports progress. A synchronous handler that needs
// none of that, most calls, costs no Call; what every call of the stream
// shares (how a Call is made, the middleware, the log, the origin that makes
// a call's asker on demand) is one object, not fields copied into each. The client
// object is made at dispatch, as the session stands then.

import type { Asker } from "./_asker.ts";
import type { CallInput, CallOrigin } from "./_call.ts";
import type { Call } from "./_calls.ts";
import type { Envelope } from "./_era.ts";
import type { StateBody } from "./_request_state.ts";
import { type Id, publicMeta } from "./id.ts";
import type { Entry } from "../toolkit/registry.ts";
import type { Middleware } from "../toolkit/middleware.ts";
import type { ClientInfo, ToolRequest } from "../toolkit/tool.ts";

/** What the calls of one stream share. */
export interface CallStream {
  /** A call of `entry` under `key`, with its deadline, not in the table yet (the dispatcher enters it when it waits). */
  newCall(key: Id, entry: Entry): Call;
  readonly middleware: readonly Middleware[];
  readonly log: (line: string) => void;
  readonly origin: CallOrigin;
  /** The client a call sent in `envelope` is served for: a new object each time (a handler may change its own). */
  clientOf(envelope: Envelope): ClientInfo;
}

/** What a 2026-07-28 call brought back: its `inputResponses` and, on a retry, the state it carried, opened. */
export interface Rounds {
  responses: unknown;
  state?: StateBody;
  /** The digest of the arguments, shared with the check of that state. */
  argsDigest?: () => Promise<string>;
}

/** A call as one stream runs it, with what its origin makes the call's client and asker from. */
export class DispatchedCall implements CallInput {
  readonly entry: Entry;
  readonly args: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
  /** The client as the call was dispatched: a later `initialize` does not change the one a waiting call sees. */
  readonly client: ClientInfo;
  readonly progress: ToolRequest["progress"];
  asker: Asker | undefined;
  /** The request's id as it came (an exact number as such), the key of its call in the table. */
  readonly key: Id;
  /** The era the request was sent in, with a 2026-07-28 client's information and capabilities. */
  readonly envelope: Envelope;
  /** What a 2026-07-28 call brought back for its questions, if anything. */
  readonly rounds: Rounds | undefined;
  readonly #stream: CallStream;
  #call: Call | undefined;

  /**
   * `call` is given when it must exist before the handler runs (a task's, a
   * call that reports progress or whose state is checked first); otherwise
   * it is made from the stream's table when first needed.
   */
  constructor(
    stream: CallStream,
    key: Id,
    entry: Entry,
    args: Record<string, unknown>,
    meta: Record<string, unknown>,
    envelope: Envelope,
    call: Call | undefined,
    progress: ToolRequest["progress"],
    asker: Asker | undefined,
    rounds: Rounds | undefined,
  ) {
    this.#stream = stream;
    this.key = key;
    this.entry = entry;
    this.args = args;
    this.meta = publicMeta(meta);
    this.envelope = envelope;
    this.client = stream.clientOf(envelope);
    this.#call = call;
    this.progress = progress;
    this.asker = asker;
    this.rounds = rounds;
  }

  /**
   * The id as the call's middleware see it: as its reply carries it, an exact
   * number as such (never its text, a string another call's id could equal).
   */
  get id(): Id {
    return this.key;
  }

  get middleware(): readonly Middleware[] {
    return this.#stream.middleware;
  }

  get log(): (line: string) => void {
    return this.#stream.log;
  }

  get origin(): CallOrigin {
    return this.#stream.origin;
  }

  /** The call, made now if it was not yet: not entered in its table (the dispatcher enters it when it waits). */
  get call(): Call {
    return this.#call ??= this.#stream.newCall(this.key, this.entry);
  }

  /** The call if it was made, for closing it once answered; undefined if nothing needed one. */
  get made(): Call | undefined {
    return this.#call;
  }
}
