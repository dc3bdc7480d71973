// JSON-RPC batches. Only protocol version 2025-03-26 carries them over stdio;
// there each item is handled as if it came alone and the replies go back in
// one array, once every item has its reply.

import { BATCH_VERSION } from "./_era.ts";
import type { JsonParts } from "./_json_parts.ts";
import { classify, encodeError, ErrorCode, type Message } from "./_jsonrpc.ts";

/** A frame as sent: a string, or a large reply in pieces. */
export type Outgoing = string | JsonParts;

/** A reply to one message: a frame, nothing, or a frame once a call settles. */
export type Reply = Outgoing | undefined | Promise<Outgoing | undefined>;

/** The reply to a batch under the negotiated `version`, with `handle` answering each item. */
export function batchReply(version: string | undefined, items: unknown[], handle: (msg: Message) => Reply): Reply {
  if (version !== BATCH_VERSION) {
    return encodeError(null, {
      code: ErrorCode.invalidRequest,
      message: `Invalid request: JSON-RPC batches are not part of protocol version ${
        version ?? "none negotiated"
      }; send one message per line`,
    });
  }
  const replies = items.map((item) => handle(classify(item)));
  return Promise.all(replies).then((all) => {
    // A batch is answered as one array: its large replies are joined here.
    const frames = all.filter((r) => r !== undefined).map(String);
    return frames.length === 0 ? undefined : `[${frames.join(",")}]`;
  });
}
