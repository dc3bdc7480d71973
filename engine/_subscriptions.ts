// Who hears that the tool list changed: an initialize-era session once it initialized,
// and each open 2026-07-28 `subscriptions/listen` request until the client
// cancels it or the server shuts down.

import { META_SUBSCRIPTION } from "./_era.ts";
import { encodeNotification, ErrorCode } from "./jsonrpc.ts";
import { encodeErrorReply, encodeNoticeParts, encodeReply, type JsonParts } from "./json_parts.ts";
import type { Id } from "./id.ts";
import { IdMap } from "./id_map.ts";

/**
 * The most `subscriptions/listen` requests one stream keeps open. A client
 * needs one; each holds its id until it ends, so without a bound a client
 * could make the server hold any number of them.
 */
export const MAX_SUBSCRIPTIONS = 64;

/** The open `subscriptions/listen` requests of one stream. */
export class Subscriptions {
  readonly #send: (frame: string | JsonParts) => void;
  readonly #hold: (bytes: number) => void;
  // Each open subscription's id, with the bytes it was counted as holding; a long string id never hashed (IdMap: a
  // 60 MiB id with a € held open peaked at 355 MiB, 290 now).
  readonly #open = new IdMap<number>();

  /**
   * @param send Where frames go.
   * @param hold Told the bytes a subscription holds when it opens, and the same bytes negated when it ends.
   */
  constructor(send: (frame: string | JsonParts) => void, hold: (bytes: number) => void = () => {}) {
    this.#send = send;
    this.#hold = hold;
  }

  /**
   * Acknowledges a listen request. One that asks for tool list changes stays
   * open (no reply yet) or, past {@linkcode MAX_SUBSCRIPTIONS}, is refused as
   * busy; any other is complete at once. One that stays open holds `holds`
   * bytes until it ends.
   */
  listen(id: Id, params: Record<string, unknown> | undefined, holds = 0): string | JsonParts | undefined {
    const wanted = params?.notifications as Record<string, unknown> | undefined;
    const notifications = wanted?.toolsListChanged === true ? { toolsListChanged: true } : {};
    if (notifications.toolsListChanged && this.#open.size >= MAX_SUBSCRIPTIONS) {
      return encodeErrorReply(id, {
        code: ErrorCode.internalError,
        message: `Server busy: ${MAX_SUBSCRIPTIONS} subscriptions are open; cancel one first`,
        data: { reason: "server_busy", retryable: true, limit: MAX_SUBSCRIPTIONS },
      });
    }
    if (notifications.toolsListChanged) {
      this.#open.set(id, holds);
      this.#hold(holds);
    }
    this.#send(encodeNoticeParts("notifications/subscriptions/acknowledged", {
      notifications,
      _meta: { [META_SUBSCRIPTION]: id },
    }));
    if (notifications.toolsListChanged) return undefined;
    return complete(id);
  }

  /** Whether `id` is an open subscription's. */
  has(id: Id): boolean {
    return this.#open.size > 0 && this.#open.has(id);
  }

  /** Ends the subscription `id` silently, as a cancellation asks; false when there is none. */
  cancel(id: Id): boolean {
    const holds = this.#open.get(id);
    if (holds === undefined) return false;
    this.#open.delete(id);
    this.#hold(-holds);
    return true;
  }

  /** Tells every listener that the tool list changed. */
  toolsChanged(initialized: boolean): void {
    if (initialized) this.#send(encodeNotification("notifications/tools/list_changed"));
    for (const id of this.#open.keys()) {
      this.#send(encodeNoticeParts("notifications/tools/list_changed", { _meta: { [META_SUBSCRIPTION]: id } }));
    }
  }

  /** Completes every open subscription (at shutdown). */
  endAll(): void {
    for (const [id, holds] of this.#open) {
      this.#send(complete(id));
      this.#hold(-holds);
    }
    this.#open.clear();
  }
}

// Each frame that carries the id twice (the reply's and the subscription's) writes a long one as a large string is:
// quoted with JSON.stringify, one 60 MiB id with a € held 1.2 GiB by the time its subscription completed.
function complete(id: Id): string | JsonParts {
  return encodeReply(id, { resultType: "complete", _meta: { [META_SUBSCRIPTION]: id } });
}
