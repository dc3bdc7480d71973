import { PolicyError, quote } from "@forge/toolkit/validate";
import { hasControl } from "./_has_control.ts";

/** The longest revision a tool takes, in characters. */
export const MAX_REVISION = 256;

/**
 * Checks a caller's revision (`main`, `HEAD~2`, `v1.0^{commit}`, a hash):
 * never an option (no leading `-`), no `:` (a path is a separate argument,
 * checked as one), no search of commit messages (`^{/…}`), no whitespace or
 * control characters, no lone surrogate (git would get U+FFFD in its place,
 * while a reply that names the revision writes the caller's text: six bytes
 * a character in JSON), at most 256 characters. Git gets it after
 * `--end-of-options` as well.
 *
 * @param name The argument's name, for the message.
 * @param text The caller's revision.
 * @returns The revision.
 * @throws {PolicyError} When it is refused.
 */
export function revision(name: string, text: string): string {
  const refuse = (why: string) => new PolicyError("invalid-input", `Cannot use ${name} ${quote(text)}: ${why}`);
  if (typeof text !== "string" || text === "" || text.length > MAX_REVISION) {
    throw new PolicyError(
      "invalid-input",
      `Cannot use ${name}: it must be a revision of 1 to ${MAX_REVISION} characters`,
    );
  }
  if (text.startsWith("-")) throw refuse('a revision may not start with "-"');
  if (/[\s:]/.test(text) || hasControl(text)) {
    throw refuse('a revision may not hold whitespace, control characters or ":"');
  }
  if (!text.isWellFormed()) throw refuse("a revision must be well-formed Unicode (it holds a lone surrogate)");
  // `^{/text}` names the youngest commit whose message matches: git reads, and keeps, every message it passes.
  if (text.includes("{/")) throw refuse('a revision may not search commit messages ("^{/…}")');
  return text;
}
