// JSON-RPC batches. Only protocol version 2025-03-26 carries them over stdio;
// there each item is handled as if it came alone and the replies go back in
// one array, once every item has its reply. That array is one line, so it is
// bounded like any reply: at most MAX_BATCH_ITEMS items (two bytes of input,
// `1,`, would otherwise buy a reply of a hundred), and replies counted as they
// settle so that the array fits in maxMessageBytes.

import { BATCH_VERSION } from "./_era.ts";
import type { JsonParts } from "./json_parts.ts";
import { classify, encodeError, ErrorCode, type Id, type Message } from "./jsonrpc.ts";
import { utf8Length } from "../internal/utf8_length.ts";

/** A frame as sent: a string, or a large reply in pieces. */
export type Outgoing = string | JsonParts;

/** A reply to one message: a frame, nothing, or a frame once a call settles. */
export type Reply = Outgoing | undefined | Promise<Outgoing | undefined>;

/** The most items one batch may hold: as many as calls may be in flight by default. */
export const MAX_BATCH_ITEMS = 1024;

/**
 * The reply to a batch under the negotiated `version`, with `handle` answering
 * each item, in one array of at most `maxBytes` bytes: a reply that would take
 * the array past it is answered `Reply too large` instead, so every request
 * still gets one answer.
 */
export function batchReply(
  version: string | undefined,
  items: unknown[],
  handle: (msg: Message) => Reply,
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
  // Room for the replies, their commas and the brackets.
  let room = maxBytes - 2;
  const fit = (id: Id | null, reply: Outgoing | undefined): string | undefined => {
    if (reply === undefined) return undefined;
    const bytes = typeof reply === "string" ? utf8Length(reply) : reply.bytes();
    const kept = bytes + 1 <= room ? String(reply) : encodeError(id, {
      code: ErrorCode.internalError,
      message: `Reply too large: ${bytes} bytes would take the batch's reply past ${maxBytes} bytes (maxMessageBytes)`,
      data: { size: bytes, limit: maxBytes },
    });
    room -= utf8Length(kept) + 1;
    return kept;
  };
  const replies = items.map((item) => {
    const msg = classify(item);
    const id = msg.kind === "request" || msg.kind === "invalid" ? msg.id : null;
    const reply = handle(msg);
    return reply instanceof Promise ? reply.then((r) => fit(id, r)) : fit(id, reply);
  });
  return Promise.all(replies).then((all) => {
    const frames = all.filter((r) => r !== undefined);
    return frames.length === 0 ? undefined : `[${frames.join(",")}]`;
  });
}
