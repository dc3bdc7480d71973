// Arguments derived from a tool's inputSchema: start from a call that should
// pass (the author's, or one built from defaults, examples and bounds), then
// change one argument at a time to a hostile value, and the whole arguments
// object in ways a schema may or may not catch.
import { fill } from "./_fill.ts";
import { passesSchema } from "./_schema_check.ts";
import type { AttackCategory, AttackValue } from "./corpus.ts";

type Schema = Record<string, unknown>;

/** One call's arguments, as JSON text with placeholders. */
export interface ArgumentCase {
  title: string;
  category: AttackCategory;
  argument: string | undefined;
  args: string;
  /** Whether the arguments pass the schema (so they reach the handler); undefined when unknown. */
  passes: boolean | undefined;
  /** The hostile value's JSON, when one argument carries it. */
  value?: string;
}

// Which string values an argument gets by default, by what its name and
// description speak of; the large corpus sends every value to every argument.
const RELEVANT: Partial<Record<AttackCategory, RegExp>> = {
  path: /path|file|dir|folder|root|name|dest|target|source|src|cwd|location/i,
  link: /path|file|dir|folder|root|name|dest|target|source|src|cwd|location/i,
  url: /url|uri|href|link|endpoint|host|origin|site|address|webhook/i,
  sql: /sql|query|statement|where|filter|expr/i,
  option: /rev|ref|branch|commit|tag|arg|option|flag|pattern|grep|search|path|file|name|query|term|range|object|spec/i,
  command: /cmd|command|exec|run|script|shell|arg|pattern|message|path|file|name/i,
};

/** Placeholder values good enough to parse a case and check it against its schema. */
const LABEL: Record<string, string> = {
  canary_file: "/tmp/c/canary.txt",
  canary_dir: "/tmp/c",
  canary_db: "/tmp/c/canary.db",
  secret_head: "FORGE-CANARY-a",
  secret_tail: "b",
  up: "../",
  up_backslash: "..\\",
  up_encoded: "%2e%2e%2f",
  up_double_encoded: "%252e%252e%252f",
  up_fullwidth: "\uff0e\uff0e\uff0f",
  sibling: "/tmp/s",
  sibling_name: "s",
  link_file: "l",
  link_dir: "d",
  listener: "127.0.0.1:1",
  port: "1",
  allowed_url: "http://127.0.0.1:1/allowed/c1/",
  marker: "M",
  tag: "c1",
};

function typeOf(schema: Schema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  return typeof type === "string" ? type : undefined;
}

/**
 * A value that should pass `schema`, for an argument named `name`. A path of
 * a tool that may write is a new name, so that a call that must run nothing
 * (a probe) shows it if it ran.
 */
function plausible(name: string, schema: Schema, readOnly: boolean): unknown {
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case "string":
      if (RELEVANT.url!.test(name)) return "@@allowed_url@@ok";
      if (RELEVANT.sql!.test(name)) return "SELECT 1";
      if (!RELEVANT.path!.test(name)) return "forge";
      return readOnly ? "." : "forge-attack-@@tag@@.txt";
    case "integer":
    case "number": {
      const min = typeof schema.minimum === "number" ? schema.minimum : 1;
      return typeof schema.maximum === "number" ? Math.min(min, schema.maximum) : min;
    }
    case "boolean":
      return false;
    case "array": {
      const items = (schema.items ?? {}) as Schema;
      return typeof schema.minItems === "number" && schema.minItems > 0 ? [plausible(name, items, readOnly)] : [];
    }
    case "object":
      return baseline(schema, readOnly);
    default:
      return null;
  }
}

/** Arguments that should pass `schema`: every required property, plausibly filled. */
export function baseline(schema: Schema, readOnly: boolean): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? schema.required as string[] : [];
  const out: Record<string, unknown> = {};
  for (const name of required) out[name] = plausible(name, properties[name] ?? {}, readOnly);
  return out;
}

/** The arguments object as JSON text, with `argument` written as `json` (raw). */
export function argsWith(base: Record<string, unknown>, argument: string, json: string): string {
  const parts = Object.entries(base).filter(([k]) => k !== argument).map(([k, v]) =>
    `${JSON.stringify(k)}:${JSON.stringify(v)}`
  );
  parts.push(`${JSON.stringify(argument)}:${json}`);
  return `{${parts.join(",")}}`;
}

// Past this, a repeated value's length only matters against a bound as large.
const LABEL_REPEAT_CAP = 70_000;

function judged(schema: Schema, args: string): boolean | undefined {
  try {
    return passesSchema(schema, JSON.parse(fill(args, LABEL, LABEL_REPEAT_CAP)));
  } catch {
    return undefined;
  }
}

function boundValues(schema: Schema): [string, string][] {
  const out: [string, string][] = [];
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const n = schema[key];
    if (typeof n !== "number") continue;
    out.push([`${key} - 1`, String(n - 1)], [key, String(n)], [`${key} + 1`, String(n + 1)]);
    if (typeOf(schema) === "integer") out.push([`${key} + 0.5`, String(n + 0.5)]);
  }
  for (const key of ["maxLength", "minLength"]) {
    const n = schema[key];
    if (typeof n !== "number" || n > 1 << 20) continue;
    out.push([key, JSON.stringify("A".repeat(n))]);
    if (key === "maxLength") out.push([`${key} + 1`, JSON.stringify("A".repeat(n + 1))]);
  }
  if (Array.isArray(schema.enum) && typeof schema.enum[0] === "string") {
    const first = schema.enum[0] as string;
    out.push([
      "enum in another case",
      JSON.stringify(first.toUpperCase() === first ? first.toLowerCase() : first.toUpperCase()),
    ]);
  }
  return out;
}

const WRONG_TYPES: [string, string][] = [
  ["null", "null"],
  ["boolean", "true"],
  ["integer", "0"],
  ["string", '"x"'],
  ["array", "[]"],
  ["object", "{}"],
];

/** Cases for one tool: each value its arguments' types and names call for, bounds, wrong types, extra keys. */
export function argumentCases(
  inputSchema: Schema,
  values: readonly AttackValue[],
  options: { large: boolean; readOnly: boolean; valid?: Record<string, unknown> },
): ArgumentCase[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, Schema>;
  const base = options.valid ?? baseline(inputSchema, options.readOnly);
  const out: ArgumentCase[] = [];
  const add = (title: string, category: AttackCategory, argument: string | undefined, args: string, value?: string) =>
    out.push({ title, category, argument, args, passes: judged(inputSchema, args), ...(value ? { value } : {}) });
  const relevant = (value: AttackValue, name: string, schema: Schema) =>
    options.large || !(value.arguments ?? RELEVANT[value.category]) ||
    (value.arguments ?? RELEVANT[value.category])!.test(`${name} ${String(schema.description ?? "")}`);
  const pick = (on: string) => values.filter((v) => (v.for ?? "string") === on && (options.large || !v.large));
  for (const [name, schema] of Object.entries(properties)) {
    const type = typeOf(schema);
    const items = (schema.items ?? {}) as Schema;
    const map = schema.additionalProperties as Schema | undefined;
    if (type === "string") {
      for (const v of pick("string")) {
        if (relevant(v, name, schema)) add(v.name, v.category, name, argsWith(base, name, v.json), v.json);
      }
    }
    if (type === "number" || type === "integer") {
      for (const v of pick("number")) add(v.name, v.category, name, argsWith(base, name, v.json), v.json);
    }
    if (type === "array") {
      for (const v of pick("array")) add(v.name, v.category, name, argsWith(base, name, v.json), v.json);
      if (typeOf(items) === "string") {
        for (const v of pick("string")) {
          if (relevant(v, name, schema)) {
            add(`${v.name}, as an item`, v.category, name, argsWith(base, name, `[${v.json}]`), `[${v.json}]`);
          }
        }
      }
    }
    if (type === "object") {
      for (const v of pick("object")) add(v.name, v.category, name, argsWith(base, name, v.json), v.json);
      if (typeof map === "object" && typeOf(map) === "string") {
        for (const v of pick("string")) {
          if (!relevant(v, name, schema)) continue;
          add(
            `${v.name}, as a value`,
            v.category,
            name,
            argsWith(base, name, `{"x-forge":${v.json}}`),
            `{"x-forge":${v.json}}`,
          );
          if (v.category === "log") {
            add(`${v.name}, as a key`, v.category, name, argsWith(base, name, `{${v.json}:"x"}`), `{${v.json}:"x"}`);
          }
        }
      }
    }
    for (const [title, json] of boundValues(schema)) add(title, "number", name, argsWith(base, name, json), json);
    for (const [wrong, json] of WRONG_TYPES) {
      if (wrong === type || (wrong === "integer" && type === "number")) continue;
      add(`${wrong} instead of ${type ?? "any"}`, "type", name, argsWith(base, name, json), json);
    }
  }
  const baseJson = JSON.stringify(base).slice(1, -1);
  const joined = (extra: string) => `{${baseJson}${baseJson ? "," : ""}${extra}}`;
  add("the arguments that should pass", "generic", undefined, JSON.stringify(base));
  add("an argument the tool does not have", "shape", undefined, joined('"forge_attack_extra":"@@tag@@"'));
  add("__proto__ among the arguments", "shape", undefined, joined('"__proto__":{"polluted":"@@tag@@"}'));
  add(
    "constructor among the arguments",
    "shape",
    undefined,
    joined('"constructor":{"prototype":{"polluted":"@@tag@@"}}'),
  );
  const firstString = Object.entries(properties).find(([, s]) => typeOf(s) === "string")?.[0];
  if (firstString !== undefined) {
    const dup = `${JSON.stringify(firstString)}:"@@up@@@@canary_file@@"`;
    add(`"${firstString}" twice, the second hostile`, "path", firstString, joined(dup));
  }
  if (Array.isArray(inputSchema.required) && inputSchema.required.length > 0) {
    add("no arguments", "shape", undefined, "{}");
  }
  for (
    const [title, json] of [["arguments null", "null"], ["arguments an array", "[]"], ["arguments a string", '"x"']]
  ) {
    out.push({ title, category: "type", argument: undefined, args: json, passes: false });
  }
  return out;
}
