import { type JsoncLimits, parseJsonc } from "./_jsonc.ts";

/** How deep a config document may nest unless the caller says otherwise. */
export const MAX_DEPTH = 64;

/**
 * How many values (arrays, objects, strings, numbers, booleans, nulls) a
 * config document may hold unless the caller says otherwise.
 */
export const MAX_VALUES = 100_000;

/**
 * Decodes a config file (UTF-8, an optional BOM) and parses it as JSONC.
 *
 * @throws {SyntaxError} When the bytes are not UTF-8 or the text is not JSONC.
 */
export function parseConfigText(
  content: Uint8Array | string,
  limits: Partial<JsoncLimits> = {},
): unknown {
  let text: string;
  if (typeof content === "string") {
    text = content.startsWith("\uFEFF") ? content.slice(1) : content;
  } else {
    try {
      // fatal: invalid bytes are an error, not U+FFFD; the decoder drops a BOM.
      text = new TextDecoder("utf-8", { fatal: true }).decode(content);
    } catch {
      throw new SyntaxError("Cannot parse config: the file is not UTF-8 text");
    }
  }
  if (text.trim() === "") throw new SyntaxError("Cannot parse config: the file is empty");
  return parseJsonc(text, { maxDepth: limits.maxDepth ?? MAX_DEPTH, maxValues: limits.maxValues ?? MAX_VALUES });
}
