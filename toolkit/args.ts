import { describeValue } from "../internal/describe_value.ts";
import { quote } from "../internal/quote.ts";
import { ArgumentError } from "../internal/tool_error.ts";
import type { ToolRequest } from "./tool.ts";

/** A tool call's arguments: always an object, possibly empty. */
export type Args = Readonly<Record<string, unknown>>;

/**
 * The arguments of a tool call, never null: `{}` when the client sent none.
 *
 * @param request The request the handler received.
 * @returns The arguments object.
 *
 * @example Read the arguments in a handler
 * ```ts
 * import { requestArgs, text, type ToolRequest } from "@forge/toolkit";
 *
 * function handler(req: ToolRequest) {
 *   const args = requestArgs(req);
 *   return text(`got ${Object.keys(args).length} arguments`);
 * }
 * ```
 */
export function requestArgs(request: Pick<ToolRequest, "arguments">): Args {
  const args = request.arguments;
  return args !== null && typeof args === "object" && !Array.isArray(args) ? args : {};
}

/**
 * A string argument, or `fallback` when it is absent or null. Other scalars
 * are converted with `String()`, since a model that sends `42` for a string
 * means `"42"`; objects and arrays are refused, as no text of them is what
 * the caller meant.
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @param fallback The value when the argument is absent.
 * @returns The string.
 * @throws {ArgumentError} When the value is an object or an array.
 *
 * @example Read an optional string
 * ```ts
 * import { getString } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(getString({ n: 5 }, "n"), "5");
 * assert.equal(getString({}, "mode", "fast"), "fast");
 * ```
 */
export function getString(args: Args, key: string, fallback = ""): string {
  const value = own(args, key);
  if (value === undefined || value === null) return fallback;
  if (typeof value === "string") return value;
  if (typeof value === "object") throw new ArgumentError(key, "must be a string, not an object or array");
  return String(value);
}

/**
 * A string argument that must be present and non-empty.
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @returns The string.
 * @throws {ArgumentError} When it is absent, empty or not a scalar.
 *
 * @example Require a path
 * ```ts
 * import { requireString } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(requireString({ path: "a.txt" }, "path"), "a.txt");
 * assert.throws(() => requireString({ path: "" }, "path"), /is required/);
 * ```
 */
export function requireString(args: Args, key: string): string {
  const value = getString(args, key, "");
  if (value === "") throw new ArgumentError(key, "is required and must be a non-empty string");
  return value;
}

/**
 * An integer argument: a number or a numeric string. Fractions, NaN, and
 * values outside the safe integer range are refused.
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @param fallback The value when the argument is absent or null.
 * @returns The integer.
 * @throws {ArgumentError} When the value is not an integer.
 *
 * @example Read a limit
 * ```ts
 * import { getInt } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(getInt({ limit: "20" }, "limit", 10), 20);
 * assert.throws(() => getInt({ limit: 1.5 }, "limit", 10), /must be an integer/);
 * ```
 */
export function getInt(args: Args, key: string, fallback = 0): number {
  const value = own(args, key);
  if (value === undefined || value === null) return fallback;
  return toInt(key, value);
}

/**
 * A boolean argument: `true`/`false`, or the strings `"true"`/`"false"`.
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @param fallback The value when the argument is absent or null.
 * @returns The boolean.
 * @throws {ArgumentError} When the value is anything else.
 *
 * @example Read a flag
 * ```ts
 * import { getBool } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(getBool({ recursive: "true" }, "recursive"), true);
 * assert.equal(getBool({}, "recursive", false), false);
 * ```
 */
export function getBool(args: Args, key: string, fallback = false): boolean {
  const value = own(args, key);
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ArgumentError(key, `must be a boolean, got ${describeValue(value)}`);
}

/** Options of {@linkcode getStringArray} and {@linkcode getIntArray}. */
export interface ArrayOptions {
  /**
   * Whether an absent argument is an error rather than an empty array.
   * @default {false}
   */
  required?: boolean;
  /**
   * The most elements accepted.
   * @default {10000}
   */
  maxItems?: number;
}

/**
 * A non-empty array of strings. Absent (or null) gives `[]` unless
 * `required`; a present array must hold at least one element, all strings.
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @param options See {@linkcode ArrayOptions}.
 * @returns The strings.
 * @throws {ArgumentError} When the value is not a non-empty array of strings.
 *
 * @example Read tags
 * ```ts
 * import { getStringArray } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(getStringArray({ tags: ["a", "b"] }, "tags"), ["a", "b"]);
 * assert.throws(() => getStringArray({ tags: [] }, "tags"), /non-empty/);
 * ```
 */
export function getStringArray(args: Args, key: string, options: ArrayOptions = {}): string[] {
  return readArray(args, key, options, (item, index) => {
    if (typeof item !== "string") {
      throw new ArgumentError(key, `element ${index} must be a string, got ${describeValue(item)}`);
    }
    return item;
  });
}

/**
 * A non-empty array of integers (numbers or numeric strings).
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @param options See {@linkcode ArrayOptions}.
 * @returns The integers.
 * @throws {ArgumentError} When the value is not a non-empty array of integers.
 *
 * @example Read ids
 * ```ts
 * import { getIntArray } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(getIntArray({ ids: [1, "2"] }, "ids"), [1, 2]);
 * ```
 */
export function getIntArray(args: Args, key: string, options: ArrayOptions = {}): number[] {
  return readArray(args, key, options, (item, index) => toInt(`${key}[${index}]`, item));
}

/**
 * An object whose values are all strings, such as HTTP headers. Absent gives
 * an empty map. The result has no prototype, so keys like `__proto__` are
 * plain data.
 *
 * @param args The arguments.
 * @param key The argument's name.
 * @returns The map.
 * @throws {ArgumentError} When the value is not an object of strings.
 *
 * @example Read headers
 * ```ts
 * import { getStringMap } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * const headers = getStringMap({ headers: { accept: "text/plain" } }, "headers");
 * assert.equal(headers.accept, "text/plain");
 * ```
 */
export function getStringMap(args: Args, key: string): Record<string, string> {
  const value = own(args, key);
  const out: Record<string, string> = Object.create(null);
  if (value === undefined || value === null) return out;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ArgumentError(key, `must be an object of strings, got ${describeValue(value)}`);
  }
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== "string") {
      throw new ArgumentError(key, `value of ${quote(name)} must be a string, got ${describeValue(item)}`);
    }
    out[name] = item;
  }
  return out;
}

function own(args: Args, key: string): unknown {
  return Object.hasOwn(args, key) ? args[key] : undefined;
}

function readArray<T>(
  args: Args,
  key: string,
  options: ArrayOptions,
  each: (item: unknown, index: number) => T,
): T[] {
  const value = own(args, key);
  if (value === undefined || value === null) {
    if (options.required) throw new ArgumentError(key, "is required and must be a non-empty array");
    return [];
  }
  if (!Array.isArray(value)) throw new ArgumentError(key, `must be an array, got ${describeValue(value)}`);
  if (value.length === 0) throw new ArgumentError(key, "must be a non-empty array");
  const max = options.maxItems ?? 10_000;
  if (value.length > max) throw new ArgumentError(key, `must hold at most ${max} elements, got ${value.length}`);
  return value.map(each);
}

function toInt(key: string, value: unknown): number {
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) n = Number(value);
  else throw new ArgumentError(key, `must be an integer, got ${describeValue(value)}`);
  if (!Number.isInteger(n)) throw new ArgumentError(key, `must be an integer, got ${describeValue(value)}`);
  if (!Number.isSafeInteger(n)) {
    throw new ArgumentError(key, `must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
  }
  return n;
}
