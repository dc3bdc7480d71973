// One tools/call as the dispatcher hands it to runCall(). Its Call (the
// owner of its AbortController and of its place in the table) is made when
// something first needs it: the handler reads `signal` or returns a promise,
// the call fails, or it reports progress. A synchronous handler that needs
// none of that, most calls, costs no Call; and what the call reads of its
// stream only on demand (its client, how to ask that client) comes from one
// origin shared by every call, not from closures made for each.

import type { Asker } from "./_asker.ts";
import type { CallInput, CallOrigin } from "./_call.ts";
import type { Call, CallTable } from "./_calls.ts";
import type { Envelope } from "./_era.ts";
import type { StateBody } from "./_request_state.ts";
import { type Id, publicId, publicMeta } from "./id.ts";
import type { Entry } from "../toolkit/registry.ts";
import type { Middleware } from "../toolkit/middleware.ts";
import type { ToolRequest } from "../toolkit/tool.ts";

/** A call as one stream runs it, with what its origin makes the call's client and asker from. */
export class DispatchedCall implements CallInput {
  readonly entry: Entry;
  readonly args: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
  readonly id: string | number;
  readonly middleware: readonly Middleware[];
  readonly progress: ToolRequest["progress"];
  readonly log: (line: string) => void;
  readonly origin: CallOrigin;
  asker: Asker | undefined;
  /** The request's id as it came (an exact number as such), the key of its call in the table. */
  readonly key: Id;
  /** The era the request was sent in, with a 2026-07-28 client's name and capabilities. */
  readonly envelope: Envelope;
  /** A 2026-07-28 call's `inputResponses`, if it brought any. */
  readonly responses: unknown;
  /** The state a 2026-07-28 retry brought, once opened. */
  readonly state: StateBody | undefined;
  /** The digest of the arguments, shared with the check of that state. */
  readonly argsDigest: (() => Promise<string>) | undefined;
  readonly #table: CallTable;
  readonly #timeoutMs: number;
  #call: Call | undefined;

  /**
   * `call` is given when it must exist before the handler runs (a task's, a
   * call that reports progress or whose state is checked first); otherwise
   * it is made from `table` when first needed, with `timeoutMs`.
   */
  constructor(
    key: Id,
    entry: Entry,
    args: Record<string, unknown>,
    meta: Record<string, unknown>,
    envelope: Envelope,
    table: CallTable,
    timeoutMs: number,
    call: Call | undefined,
    progress: ToolRequest["progress"],
    middleware: readonly Middleware[],
    log: (line: string) => void,
    origin: CallOrigin,
    asker: Asker | undefined,
    rounds: { responses: unknown; state?: StateBody; argsDigest?: () => Promise<string> } | undefined,
  ) {
    this.key = key;
    this.entry = entry;
    this.args = args;
    this.meta = publicMeta(meta);
    this.id = publicId(key);
    this.envelope = envelope;
    this.#table = table;
    this.#timeoutMs = timeoutMs;
    this.#call = call;
    this.progress = progress;
    this.middleware = middleware;
    this.log = log;
    this.origin = origin;
    this.asker = asker;
    this.responses = rounds?.responses;
    this.state = rounds?.state;
    this.argsDigest = rounds?.argsDigest;
  }

  /** The call, made now if it was not yet: not entered in its table (the dispatcher enters it when it waits). */
  get call(): Call {
    return this.#call ??= this.#table.create(this.key, this.#timeoutMs);
  }

  /** The call if it was made, for closing it once answered; undefined if nothing needed one. */
  get made(): Call | undefined {
    return this.#call;
  }
}
