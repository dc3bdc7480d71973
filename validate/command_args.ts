import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";

/**
 * One typed part of a command line. The server writes `flag`s and `word`s;
 * what a caller gave goes in a `value` (one word in option position, refused
 * when it could be read as an option) or in `operands` (after `--`, where no
 * program reads an option).
 */
export type CommandArg =
  | { readonly kind: "flag"; readonly text: string }
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "value"; readonly text: string; readonly name: string }
  | { readonly kind: "option"; readonly flag: string; readonly text: string; readonly name: string }
  | { readonly kind: "operands"; readonly texts: readonly string[]; readonly name: string };

/**
 * Builders of {@linkcode CommandArg}s: the only way an argv is made, so a
 * caller's text can never become an option or a second word.
 *
 * @example A git log whose revision came from a caller
 * ```ts
 * import { arg, buildArgv } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const argv = buildArgv([arg.word("log"), arg.flag("--max-count=5"), arg.value("ref", "main"), arg.operands("path", ["src"])]);
 * assert.deepEqual(argv, ["log", "--max-count=5", "main", "--", "src"]);
 * assert.throws(() => buildArgv([arg.word("log"), arg.value("ref", "--output=/tmp/x")]));
 * ```
 */
export const arg: {
  /** An option the server wrote (must start with `-`). */
  readonly flag: (text: string) => CommandArg;
  /** A fixed word the server wrote: a subcommand (must not start with `-`). */
  readonly word: (text: string) => CommandArg;
  /** A caller's value where an option could stand: never empty, never starting with `-`. */
  readonly value: (name: string, text: string) => CommandArg;
  /**
   * An option the server wrote and the caller's value it takes, as two words
   * (`-e`, pattern): the program reads the word after such an option as its
   * value, so the value may start with `-`.
   */
  readonly option: (flag: string, name: string, text: string) => CommandArg;
  /** A caller's positional values: emitted after `--`; must be the last part. */
  readonly operands: (name: string, texts: readonly string[]) => CommandArg;
} = Object.freeze({
  flag: (text: string): CommandArg => ({ kind: "flag", text }),
  word: (text: string): CommandArg => ({ kind: "word", text }),
  value: (name: string, text: string): CommandArg => ({ kind: "value", text, name }),
  option: (flag: string, name: string, text: string): CommandArg => ({ kind: "option", flag, text, name }),
  operands: (name: string, texts: readonly string[]): CommandArg => ({ kind: "operands", texts: [...texts], name }),
});

/**
 * Turns typed parts into an argv, checking each: no NUL byte anywhere, a
 * `flag` starts with `-` and a `word` does not, a `value` is non-empty and
 * does not start with `-` (so `--output=/tmp/x` given as a revision is
 * refused, not obeyed), an `option`'s value follows its flag as a word of
 * its own, and `operands` come last, after one `--`.
 *
 * @param parts The parts, in order.
 * @returns The argv (without the program).
 * @throws {PolicyError} (`invalid-input`) When a caller's value could be read as an option or holds a NUL byte.
 * @throws {TypeError} When the server's own parts are malformed.
 *
 * @example Operands after `--` may start with a dash
 * ```ts
 * import { arg, buildArgv } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(buildArgv([arg.word("add"), arg.operands("paths", ["-p"])]), ["add", "--", "-p"]);
 * ```
 */
export function buildArgv(parts: readonly CommandArg[]): string[] {
  const argv: string[] = [];
  parts.forEach((part, i) => {
    if (part.kind === "flag" || part.kind === "word") {
      if (typeof part.text !== "string" || part.text.includes("\0") || part.text === "") {
        throw new TypeError(`Cannot build command: ${part.kind} ${quote(part.text)} is empty or holds a NUL byte`);
      }
      if ((part.kind === "flag") !== part.text.startsWith("-")) {
        throw new TypeError(`Cannot build command: ${part.kind} ${quote(part.text)} has the wrong leading dash`);
      }
      argv.push(part.text);
    } else if (part.kind === "value") {
      argv.push(callerText(part.name, part.text, true));
    } else if (part.kind === "option") {
      if (typeof part.flag !== "string" || !part.flag.startsWith("-") || part.flag.includes("\0")) {
        throw new TypeError(`Cannot build command: option ${quote(part.flag)} must start with "-"`);
      }
      argv.push(part.flag, callerText(part.name, part.text, false));
    } else {
      if (i !== parts.length - 1) throw new TypeError("Cannot build command: operands must be the last part");
      argv.push("--", ...part.texts.map((text) => callerText(part.name, text, false)));
    }
  });
  return argv;
}

function callerText(name: string, text: unknown, optionPosition: boolean): string {
  if (typeof text !== "string" || text === "") {
    throw new PolicyError("invalid-input", `Cannot use ${name}: it is empty or not a string`);
  }
  if (text.includes("\0")) throw new PolicyError("invalid-input", `Cannot use ${name}: it holds a NUL byte`);
  if (optionPosition && text.startsWith("-")) {
    throw new PolicyError("invalid-input", `Cannot use ${name} ${quote(text)}: a value may not start with "-"`);
  }
  return text;
}
