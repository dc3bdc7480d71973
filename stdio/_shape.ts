// The refusal of a message whose shape would cost far more to parse than its
// size: nested deeper than maxDepth, holding more than maxContainers arrays and
// objects, more than maxValues values, or a key longer than maxKeyBytes (V8
// copies a key whole, twice when it arrived in pieces, before any check can
// see it). Where the line is long enough to hold more containers, values or
// key bytes than allowed, a scan of its bytes finds it
// before JSON.parse, so such a message is never materialised; the error
// carries the id when the line's first or last bytes show it. A shorter line
// cannot break those two limits and is parsed at once, and when it is long
// enough to be too deep its parsed value is walked: what it can build is
// bounded by its length.

import { KEEP_BYTES, type LineFrame, OVERSIZE_HEAD_BYTES, OVERSIZE_TAIL_BYTES } from "./_frame.ts";
import {
  encodeError,
  ErrorCode,
  type InvalidMessage,
  type ParsedFrame,
  parseFrame,
  parseText,
} from "../engine/jsonrpc.ts";
import { type Id, isId } from "../engine/id.ts";
import { peekId } from "../engine/peek_id.ts";
import { type ShapeLimits, shapeOverLimit } from "../engine/shape_limits.ts";

export type { ShapeLimits } from "../engine/shape_limits.ts";

/** A refused line: the JSON-RPC error to send and a line for the log. */
export interface ShapeRefusal {
  kind: "refused";
  reply: string;
  log: string;
}

const lenient = new TextDecoder("utf-8", { fatal: false });

/** The refusal of `bytes` when its shape breaks a limit, found by a scan of every byte; undefined when it may be parsed. */
export function shapeRefusal(bytes: Uint8Array, limits: ShapeLimits): ShapeRefusal | undefined {
  const name = shapeOverLimit(bytes, limits);
  if (name === undefined) return undefined;
  const head = lenient.decode(bytes.subarray(0, OVERSIZE_HEAD_BYTES));
  const tail = lenient.decode(bytes.subarray(Math.max(0, bytes.length - OVERSIZE_TAIL_BYTES)));
  return refusal(peekId(head, tail), name, limits[name], bytes.length);
}

/**
 * The JSON value in a line, parsed as {@linkcode parseFrame} does (from its
 * text when the framer has it), or the refusal of a line whose shape breaks a
 * limit. In valid JSON each container takes two bytes ("[]") and each
 * separator one beside a value of one byte, so a line of `n` bytes holds at
 * most `n / 2` levels, containers and values: the scan runs only on a line
 * long enough to break maxContainers or maxValues, and a line that could only
 * be too deep is walked once parsed (JSON.parse keeps no stack per level, so a
 * deep line costs it no more than its length). A line that does not parse gets
 * the scan's verdict, so it is answered as before whichever limit its brackets
 * break. `release` is called once the line's bytes are decoded.
 */
export function parseWithinShape(
  line: LineFrame,
  limits: ShapeLimits,
  release?: () => void,
): ParsedFrame | InvalidMessage | ShapeRefusal {
  const size = line.size;
  // Long enough to break maxContainers or maxValues, or longer than the framer keeps and long enough to hold a key
  // over maxKeyBytes: scanned before it is parsed, and answered by the scan. A shorter line that could hold such a
  // key is parsed first (it can hold at most 64 keys over the default limit) and its keys looked at below.
  const scanned = size > 2 * limits.maxContainers || size > 2 * limits.maxValues ||
    size > Math.max(limits.maxKeyBytes + 2, KEEP_BYTES);
  if (scanned) {
    const refused = shapeRefusal(line.bytes, limits);
    if (refused !== undefined) return refused;
  }
  const parsed = line.text !== undefined ? parseText(line.text) : parseFrame(line.bytes, undefined, release);
  if (scanned) return parsed;
  if (parsed.kind === "invalid") {
    // A line that does not parse is named by the limit its brackets break, if any, as a scan first would have;
    // unless its bytes were given back already (only a line longer than any the defaults let through).
    const bytes = line.bytes;
    return (bytes.length === size ? shapeRefusal(bytes, limits) : undefined) ?? parsed;
  }
  const keyed = size > limits.maxKeyBytes + 2;
  if (size <= 2 * limits.maxDepth && !keyed) return parsed;
  // A key of more than maxKeyBytes / 6 units may be over maxKeyBytes as sent (`\u0041` is six bytes for one unit):
  // the scan of the line's bytes decides, as it does for a longer line. Its bytes are still held: a line that could
  // hold such a key and was not scanned is no longer than KEEP_BYTES.
  const found = shapeOf(parsed.value, limits.maxDepth, keyed ? Math.floor(limits.maxKeyBytes / 6) : Infinity);
  if (found === "long key") return shapeRefusal(line.bytes, limits) ?? parsed;
  return found === "deep" ? refusal(idOf(parsed.value), "maxDepth", limits.maxDepth, size) : parsed;
}

/**
 * What a walk of `value` (without recursion) finds: a key longer than
 * `keyUnits` UTF-16 units (as soon as it meets one), else nesting of arrays
 * and objects more than `depthLimit` levels deep, else nothing (undefined).
 */
export function shapeOf(value: unknown, depthLimit: number, keyUnits: number): "long key" | "deep" | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  let deep = false;
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (depth > depthLimit) deep = true;
    const keyed = !Array.isArray(node);
    for (const key in node) {
      if (keyed && key.length > keyUnits) return "long key";
      const child = node[key];
      if (child !== null && typeof child === "object") {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return deep ? "deep" : undefined;
}

/** The id of a parsed message, when it has one a reply can carry. */
function idOf(value: unknown): Id | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return isId(id) ? id : null;
}

function refusal(id: Id | null, name: keyof ShapeLimits, limit: number | undefined, size: number): ShapeRefusal {
  const what = name === "maxDepth"
    ? `nested deeper than ${limit} levels`
    : name === "maxContainers"
    ? `more than ${limit} arrays and objects`
    : name === "maxKeyBytes"
    ? `an object key longer than ${limit} bytes`
    : `more than ${limit} values`;
  return {
    kind: "refused",
    reply: encodeError(id, {
      code: ErrorCode.invalidRequest,
      message: `Invalid request: ${what} (${name})`,
      data: { limit },
    }),
    log: `message of ${size} bytes refused: ${what} (${name})`,
  };
}
