// What a message may cost to parse beyond its size: a scan of its bytes that
// builds nothing, so that a frame nested or wide enough to hurt JSON.parse
// is refused before it is parsed.

import { closingQuote, isKey } from "./_large_line.ts";

/** What one message may cost to parse beyond its size: the limits of its shape. */
export interface ShapeLimits {
  /** The deepest nesting of arrays and objects. */
  maxDepth: number;
  /** The most arrays and objects in all. */
  maxContainers: number;
  /** The most values: array items, object keys and object values, counted by the commas and colons between them. */
  maxValues: number;
  /**
   * The longest object key, in bytes as sent (between its quotes, escapes
   * as written); `Infinity` for no bound.
   */
  maxKeyBytes: number;
}

/**
 * Which shape limit the JSON text in `bytes` breaks, found by a scan that
 * builds nothing, before `JSON.parse` would materialise it: nesting of arrays
 * and objects deeper than `maxDepth`, more than `maxContainers` arrays and
 * objects in all, or more than `maxValues` commas and colons (each separates
 * two values, or a key from its value), or an object key longer than
 * `maxKeyBytes`. Brackets and separators inside strings do not count. A text
 * too short to break any limit is not scanned.
 */
export function shapeOverLimit(bytes: Uint8Array, limits: ShapeLimits): keyof ShapeLimits | undefined {
  const { maxDepth, maxContainers, maxValues, maxKeyBytes } = limits;
  // Each container takes two bytes at least ("[]"), each separator one, a key its quotes.
  if (
    bytes.length <= maxDepth && bytes.length <= 2 * maxContainers && bytes.length <= maxValues &&
    bytes.length <= maxKeyBytes + 2
  ) return undefined;
  let depth = 0;
  let containers = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      const close = closingQuote(bytes, i);
      if (close === -1) return undefined;
      if (close - i - 1 > maxKeyBytes && isKey(bytes, close)) return "maxKeyBytes";
      i = close;
    } else if (b === 0x2c || b === 0x3a) {
      if (++values > maxValues) return "maxValues";
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > maxDepth) return "maxDepth";
      if (++containers > maxContainers) return "maxContainers";
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return undefined;
}

const QUOTE = 0x22;
