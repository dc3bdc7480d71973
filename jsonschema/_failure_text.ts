// How a failure reads: the rule, its keyword, what the value was instead and,
// for `additionalProperties`, the names allowed. One place for the engine and
// the plain-object check, so both word a failure alike.

import { quote } from "../internal/quote.ts";

/**
 * The message of a failure: `must be at most 10 (maximum), got 12`, or
 * `is not an allowed property (additionalProperties); its properties are "a", "b"`.
 */
export function failureText(rule: string, keyword: string, detail?: string, names?: readonly string[]): string {
  return `${rule} (${keyword})${detail === undefined ? "" : `, ${detail}`}${
    names === undefined ? "" : allowedNames(names)
  }`;
}

function allowedNames(names: readonly string[]): string {
  if (names.length === 0) return "; it allows none";
  return `; its properties are ${names.slice(0, 20).map((n) => quote(n, 32)).join(", ")}${
    names.length > 20 ? ", …" : ""
  }`;
}
