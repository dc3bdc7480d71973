// The search pattern: matched against entry names, without regard to case.
// With `*` or `?` it is a glob over the whole name; without, a substring.
// Matching is validate's matchWildcard: over code points, never exponential.

import { matchWildcard, PolicyError, quote } from "@forge/toolkit/validate";

/** The longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 255;

/** Compiles a search pattern, or refuses it with a message the model can act on. */
export function compileNamePattern(pattern: string): (name: string) => boolean {
  if (pattern === "") throw new PolicyError("invalid-input", "Cannot search: the pattern is empty");
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PolicyError(
      "invalid-input",
      `Cannot search for ${quote(pattern)}: the pattern is longer than ${MAX_PATTERN_LENGTH} characters`,
    );
  }
  if (pattern.includes("/") || pattern.includes("\\")) {
    throw new PolicyError(
      "invalid-input",
      `Cannot search for ${
        quote(pattern)
      }: the pattern matches names, not paths; remove the slash and pass the folder as "path"`,
    );
  }
  const lower = pattern.toLowerCase();
  if (!lower.includes("*") && !lower.includes("?")) return (name) => name.toLowerCase().includes(lower);
  return (name) => matchWildcard(lower, name.toLowerCase());
}
