import type { FieldPath } from "./_field_path.ts";
import { quote } from "../internal/quote.ts";
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
  /**
   * The most `${` a document may hold in its string values: references, and
   * attempts at one that are malformed. Past it `expand()` throws instead of
   * recording them, so what a document costs to expand is bounded however it
   * is written. Real configs hold a handful to a few hundred.
   * @default {10000}
   */
  maxReferences?: number;
  /**
   * The most characters that variables' values may add to the document, in
   * all: each reference writes its value again, so without it ten thousand
   * references to a 100 KB variable would build a gigabyte of text.
   * @default {4194304}
   */
  maxExpandedChars?: number;
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

// How many `${` a document may hold unless the caller says otherwise: far above the few hundred of a large
// real config, and recording that many stays small (docs/configuration.md).
const MAX_REFERENCES = 10_000;
// As many characters as the largest config file: a thousand references to a 4 KiB certificate.
const MAX_EXPANDED_CHARS = 4 * 1024 * 1024;

// One open array or object of the walk: memory follows the depth, not the width.
interface Frame {
  readonly source: Readonly<Record<string, unknown>> | readonly unknown[];
  readonly copy: Record<string, unknown> | unknown[];
  /** An object's keys; `undefined` for an array. */
  readonly keys: readonly string[] | undefined;
  /** How many children were started; the one being copied is `next - 1`. */
  next: number;
}

const PRESIZED = 1024;

interface Found {
  readonly state: VariableState;
  readonly value: string;
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
 * The walk is iterative and holds one frame per open array or object, so any
 * nesting depth is safe and its memory follows the depth, not the width. A
 * document holding more than `maxReferences` `${`, or whose references add
 * more than `maxExpandedChars` characters, is refused as soon as it is seen.
 *
 * @param value A JSON value (objects, arrays, strings, numbers, booleans, null).
 * @param options See {@linkcode ExpandOptions}.
 * @returns The expanded copy and its provenance.
 * @throws {RangeError} When the document holds more than `maxReferences`
 *   `${`, or its references add more than `maxExpandedChars` characters, or
 *   either limit is not a positive integer.
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
 *
 * @example Refuse a document with more references than any real config holds
 * ```ts
 * import { expand } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * const env = new Map([["X", "x"]]);
 * assert.throws(() => expand(["${X}", "${X}", "${X}"], { env, maxReferences: 2 }), {
 *   name: "RangeError",
 *   message: "Cannot expand config: it holds more than 2 ${NAME} references (maxReferences)",
 * });
 * ```
 */
export function expand(value: unknown, options: ExpandOptions = {}): Expansion {
  const env = options.env ?? Deno.env;
  const maxReferences = limit(options.maxReferences, MAX_REFERENCES, "maxReferences");
  const maxChars = limit(options.maxExpandedChars, MAX_EXPANDED_CHARS, "maxExpandedChars");
  let references = 0;
  let written = 0;
  const lookups = new Map<string, Found>();
  const lookup = (name: string): Found => {
    let found = lookups.get(name);
    if (found === undefined) {
      found = read(env, name);
      lookups.set(name, found);
    }
    written += found.value.length;
    if (written > maxChars) {
      throw new RangeError(
        `Cannot expand config: its references add more than ${maxChars} characters of variables' values (maxExpandedChars)`,
      );
    }
    return found;
  };
  // Counted before the name is read: a reference past the limit reads nothing.
  const spend = (): void => {
    if (++references > maxReferences) {
      throw new RangeError(
        `Cannot expand config: it holds more than ${maxReferences} \${NAME} references (maxReferences)`,
      );
    }
  };
  const fields: ExpandedField[] = [];
  const stack: Frame[] = [];
  // Returns the copy of one value; an array or object is returned empty and filled by the loop below.
  const start = (source: unknown): unknown => {
    if (typeof source === "string") {
      if (!source.includes("$")) return source;
      const { text, field } = expandString(source, lookup, spend);
      if (field !== undefined) fields.push({ path: pathOf(stack), ...field });
      return text;
    }
    if (Array.isArray(source)) {
      // Sized when small (an array grown by push takes room for 17 items); a large one is grown, since
      // V8 makes `new Array(n)` of a large n a slow dictionary.
      const copy: unknown[] = source.length <= PRESIZED ? new Array(source.length) : [];
      stack.push({ source, copy, keys: undefined, next: 0 });
      return copy;
    }
    if (isPlainObject(source)) {
      const copy = {};
      stack.push({ source, copy, keys: Object.keys(source), next: 0 });
      return copy;
    }
    return source;
  };

  const root = start(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const { source, copy, keys } = frame;
    if (keys === undefined) {
      const items = source as readonly unknown[];
      if (frame.next === items.length) {
        stack.pop();
      } else {
        const i = frame.next++;
        (copy as unknown[])[i] = start(items[i]);
      }
    } else if (frame.next === keys.length) {
      stack.pop();
    } else {
      const key = keys[frame.next++];
      const item = start((source as Readonly<Record<string, unknown>>)[key]);
      // defineProperty, not assignment: a "__proto__" key must stay plain data.
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
  }

  const secrets = new Map<string, string>();
  for (const [name, found] of lookups) if (found.state === "set") secrets.set(found.value, name);
  return {
    value: root,
    fields,
    names: [...lookups.keys()].sort(),
    redact: redactor(secrets),
  };
}

function limit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new RangeError(`Cannot expand config: ${name} ${quote(value)} is not a positive integer`);
  }
  return value;
}

// Built only for a field that is recorded: the key each open container is at.
function pathOf(stack: readonly Frame[]): FieldPath {
  return stack.map((frame) => frame.keys === undefined ? frame.next - 1 : frame.keys[frame.next - 1]);
}

function read(env: EnvReader, name: string): Found {
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

// Pieces are joined a chunk at a time: a string of a million `$${` would
// otherwise be held as a million pieces before it is one string.
const CHUNK = 1024;

function expandString(
  raw: string,
  lookup: (name: string) => Found,
  spend: () => void,
): { text: string; field?: Omit<ExpandedField, "path"> } {
  const variables: VariableUse[] = [];
  let malformed: string | undefined;
  let text = "";
  let pieces: string[] = [];
  const write = (piece: string): void => {
    if (piece === "") return;
    pieces.push(piece);
    if (pieces.length === CHUNK) {
      text += pieces.join("");
      pieces = [];
    }
  };
  // `from` is the first character not yet written (the text between `$`-syntax goes as one slice);
  // `at` is where the scan resumes.
  let from = 0;
  let at = 0;
  for (let dollar = raw.indexOf("$"); dollar !== -1; dollar = raw.indexOf("$", at)) {
    if (raw.startsWith("$${", dollar)) {
      // The first `$` is dropped and `${` kept.
      write(raw.slice(from, dollar));
      from = dollar + 1;
      at = dollar + 3;
    } else if (raw.startsWith("${", dollar)) {
      spend();
      const close = raw.indexOf("}", dollar + 2);
      const name = close === -1 ? "" : raw.slice(dollar + 2, close);
      write(raw.slice(from, dollar));
      from = at = close === -1 ? raw.length : close + 1;
      if (NAME.test(name)) {
        const found = lookup(name);
        variables.push({ name, state: found.state });
        write(found.value);
      } else {
        malformed ??= `"\${" at character ${
          dollar + 1
        } does not start a \${NAME} reference (write $\${ for a literal "\${")`;
      }
    } else {
      at = dollar + 1;
    }
  }
  if (from === 0) return { text: raw };
  write(raw.slice(from));
  // A field that is one reference gets the variable's value itself, not a copy of it.
  text = text === "" && pieces.length === 1 ? pieces[0] : text + pieces.join("");
  if (variables.length === 0 && malformed === undefined) return { text };
  const whole = variables.length === 1 && malformed === undefined && raw === `\${${variables[0].name}}`;
  return { text, field: malformed === undefined ? { variables, whole } : { variables, whole, malformed } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
