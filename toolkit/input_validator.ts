// Checks a call's arguments against the tool's inputSchema before anything
// else sees them (patterns, middleware, handler). The schema is compiled once,
// at registration, into nested closures: a call walks only the closures its
// keywords produced, never the schema object. The walk follows the schema,
// whose depth the author controls, never the value's depth, so a deeply
// nested hostile value costs no more than the schema allows.
//
// Every keyword the output checker enforces is enforced here too, and a
// schema with any other keyword is refused at registration, so "validated"
// never silently means "partly validated".

import { describeValue } from "./_describe_value.ts";
import { unsupportedKeyword } from "./output_schema.ts";
import { quote } from "../internal/quote.ts";
import type { JsonSchema, JsonType, ObjectSchema } from "./schema.ts";

/** Where a value broke a rule, relative to the value checked (`""`: the value itself), and which rule. */
interface Failure {
  at: string;
  problem: string;
}

type Check = (value: unknown) => Failure | undefined;

/** A compiled validator: the message for the model, or undefined when the arguments are valid. */
export type InputValidator = (args: Readonly<Record<string, unknown>>) => string | undefined;

/**
 * Compiles `schema` into a validator. `fail` builds the error thrown for a
 * schema the toolkit cannot enforce (an unknown keyword, a bad pattern, a
 * bound that is not a number).
 */
export function compileInputValidator(schema: ObjectSchema, fail: (problem: string) => Error): InputValidator {
  const keyword = unsupportedKeyword(schema);
  if (keyword) throw fail(`inputSchema uses ${keyword}, which the toolkit cannot validate`);
  const check = compile(schema, "inputSchema", fail, true);
  return (args) => {
    const failure = check(args);
    if (failure === undefined) return undefined;
    return failure.at === ""
      ? `Invalid arguments: ${failure.problem}`
      : `Invalid argument ${quote(failure.at)}: ${failure.problem}`;
  };
}

type Fail = (problem: string) => Error;

const pass: Check = () => undefined;

function compile(schema: JsonSchema | boolean, where: string, fail: Fail, root = false): Check {
  if (schema === true) return pass;
  if (schema === false) return () => ({ at: "", problem: "is not allowed here (false schema)" });
  const checks: Check[] = [];
  if (schema.type !== undefined) checks.push(typeCheck(schema.type, where, fail));
  if (schema.enum !== undefined) checks.push(enumCheck(schema.enum, `${where}/enum`, fail, "enum"));
  if (Object.hasOwn(schema, "const")) checks.push(enumCheck([schema.const], `${where}/const`, fail, "const"));
  if (has(schema, "minLength", "maxLength", "pattern")) checks.push(stringCheck(schema, where, fail));
  if (has(schema, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")) {
    checks.push(numberCheck(schema, where, fail));
  }
  if (has(schema, "minItems", "maxItems", "items")) checks.push(arrayCheck(schema, where, fail));
  if (constrainsObject(schema)) checks.push(objectCheck(schema, where, fail, root));
  checks.push(...combinators(schema, where, fail));
  return all(checks);
}

function has(schema: JsonSchema, ...keywords: string[]): boolean {
  return keywords.some((k) => schema[k] !== undefined);
}

/** Whether an object's properties are constrained at all: an open schema with no properties costs nothing. */
function constrainsObject(schema: JsonSchema): boolean {
  const props = schema.properties;
  const named = props !== undefined && (props === null || typeof props !== "object" || Object.keys(props).length > 0);
  const extra = schema.additionalProperties;
  return named || schema.required !== undefined || (extra !== undefined && extra !== true);
}

function all(checks: Check[]): Check {
  if (checks.length === 0) return pass;
  if (checks.length === 1) return checks[0];
  if (checks.length === 2) {
    const [a, b] = checks;
    return (value) => a(value) ?? b(value);
  }
  return (value) => {
    for (const check of checks) {
      const failure = check(value);
      if (failure !== undefined) return failure;
    }
    return undefined;
  };
}

const TYPE_TESTS: Record<JsonType, (value: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  null: (v) => v === null,
};
const TYPE_NAMES: Record<JsonType, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

function typeCheck(type: unknown, where: string, fail: Fail): Check {
  const types = Array.isArray(type) ? type : [type];
  if (types.length === 0 || !types.every((t) => Object.hasOwn(TYPE_TESTS, t as string))) {
    throw fail(`${where}/type must name JSON types (${Object.keys(TYPE_TESTS).join(", ")})`);
  }
  const expected = `must be ${types.map((t: JsonType) => TYPE_NAMES[t]).join(" or ")} (type)`;
  const fails = (value: unknown): Failure => ({ at: "", problem: `${expected}, got ${describeValue(value)}` });
  if (types.length === 1) {
    const test = TYPE_TESTS[types[0] as JsonType];
    return (value) => test(value) ? undefined : fails(value);
  }
  const tests = types.map((t: JsonType) => TYPE_TESTS[t]);
  return (value) => tests.some((test) => test(value)) ? undefined : fails(value);
}

function enumCheck(values: unknown, where: string, fail: Fail, keyword: string): Check {
  if (!Array.isArray(values) || values.length === 0) throw fail(`${where} must be a non-empty array`);
  const shown = values.slice(0, 10).map((v) => JSON.stringify(v).slice(0, 64)).join(", ");
  const problem = `must be ${values.length === 1 ? "" : "one of "}${shown}${
    values.length > 10 ? ", …" : ""
  } (${keyword})`;
  const primitives = new Set(values.filter((v) => v === null || typeof v !== "object"));
  const objects = values.filter((v) => v !== null && typeof v === "object").map((v) => JSON.stringify(v));
  return (value) => {
    if (primitives.has(value)) return undefined;
    if (objects.length > 0 && value !== null && typeof value === "object") {
      if (objects.includes(JSON.stringify(value))) return undefined;
    }
    return { at: "", problem: `${problem}, got ${describeValue(value)}` };
  };
}

function count(schema: JsonSchema, keyword: string, where: string, fail: Fail): number | undefined {
  const value = schema[keyword];
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw fail(`${where}/${keyword} must be a non-negative integer`);
  }
  return value as number;
}

function bound(schema: JsonSchema, keyword: string, where: string, fail: Fail): number | undefined {
  const value = schema[keyword];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw fail(`${where}/${keyword} must be a finite number`);
  return value;
}

/** JSON Schema counts a string's length in code points; a surrogate pair is one. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function stringCheck(schema: JsonSchema, where: string, fail: Fail): Check {
  const min = count(schema, "minLength", where, fail);
  const max = count(schema, "maxLength", where, fail);
  const source = schema.pattern;
  let re: RegExp | undefined;
  if (source !== undefined) {
    if (typeof source !== "string") throw fail(`${where}/pattern must be a string`);
    try {
      // The author's pattern, compiled once; "u" makes it match by code point, as JSON Schema does.
      re = new RegExp(source, "u");
    } catch (err) {
      throw fail(`${where}/pattern is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  return (value) => {
    if (typeof value !== "string") return undefined;
    // UTF-16 length bounds the code points from both sides (n/2 ≤ points ≤ n): count only when it cannot decide.
    if (max !== undefined && value.length > max) {
      const n = codePoints(value);
      if (n > max) return { at: "", problem: `must be at most ${max} characters long (maxLength), got ${n}` };
    }
    if (min !== undefined && value.length < 2 * min) {
      const n = codePoints(value);
      if (n < min) return { at: "", problem: `must be at least ${min} characters long (minLength), got ${n}` };
    }
    // Length first: an author's pattern never runs on a string its maxLength refuses.
    if (re !== undefined && !re.test(value)) {
      return { at: "", problem: `must match the pattern ${quote(source)} (pattern)` };
    }
    return undefined;
  };
}

function numberCheck(schema: JsonSchema, where: string, fail: Fail): Check {
  const min = bound(schema, "minimum", where, fail);
  const max = bound(schema, "maximum", where, fail);
  const exMin = bound(schema, "exclusiveMinimum", where, fail);
  const exMax = bound(schema, "exclusiveMaximum", where, fail);
  return (value) => {
    if (typeof value !== "number") return undefined;
    if (min !== undefined && value < min) return { at: "", problem: `must be at least ${min} (minimum), got ${value}` };
    if (max !== undefined && value > max) return { at: "", problem: `must be at most ${max} (maximum), got ${value}` };
    if (exMin !== undefined && value <= exMin) {
      return { at: "", problem: `must be greater than ${exMin} (exclusiveMinimum), got ${value}` };
    }
    if (exMax !== undefined && value >= exMax) {
      return { at: "", problem: `must be less than ${exMax} (exclusiveMaximum), got ${value}` };
    }
    return undefined;
  };
}

function arrayCheck(schema: JsonSchema, where: string, fail: Fail): Check {
  const min = count(schema, "minItems", where, fail);
  const max = count(schema, "maxItems", where, fail);
  const item = schema.items === undefined ? undefined : compile(schema.items, `${where}/items`, fail);
  return (value) => {
    if (!Array.isArray(value)) return undefined;
    if (min !== undefined && value.length < min) {
      return { at: "", problem: `must hold at least ${min} items (minItems), got ${value.length}` };
    }
    if (max !== undefined && value.length > max) {
      return { at: "", problem: `must hold at most ${max} items (maxItems), got ${value.length}` };
    }
    if (item !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const failure = item(value[i]);
        if (failure !== undefined) return nest(`[${i}]`, failure);
      }
    }
    return undefined;
  };
}

function objectCheck(schema: JsonSchema, where: string, fail: Fail, root: boolean): Check {
  const properties = schema.properties ?? {};
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) {
    throw fail(`${where}/properties must be an object`);
  }
  const checks = new Map<string, Check>();
  for (const [name, sub] of Object.entries(properties)) {
    checks.set(name, compile(sub, `${where}/properties/${name}`, fail));
  }
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) {
    throw fail(`${where}/required must be an array of property names`);
  }
  const optional = (name: string) => !required.includes(name);
  const extra = schema.additionalProperties;
  const extraCheck = extra === undefined || extra === true || extra === false
    ? undefined
    : compile(extra as JsonSchema, `${where}/additionalProperties`, fail);
  const names = [...checks.keys()];
  const known = names.length === 0
    ? "; it takes none"
    : `; ${root ? "the tool's arguments" : "its properties"} are ${
      names.slice(0, 20).map((n) => quote(n, 32)).join(", ")
    }${names.length > 20 ? ", …" : ""}`;
  const unknown = `is not ${root ? "an argument of this tool" : "an allowed property"} (additionalProperties)${known}`;
  return (value) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    const object = value as Record<string, unknown>;
    for (let i = 0; i < required.length; i++) {
      if (!Object.hasOwn(object, required[i])) return { at: required[i], problem: "is required (required)" };
    }
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      const item = object[key];
      const check = checks.get(key) ?? extraCheck;
      if (check !== undefined) {
        const failure = check(item);
        if (failure === undefined) continue;
        // A model often sends null for an optional argument it means to leave out: say how to do that.
        if (item === null && failure.at === "" && checks.has(key) && optional(key)) {
          return { at: key, problem: `${failure.problem}; to leave it out, omit it rather than sending null` };
        }
        return nest(key, failure);
      }
      if (extra === false) return { at: key, problem: unknown };
    }
    return undefined;
  };
}

function combinators(schema: JsonSchema, where: string, fail: Fail): Check[] {
  const list = (keyword: string): Check[] | undefined => {
    const subs = schema[keyword];
    if (subs === undefined) return undefined;
    if (!Array.isArray(subs) || subs.length === 0) throw fail(`${where}/${keyword} must be a non-empty array`);
    return subs.map((sub, i) => compile(sub, `${where}/${keyword}/${i}`, fail));
  };
  const out: Check[] = [];
  const allOf = list("allOf");
  if (allOf) out.push(all(allOf));
  const anyOf = list("anyOf");
  if (anyOf) {
    out.push((value) =>
      anyOf.some((c) => c(value) === undefined)
        ? undefined
        : { at: "", problem: `matches none of the ${anyOf.length} allowed forms (anyOf)` }
    );
  }
  const oneOf = list("oneOf");
  if (oneOf) {
    out.push((value) => {
      const n = oneOf.filter((c) => c(value) === undefined).length;
      return n === 1
        ? undefined
        : { at: "", problem: `must match exactly one of ${oneOf.length} forms (oneOf), matches ${n}` };
    });
  }
  return out;
}

function nest(step: string, failure: Failure): Failure {
  const at = failure.at === "" ? step : failure.at.startsWith("[") ? step + failure.at : `${step}.${failure.at}`;
  return { at, problem: failure.problem };
}
