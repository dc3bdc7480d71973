import { parseConfigText } from "./_parse_text.ts";
import { expand } from "./expand.ts";

const NO_ENV = { get: (): undefined => undefined };

/**
 * Lists the environment variables a config file references, without reading
 * any of them: what a launcher needs to grant `--allow-env=NAMES`.
 *
 * @param content The file's bytes or text (JSONC, UTF-8, an optional BOM).
 * @returns The names, sorted, without repeats.
 * @throws {SyntaxError} When the content is not UTF-8 JSONC, or holds more
 *   than the loader's default `maxDepth` (64) or `maxValues` (100,000).
 * @throws {RangeError} When it holds more than the loader's default
 *   `maxReferences` (10,000) `${`.
 *
 * @example List the variables to allow
 * ```ts
 * import { configVariables } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * const text = '{ "roots": ["${DATA_DIR}/in", "${DATA_DIR}/out"], "token": "${API_TOKEN}" }';
 * assert.deepEqual(configVariables(text), ["API_TOKEN", "DATA_DIR"]);
 * ```
 */
export function configVariables(content: Uint8Array | string): string[] {
  return [...expand(parseConfigText(content), { env: NO_ENV }).names];
}
