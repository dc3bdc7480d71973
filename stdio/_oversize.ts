// The reply to a line over maxMessageBytes. The framer dropped the line as it
// streamed and kept only its first and last bytes, which is where a client's
// `"id"` usually is, so the error can still reach the request that caused it.

import type { OversizeFrame } from "./_frame.ts";
import { encodeError, ErrorCode } from "../engine/jsonrpc.ts";
import { peekId, peekIsResponse } from "../engine/peek_id.ts";
import type { Id } from "../engine/id.ts";

const lenient = new TextDecoder("utf-8", { fatal: false });

/** The JSON-RPC error for a line of `frame.size` bytes, naming `limit`. */
export function requestTooLargeReply(frame: OversizeFrame, limit: number): string {
  const id = peekId(lenient.decode(frame.head), lenient.decode(frame.tail));
  return encodeError(id, {
    code: ErrorCode.invalidRequest,
    message: `Message too large: ${frame.size} bytes exceeds the limit of ${limit} bytes (maxMessageBytes)`,
    data: { size: frame.size, limit },
  });
}

/**
 * The id of a line too large to parse that is a response (the client's
 * answer to a request this server sent), or undefined when it is not one: a
 * response is never answered, however large.
 */
export function oversizeResponseId(frame: OversizeFrame): { id: Id | null } | undefined {
  const head = lenient.decode(frame.head);
  return peekIsResponse(head) ? { id: peekId(head, lenient.decode(frame.tail)) } : undefined;
}
