// How a value the model sent is named in a message: its kind and, for a
// scalar, a short quote. Hostile input can be megabytes, so nothing longer
// than a few dozen characters of it is ever echoed. Shared by the argument
// helpers and the JSON Schema engine, so both name a value the same way.

import { quote } from "./quote.ts";

/**
 * Describes `value` for a message about a bad argument, e.g. `the string "abc"` or `an array`.
 *
 * @param value The value to name.
 * @returns Its kind, with at most 32 characters of a scalar's text.
 *
 * @example Name a value in a refusal
 * ```ts
 * import { describeValue } from "./describe_value.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(describeValue(7), "the number 7");
 * assert.equal(describeValue([1, 2]), "an array");
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${quote(value, 32)}`;
  if (typeof value === "number" || typeof value === "boolean") {
    return `the ${typeof value} ${String(value).slice(0, 32)}`;
  }
  return `${typeof value} ${quote(String(value), 32)}`;
}
