import type { FieldPath } from "./_field_path.ts";
import { quote } from "../internal/quote.ts";
import { ConfigError, type ConfigIssue } from "./config_error.ts";
import { REDACTED } from "./_redacted.ts";
import type { Expansion, VariableUse } from "./expand.ts";

/** One problem a schema reports; zod's issues fit. */
export interface SchemaIssue {
  /** Where the problem is. */
  readonly path: readonly PropertyKey[];
  /** What is wrong. */
  readonly message: string;
  /** zod's kind of issue: `unrecognized_keys` is worded here, from {@linkcode SchemaIssue.keys}. */
  readonly code?: string;
  /** For `unrecognized_keys`, the keys the schema does not know. */
  readonly keys?: readonly string[];
}

/** The outcome of {@linkcode ConfigSchema.safeParse}. */
export type SchemaResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/**
 * A schema that validates a config document. Any zod schema fits (the shape is
 * declared here so that zod's types do not leak into this package's API).
 */
export interface ConfigSchema<T> {
  /** Validates `data` without throwing. */
  safeParse(data: unknown): SchemaResult<T>;
}

/** Turns an expanded config document into the server's config, or throws {@linkcode ConfigError}. */
export type ConfigParser<T> = (expansion: Expansion) => T;

/** Options of {@linkcode fromSchema}. */
export interface FromSchemaOptions {
  /**
   * Fields that hold secrets, as dotted paths; `*` matches any key or array
   * index (`"db.password"`, `"upstreams.*.token"`). Each must be exactly one
   * `${NAME}` reference: a literal value there is refused, because secrets
   * come only from the environment.
   * @default {[]}
   */
  secretFields?: readonly string[];
}

/**
 * Makes a {@linkcode ConfigParser} from the server author's schema. The parser
 * refuses, in one {@linkcode ConfigError} that names every bad field:
 *
 * - each field that used a missing, empty or unreadable variable, anywhere in
 *   the string (`"${DATA_DIR}/reports"` with `DATA_DIR` unset is refused even
 *   though `/reports` would validate), naming the variable;
 * - each field with malformed `${` syntax;
 * - each secret field that is not exactly one `${NAME}` reference;
 * - each field the schema rejects.
 *
 * Values that came from the environment never appear in the message: they
 * show as `${NAME}`.
 *
 * @param schema The config's schema, e.g. a `z.strictObject(...)`.
 * @param options See {@linkcode FromSchemaOptions}.
 * @returns A parser for {@linkcode Loader}.
 * @throws {TypeError} When a secret field pattern is empty or has an empty segment.
 *
 * @example Refuse a field that used an unset variable
 * ```ts
 * import { ConfigError, expand, fromSchema } from "@forge/toolkit/configreload";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const parse = fromSchema(z.strictObject({ roots: z.array(z.string()).default([]) }));
 * const env = new Map([["HOME_DIR", "/home/ann"]]);
 *
 * assert.deepEqual(parse(expand({ roots: ["${HOME_DIR}/notes"] }, { env })), { roots: ["/home/ann/notes"] });
 * assert.throws(
 *   () => parse(expand({ roots: ["${DATA_DIR}/reports"] }, { env })),
 *   (err) => err instanceof ConfigError && err.message.includes("roots[0]: uses ${DATA_DIR}, which is not set"),
 * );
 * ```
 *
 * @example Require secrets to come from the environment
 * ```ts
 * import { expand, fromSchema } from "@forge/toolkit/configreload";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const parse = fromSchema(z.object({ api_key: z.string() }), { secretFields: ["api_key"] });
 * const env = new Map([["API_KEY", "s3cr3t-value"]]);
 *
 * assert.equal(parse(expand({ api_key: "${API_KEY}" }, { env })).api_key, "s3cr3t-value");
 * assert.throws(() => parse(expand({ api_key: "s3cr3t-value" }, { env })), /api_key: holds a literal secret/);
 * ```
 */
export function fromSchema<T>(schema: ConfigSchema<T>, options: FromSchemaOptions = {}): ConfigParser<T> {
  const secretPatterns = (options.secretFields ?? []).map(splitPattern);
  return (expansion) => {
    const issues: ConfigIssue[] = [];
    // Keyed by path, so a config with thousands of fields stays linear.
    const fields = new Map(expansion.fields.map((field) => [pathKey(field.path), field]));
    const refused = new Set<string>();
    for (const field of expansion.fields) {
      const before = issues.length;
      if (field.malformed !== undefined) issues.push({ path: field.path, message: field.malformed });
      for (const use of field.variables) {
        if (use.state !== "set") issues.push({ path: field.path, message: unusable(use) });
      }
      if (issues.length > before) refused.add(pathKey(field.path));
    }
    for (const pattern of secretPatterns) {
      for (const match of matches(expansion.value, pattern)) {
        const key = pathKey(match.path);
        if (fields.get(key)?.whole) continue;
        refused.add(key);
        issues.push({
          path: match.path,
          message: 'holds a literal secret; write "${NAME}" here and set NAME in the environment',
        });
      }
    }
    const result = schema.safeParse(expansion.value);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const key = pathKey(issue.path);
        if (refused.has(key)) continue;
        const source = fields.get(key);
        const from = source === undefined
          ? ""
          : ` (value from ${source.variables.map((v) => `\${${v.name}}`).join("")})`;
        // The file's own keys are named as written and never redacted: they hold nothing of the environment, and what a
        // redactor does to a key (a guess at a variable's value, or at its start before a `…`) would answer the guess.
        const message = issue.code === "unrecognized_keys" && issue.keys !== undefined
          ? unknownKeys(issue.keys)
          : expansion.redact(issue.message) + from;
        issues.push({ path: issue.path.map(segment), message });
      }
    }
    if (issues.length > 0) {
      const error = new ConfigError(issues);
      REDACTED.add(error);
      throw error;
    }
    if (!result.success) throw new ConfigError("Cannot load config: the schema refused it without naming a field");
    return result.data;
  };
}

// How many unknown keys an issue names, and the longest it names (a longer one is described by its length).
const KEYS_NAMED = 5;
const KEY_NAMED = 64;

/** An unknown-key issue in the toolkit's words: a few keys, whole (never cut, so never a `…` of theirs), and a count. */
function unknownKeys(keys: readonly string[]): string {
  const named = keys.slice(0, KEYS_NAMED).map((key) =>
    key.length <= KEY_NAMED ? quote(key, KEY_NAMED) : `a key of ${key.length} characters`
  );
  const more = keys.length > KEYS_NAMED ? ` and ${keys.length - KEYS_NAMED} more` : "";
  return `unknown key${keys.length === 1 ? "" : "s"} (not in the schema): ${named.join(", ")}${more}`;
}

function unusable(use: VariableUse): string {
  const name = `\${${use.name}}`;
  if (use.state === "missing") return `uses ${name}, which is not set`;
  if (use.state === "empty") return `uses ${name}, which is empty`;
  return `uses ${name}, which this process may not read (grant --allow-env=${use.name})`;
}

function splitPattern(pattern: string): string[] {
  const segments = pattern.split(".");
  if (segments.some((s) => s === "")) {
    throw new TypeError(`Cannot use secret field pattern ${quote(pattern)}: it has an empty segment`);
  }
  return segments;
}

function* matches(root: unknown, pattern: readonly string[]): Generator<{ path: FieldPath; value: unknown }> {
  let level: { path: FieldPath; value: unknown }[] = [{ path: [], value: root }];
  for (const segment of pattern) {
    const next: { path: FieldPath; value: unknown }[] = [];
    for (const { path, value } of level) {
      if (Array.isArray(value)) {
        value.forEach((item, i) => {
          if (segment === "*" || segment === String(i)) next.push({ path: [...path, i], value: item });
        });
      } else if (typeof value === "object" && value !== null) {
        for (const [key, item] of Object.entries(value)) {
          if (segment === "*" || segment === key) next.push({ path: [...path, key], value: item });
        }
      }
    }
    level = next;
  }
  // An absent or null secret is the schema's business (required or not), not a literal.
  for (const match of level) if (match.value !== undefined && match.value !== null) yield match;
}

// Zod reports array indexes as numbers and our paths may too: compare as strings.
function pathKey(path: readonly PropertyKey[]): string {
  return JSON.stringify(path.map(String));
}

function segment(key: PropertyKey): string | number {
  return typeof key === "symbol" ? String(key) : key;
}
