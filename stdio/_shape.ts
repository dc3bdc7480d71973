// The refusal of a message whose shape would cost far more to parse than its
// size: nested deeper than maxDepth, holding more than maxContainers arrays and
// objects, or more than maxValues values. Found by a scan of the bytes before JSON.parse, so the message
// is never materialised; the error carries the id when the line's first or
// last bytes show it.

import { OVERSIZE_HEAD_BYTES, OVERSIZE_TAIL_BYTES } from "./_frame.ts";
import { encodeError, ErrorCode, peekId, type ShapeLimits, shapeOverLimit } from "../engine/jsonrpc.ts";

export type { ShapeLimits } from "../engine/jsonrpc.ts";

/** A refused line: the JSON-RPC error to send and a line for the log. */
export interface ShapeRefusal {
  reply: string;
  log: string;
}

const lenient = new TextDecoder("utf-8", { fatal: false });

/** The refusal of `bytes` when its shape breaks a limit; undefined when it may be parsed. */
export function shapeRefusal(bytes: Uint8Array, limits: ShapeLimits): ShapeRefusal | undefined {
  const name = shapeOverLimit(bytes, limits);
  if (name === undefined) return undefined;
  const limit = limits[name];
  const what = name === "maxDepth"
    ? `nested deeper than ${limit} levels`
    : name === "maxContainers"
    ? `more than ${limit} arrays and objects`
    : `more than ${limit} values`;
  const head = lenient.decode(bytes.subarray(0, OVERSIZE_HEAD_BYTES));
  const tail = lenient.decode(bytes.subarray(Math.max(0, bytes.length - OVERSIZE_TAIL_BYTES)));
  return {
    reply: encodeError(peekId(head, tail), {
      code: ErrorCode.invalidRequest,
      message: `Invalid request: ${what} (${name})`,
      data: { limit },
    }),
    log: `message of ${bytes.length} bytes refused: ${what} (${name})`,
  };
}
