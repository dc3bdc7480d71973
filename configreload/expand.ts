import type { FieldPath } from "./_field_path.ts";
import { redactor } from "./_redact.ts";

export type { FieldPath } from "./_field_path.ts";

/** Where `${VAR}` values come from. `Deno.env` and a `Map` both fit. */
export interface EnvReader {
  /** The variable's value, or `undefined` when it is not set. */
  get(name: string): string | undefined;
}

/** Options of {@linkcode expand}. */
export interface ExpandOptions {
  /**
   * Where variables are read. Only the names the document references are
   * read, so `--allow-env=NAMES` is enough.
   * @default {Deno.env}
   */
  env?: EnvReader;
}

/**
 * What a referenced variable turned out to be: `set` (non-empty), `empty`,
 * `missing` (unset), or `denied` (the process may not read it).
 */
export type VariableState = "set" | "empty" | "missing" | "denied";

/** One `${NAME}` reference inside a string field. */
export interface VariableUse {
  /** The variable's name. */
  readonly name: string;
  /** What the variable turned out to be. */
  readonly state: VariableState;
}

/** A string field whose raw text held `$`-syntax: where it is and what it used. */
export interface ExpandedField {
  /** The field's location, e.g. `["db", "password"]` or `["roots", 0]`. */
  readonly path: FieldPath;
  /** Every reference, in order of appearance. */
  readonly variables: readonly VariableUse[];
  /** True when the raw string was exactly one `${NAME}` and nothing else. */
  readonly whole: boolean;
  /** Why the raw string is not valid expansion syntax, when it is not. */
  readonly malformed?: string;
}

/** A document after expansion, with the provenance that validation needs. */
export interface Expansion {
  /** A copy of the input with every string's references replaced. */
  readonly value: unknown;
  /** The string fields that referenced variables (or tried to). */
  readonly fields: readonly ExpandedField[];
  /** Every variable name the document references, sorted, without repeats. */
  readonly names: readonly string[];
  /**
   * Replaces each value that came from the environment (3 characters or
   * longer) in `text` with `${NAME}` — as it is, JSON-escaped as `quote()`
   * writes it, or (unless `cuts` is false) its start where `quote()` cut it
   * with `…` — so a message can be shown safely.
   *
   * @param text A message, or any text derived from the config.
   * @param cuts Whether a value's start before a `…` is hidden too: true for
   *   the toolkit's own messages (the default), false for text from elsewhere,
   *   such as a tool's result, where it is not a cut of the value.
   */
  redact(text: string, cuts?: boolean): string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Node {
  readonly parent: Node | undefined;
  readonly key: string | number;
}

/**
 * Expands `${VAR}` in every string value of a JSON document (object keys are
 * left alone). A missing variable becomes the empty string; `$${` writes a
 * literal `${`; any other `$` is kept as it is. There is no other shell syntax:
 * `${VAR:-x}` or an unclosed `${` marks the field malformed. Each field that
 * used a variable is recorded with the variable's state, so validation can
 * refuse a field that used a missing or empty variable anywhere in it —
 * `"${DATA_DIR}/reports"` expands to `/reports` when `DATA_DIR` is unset, and
 * must never be used.
 *
 * The walk is iterative, so any nesting depth is safe.
 *
 * @param value A JSON value (objects, arrays, strings, numbers, booleans, null).
 * @param options See {@linkcode ExpandOptions}.
 * @returns The expanded copy and its provenance.
 *
 * @example Expand a document and see which fields used which variables
 * ```ts
 * import { expand } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * const env = new Map([["DATA_DIR", "/srv/data"]]);
 * const result = expand({ roots: ["${DATA_DIR}/in", "${OUT_DIR}/out"], price: "$$5, $${literal}" }, { env });
 * assert.deepEqual(result.value, { roots: ["/srv/data/in", "/out"], price: "$$5, ${literal}" });
 * assert.deepEqual(result.fields.map((f) => [f.path, f.variables]), [
 *   [["roots", 0], [{ name: "DATA_DIR", state: "set" }]],
 *   [["roots", 1], [{ name: "OUT_DIR", state: "missing" }]],
 * ]);
 * assert.equal(result.redact("bad root /srv/data/in"), "bad root ${DATA_DIR}/in");
 * ```
 */
export function expand(value: unknown, options: ExpandOptions = {}): Expansion {
  const env = options.env ?? Deno.env;
  const lookups = new Map<string, { state: VariableState; value: string }>();
  const lookup = (name: string): { state: VariableState; value: string } => {
    let found = lookups.get(name);
    if (found === undefined) {
      found = read(env, name);
      lookups.set(name, found);
    }
    return found;
  };
  const fields: ExpandedField[] = [];
  const expandAt = (raw: string, node: Node | undefined): string => {
    if (!raw.includes("$")) return raw;
    const result = expandString(raw, lookup);
    if (result.variables.length > 0 || result.malformed !== undefined) {
      fields.push({ path: pathOf(node), ...result.field });
    }
    return result.text;
  };

  const root: { value: unknown } = { value: undefined };
  const work: { source: unknown; target: object; key: string | number; node?: Node }[] = [
    { source: value, target: root, key: "value" },
  ];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { source, target, key, node } = item;
    let copy: unknown = source;
    if (typeof source === "string") {
      copy = expandAt(source, node);
    } else if (Array.isArray(source)) {
      copy = new Array(source.length);
      for (let i = source.length - 1; i >= 0; i--) {
        work.push({ source: source[i], target: copy as object, key: i, node: { parent: node, key: i } });
      }
    } else if (isPlainObject(source)) {
      copy = {};
      for (const k of Object.keys(source).reverse()) {
        work.push({ source: source[k], target: copy as object, key: k, node: { parent: node, key: k } });
      }
    }
    Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }

  const secrets = new Map<string, string>();
  for (const [name, found] of lookups) if (found.state === "set") secrets.set(found.value, name);
  return {
    value: root.value,
    fields,
    names: [...lookups.keys()].sort(),
    redact: redactor(secrets),
  };
}

function read(env: EnvReader, name: string): { state: VariableState; value: string } {
  let value: string | undefined;
  try {
    value = env.get(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      return { state: "denied", value: "" };
    }
    throw err;
  }
  if (value === undefined) return { state: "missing", value: "" };
  return { state: value === "" ? "empty" : "set", value };
}

function expandString(
  raw: string,
  lookup: (name: string) => { state: VariableState; value: string },
): { text: string; variables: VariableUse[]; field: Omit<ExpandedField, "path">; malformed?: string } {
  const variables: VariableUse[] = [];
  let text = "";
  let i = 0;
  let malformed: string | undefined;
  while (i < raw.length) {
    const dollar = raw.indexOf("$", i);
    if (dollar === -1) {
      text += raw.slice(i);
      break;
    }
    text += raw.slice(i, dollar);
    if (raw.startsWith("$${", dollar)) {
      text += "${";
      i = dollar + 3;
    } else if (raw.startsWith("${", dollar)) {
      const close = raw.indexOf("}", dollar + 2);
      const name = close === -1 ? "" : raw.slice(dollar + 2, close);
      if (!NAME.test(name)) {
        malformed ??= `"\${" at character ${
          dollar + 1
        } does not start a \${NAME} reference (write $\${ for a literal "\${")`;
        i = close === -1 ? raw.length : close + 1;
        continue;
      }
      const found = lookup(name);
      variables.push({ name, state: found.state });
      text += found.value;
      i = close + 1;
    } else {
      text += "$";
      i = dollar + 1;
    }
  }
  const whole = variables.length === 1 && malformed === undefined && raw === `\${${variables[0].name}}`;
  const field = malformed === undefined ? { variables, whole } : { variables, whole, malformed };
  return { text, variables, field, malformed };
}

function pathOf(node: Node | undefined): FieldPath {
  const path: (string | number)[] = [];
  for (let n = node; n !== undefined; n = n.parent) path.push(n.key);
  return path.reverse();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
