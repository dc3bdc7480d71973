// JSON-RPC batches. Only protocol version 2025-03-26 carries them over stdio;
// there each item is handled as if it came alone and the replies go back in
// one array, once every item has its reply. That array is one line, so it is
// bounded like any reply: at most MAX_BATCH_ITEMS items (two bytes of input,
// `1,`, would otherwise buy a reply of a hundred), and every item's answer
// given a place in maxMessageBytes before anything runs.

import { BATCH_VERSION } from "./_era.ts";
import { encodeErrorReply, frameBytes, JsonParts } from "./json_parts.ts";
import { classify, encodeError, ErrorCode, type InvalidMessage, type Message, type RequestMessage } from "./jsonrpc.ts";
import type { Id } from "./id.ts";
import { utf8Length } from "../internal/utf8_length.ts";

/** A frame as sent: a string, or a large reply in pieces. */
export type Outgoing = string | JsonParts;

/** A reply to one message: a frame, nothing, or a frame once a call settles. */
export type Reply = Outgoing | undefined | Promise<Outgoing | undefined>;

/** The most items one batch may hold: as many as calls may be in flight by default. */
export const MAX_BATCH_ITEMS = 1024;

/**
 * One request's share of a batch's reply: the bytes reserved for its
 * fallback answer, plus what is free in the batch. {@linkcode batchReply}
 * hands one to each item; the dispatcher builds a large result within
 * {@linkcode limit} and takes its place at once, so replies that finish
 * together cannot all be built against the same free room.
 */
export class BatchSlot {
  readonly #room: { free: number };
  readonly #fallback: Outgoing;
  readonly #reserved: number;
  #taken: Outgoing | undefined | null = null;

  constructor(room: { free: number }, fallback: Outgoing, reserved: number) {
    this.#room = room;
    this.#fallback = fallback;
    this.#reserved = reserved;
  }

  /** The most bytes this item's reply may take now (its comma excluded). */
  limit(): number {
    return this.#reserved - 1 + this.#room.free;
  }

  /**
   * Takes this item's place in the array: `reply` when it fits, else the
   * fallback error reserved for it, which always does. Later calls return
   * what the first took.
   */
  take(reply: Outgoing | undefined): Outgoing | undefined {
    if (this.#taken !== null) return this.#taken;
    if (reply === undefined) {
      this.#room.free += this.#reserved;
      return this.#taken = undefined;
    }
    const limit = this.limit();
    // A string has at least as many UTF-8 bytes as UTF-16 units: one longer than the limit is refused unread, so a
    // batch of items whose replies cannot fit costs no more than the replies that do.
    const bytes = typeof reply !== "string" ? reply.bytes() : reply.length > limit ? Infinity : utf8Length(reply);
    if (bytes <= limit) {
      this.#room.free -= bytes + 1 - this.#reserved;
      // Kept as it is: a reply in pieces (a long id, a large result) is joined into the array without a copy.
      return this.#taken = reply;
    }
    return this.#taken = this.#fallback;
  }
}

/**
 * The reply to a batch under the negotiated `version`, with `handle`
 * answering each item, in one array of at most `maxBytes` bytes by
 * construction: each request has the bytes of a short `Reply too large`
 * error with its id reserved before anything runs, and a reply that would
 * not fit in its reservation plus the room still free is answered with that
 * error, so every request gets one answer. A batch whose reservations alone
 * pass `maxBytes` (ids of megabytes) is refused whole, with one error.
 */
export function batchReply(
  version: string | undefined,
  items: unknown[],
  handle: (msg: Message, slot: BatchSlot) => Reply,
  maxBytes: number,
): Reply {
  if (version !== BATCH_VERSION) {
    return encodeError(null, {
      code: ErrorCode.invalidRequest,
      message: `Invalid request: JSON-RPC batches are not part of protocol version ${
        version ?? "none negotiated"
      }; send one message per line`,
    });
  }
  if (items.length > MAX_BATCH_ITEMS) {
    return encodeError(null, {
      code: ErrorCode.invalidRequest,
      message: `Invalid request: a batch of ${items.length} items; at most ${MAX_BATCH_ITEMS}`,
      data: { items: items.length, limit: MAX_BATCH_ITEMS },
    });
  }
  const messages = items.map(classify);
  const fallbacks = messages.map((msg) => answered(msg) ? tooLargeForBatch(msg.id, maxBytes) : undefined);
  // Each answer's bytes and its comma, and the brackets.
  const reserves = fallbacks.map((f) => f === undefined ? 0 : frameBytes(f) + 1);
  const reserved = reserves.reduce((sum, r) => sum + r, 1);
  if (reserved > maxBytes) {
    return encodeError(null, {
      code: ErrorCode.invalidRequest,
      message: `Invalid request: the answers to this batch cannot fit in one reply of ${maxBytes} bytes ` +
        "(maxMessageBytes), its ids alone take too much; send fewer requests or shorter ids",
      data: { limit: maxBytes },
    });
  }
  const room = { free: maxBytes - reserved };
  const replies = messages.map((msg, i) => {
    const slot = new BatchSlot(room, fallbacks[i] ?? "", reserves[i]);
    const reply = handle(msg, slot);
    return reply instanceof Promise ? reply.then((r) => slot.take(r)) : slot.take(reply);
  });
  return Promise.all(replies).then((all) => {
    const frames = all.filter((r) => r !== undefined);
    return frames.length === 0 ? undefined : JsonParts.array(frames);
  });
}

/** Whether a batch item gets an answer: a request, or an item that is not a valid message. */
function answered(msg: Message): msg is RequestMessage | InvalidMessage {
  return msg.kind === "request" || msg.kind === "invalid";
}

/** The answer a request gets when its reply does not fit in the batch's: short, with the request's id. */
export function tooLargeForBatch(id: Id | null, maxBytes: number): Outgoing {
  return encodeErrorReply(id, {
    code: ErrorCode.internalError,
    message: "Reply too large: it does not fit in the batch's reply (maxMessageBytes)",
    data: { limit: maxBytes },
  });
}
