import { type FieldPath, formatPath } from "./_field_path.ts";
import { escapeUnit, quote } from "../internal/quote.ts";

/** One bad field of a config: where it is and what is wrong, safe to print. */
export interface ConfigIssue {
  /** The field's location; empty for the whole document. */
  readonly path: FieldPath;
  /** What is wrong. Never holds a value that came from the environment. */
  readonly message: string;
}

/** Options of {@linkcode ConfigError}. */
export interface ConfigErrorOptions extends ErrorOptions {
  /** The config file, named in the message when given. */
  file?: string;
}

// A hostile config can hold thousands of bad fields; the message lists this
// many and counts the rest, while `issues` keeps them all.
const LISTED = 50;

/**
 * A config that was read but cannot be used: invalid fields, a missing or
 * empty variable, a literal secret, or an unsafe file. The message lists every
 * bad field with its path on one line, and never holds a value that came
 * from the environment (they show as `${NAME}`).
 *
 * @example Read the issues of a refused config
 * ```ts
 * import { ConfigError } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * const err = new ConfigError([
 *   { path: ["roots", 0], message: "uses ${DATA_DIR}, which is not set" },
 *   { path: ["port"], message: "expected number, received string" },
 * ]);
 * assert.equal(
 *   err.message,
 *   "Cannot load config: 2 invalid fields: roots[0]: uses ${DATA_DIR}, which is not set; port: expected number, received string",
 * );
 * assert.equal(err.issues.length, 2);
 * ```
 */
export class ConfigError extends Error {
  /** Every bad field, in the order found. Empty when the file itself was refused. */
  readonly issues: readonly ConfigIssue[];

  /**
   * Builds the one-line message from the issues.
   *
   * @param issues The bad fields; or a message when the problem is not about
   *   fields (then it is used as the whole message).
   * @param options The file to name, and standard error options.
   */
  constructor(issues: readonly ConfigIssue[] | string, options?: ConfigErrorOptions) {
    super(typeof issues === "string" ? issues : describe(issues, options?.file), options);
    this.name = "ConfigError";
    this.issues = typeof issues === "string" ? [] : issues;
  }
}

function describe(issues: readonly ConfigIssue[], file: string | undefined): string {
  const listed = issues.slice(0, LISTED).map((issue) => `${formatPath(issue.path)}: ${oneLine(issue.message)}`);
  if (issues.length > LISTED) listed.push(`and ${issues.length - LISTED} more`);
  const count = `${issues.length} invalid field${issues.length === 1 ? "" : "s"}`;
  const config = file === undefined ? "config" : `config ${quote(file, 256)}`;
  return `Cannot load ${config}: ${count}: ${listed.join("; ")}`;
}

// How much of one issue's message the line shows: a schema's message can echo a key or a value of the file, which
// can be megabytes (99,990 unknown keys once made a 3.7 MB line).
const ISSUE_CHARS = 300;
// What would draw on a terminal or change how the line reads: control characters, bidirectional, zero-width and
// separator characters; written as `\u` escapes, as quote() writes them.
// deno-lint-ignore no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;

// The loader logs one line per bad version: a message must not span lines, draw on a terminal or run on for
// megabytes. A message cut here ends with how much was left out, never with a `…`, which a redactor would read as a
// cut of a value.
function oneLine(text: string): string {
  const line = text.replace(/\s*[\r\n]+\s*/g, " ").replace(UNPRINTABLE, escapeUnit);
  return line.length <= ISSUE_CHARS ? line : `${line.slice(0, ISSUE_CHARS)} (+${line.length - ISSUE_CHARS} characters)`;
}
