// The validation vocabulary: the keywords that check a value itself, with no
// subschema. `type`; `const` and `enum` by JSON equality; string lengths in
// code points and `pattern`; numeric bounds and an exact `multipleOf`; item and
// property counts, `uniqueItems`, `required` and `dependentRequired`. They
// are the cheap checks, run before anything descends into the value.

import { describeValue } from "../internal/describe_value.ts";
import { TYPE_NAMES, TYPE_TESTS } from "./_json_types.ts";
import { type Check, Failure, isObject, type Run } from "./_check.ts";
import type { Compiler, Location } from "./_compiler.ts";
import { canonicalJson, writeCanonical } from "../internal/canonical_json.ts";
import { quote } from "../internal/quote.ts";
import { ValueIds } from "./_value_ids.ts";
import { linearRegex, PROGRAM_LIMIT } from "./_regex.ts";
import { respellLegacy } from "./_regex_legacy.ts";
import { ProgramTooLarge } from "./_regex_program.ts";

// `type`: one JSON type or a list of them (./_json_types.ts).

/** The check of `type`, or undefined when the schema has none. */
export function typeCheck(c: Compiler, at: Location): Check | undefined {
  const type = (at.schema as Record<string, unknown>).type;
  if (type === undefined) return undefined;
  const types = Array.isArray(type) ? type : [type];
  if (
    types.length === 0 || !types.every((t) => typeof t === "string" && Object.hasOwn(TYPE_TESTS, t)) ||
    new Set(types).size !== types.length
  ) {
    c.refuse(at, "type", `must name JSON types, each once (${Object.keys(TYPE_TESTS).join(", ")})`);
  }
  const rule = `must be ${types.map((t: string) => TYPE_NAMES[t]).join(" or ")}`;
  const fails = (value: unknown) => new Failure("type", rule, `got ${describeValue(value)}`);
  if (types.length === 1) {
    const test = TYPE_TESTS[types[0]];
    return (value) => test(value) ? undefined : fails(value);
  }
  const tests = types.map((t: string) => TYPE_TESTS[t]);
  return (value) => {
    for (let i = 0; i < tests.length; i++) if (tests[i](value)) return undefined;
    return fails(value);
  };
}

// `const` and `enum`, which compare by JSON equality: objects equal whatever
// the order of their keys, arrays item by item, numbers by value (1 and 1.0
// are one number). Objects and arrays are compared through their canonical
// JSON, written only as far as the longest allowed one: a value cannot cost
// more than the schema's own values, however large it is, and however many
// levels of it a recursive schema checks.

/** The checks of `const` and `enum`, when present. */
export function valueChecks(c: Compiler, at: Location): Check[] {
  const schema = at.schema as Record<string, unknown>;
  const out: Check[] = [];
  if (Object.hasOwn(schema, "const")) out.push(oneOf([schema.const], "const"));
  if (schema.enum !== undefined) {
    if (!Array.isArray(schema.enum)) c.refuse(at, "enum", "must be an array");
    out.push(oneOf(schema.enum, "enum"));
  }
  return out;
}

function oneOf(values: readonly unknown[], keyword: string): Check {
  const shown = values.slice(0, 10).map((v) => (JSON.stringify(v) ?? "null").slice(0, 64)).join(", ");
  const rule = values.length === 0
    ? "cannot be any value: the list is empty"
    : `must be ${values.length === 1 ? "" : "one of "}${shown}${values.length > 10 ? ", …" : ""}`;
  const scalars = new Set(values.filter((v) => v === null || typeof v !== "object"));
  const containers = new Set(values.filter((v) => v !== null && typeof v === "object").map(canonicalJson));
  const longest = Math.max(0, ...[...containers].map((text) => text.length));
  return (value) => {
    const match = value !== null && typeof value === "object"
      ? containers.size > 0 && containers.has(canonicalJsonUpTo(value, longest)!)
      : scalars.has(value);
    return match ? undefined : new Failure(keyword, rule, `got ${describeValue(value)}`);
  };
}

const TOO_LONG = Symbol("too long");

/** The canonical JSON of `value`, or undefined once it passes `max` characters (the rest is never written). */
function canonicalJsonUpTo(value: object, max: number): string | undefined {
  const out: string[] = [];
  let length = 0;
  try {
    writeCanonical(value, (piece) => {
      length += piece.length;
      if (length > max) throw TOO_LONG;
      out.push(piece);
    });
  } catch (err) {
    if (err === TOO_LONG) return undefined;
    throw err;
  }
  return out.join("");
}

// `minLength`, `maxLength` and `pattern`. Length counts code points, as JSON
// Schema does (a surrogate pair is one). The lengths are checked first, so an
// author's pattern never runs on a string its `maxLength` refuses: the one
// kind of pattern that backtracks (a backreference) is accepted only under a
// `maxLength`, and cannot be fed a megabyte.

/** JSON Schema counts a string's length in code points; a surrogate pair is one. */
export function codePoints(text: string): number {
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

/** A compiled `pattern` or `patternProperties` expression. */
export interface Pattern {
  test(text: string): boolean;
}

/**
 * Compiles a schema's regular expression once, for a matcher whose work is
 * linear in the string (jsonschema/_regex.ts), with the verdicts of the `u`
 * flag: JSON Schema matches by code point. A pattern only the older syntax
 * accepts is respelled for the `u` flag where that changes no match (`\-`
 * outside a class, a lone `}`); any other is refused, as is a program whose
 * counted repetitions expand past the matcher's limit. A backreference
 * (`\1`, `\k<name>`) cannot be matched in linear time: such a pattern runs on
 * V8 only where `maxLength` bounds the string (`bound`), and is refused
 * elsewhere.
 *
 * @throws {SchemaError} (through `c.refuse`) When the pattern is refused.
 */
export function compilePattern(
  c: Compiler,
  at: Location,
  keyword: string | string[],
  source: unknown,
  bound?: number,
): Pattern {
  if (typeof source !== "string") c.refuse(at, keyword, "must be a string (a regular expression)");
  let unicode: string;
  try {
    new RegExp(source, "u");
    unicode = source;
  } catch (err) {
    unicode = respellLegacy(source);
    try {
      new RegExp(unicode, "u");
    } catch {
      c.refuse(at, keyword, `is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  let matcher: ReturnType<typeof linearRegex>;
  try {
    matcher = linearRegex(unicode);
  } catch (err) {
    if (!(err instanceof ProgramTooLarge)) throw err;
    c.refuse(
      at,
      keyword,
      `repeats more than a linear-time matcher takes (${PROGRAM_LIMIT} instructions): lower its counts`,
    );
  }
  if (!("backreference" in matcher)) return matcher;
  if (bound !== undefined) return new RegExp(unicode, "u");
  const cut = quote(matcher.backreference, 16);
  c.refuse(
    at,
    keyword,
    Array.isArray(keyword)
      ? `uses the backreference ${cut}, which no linear-time matcher can follow: remove it`
      : `uses the backreference ${cut}, which no linear-time matcher can follow: remove it, or bound the string ` +
        "with maxLength (the pattern then backtracks on at most that many characters)",
  );
}

/** The check of `minLength`, `maxLength` and `pattern`, or undefined when the schema has none. */
export function stringCheck(c: Compiler, at: Location): Check | undefined {
  const schema = at.schema as Record<string, unknown>;
  const min = c.count(at, "minLength");
  const max = c.count(at, "maxLength");
  const re = schema.pattern === undefined ? undefined : compilePattern(c, at, "pattern", schema.pattern, max);
  if (min === undefined && max === undefined && re === undefined) return undefined;
  const patternRule = `must match the pattern ${quote(schema.pattern)}`;
  return (value) => {
    if (typeof value !== "string") return undefined;
    // UTF-16 length bounds the code points from both sides (n/2 ≤ points ≤ n): count only when it cannot decide.
    if (max !== undefined && value.length > max) {
      const n = codePoints(value);
      if (n > max) return new Failure("maxLength", `must be at most ${max} characters long`, `got ${n}`);
    }
    if (min !== undefined && value.length < 2 * min) {
      const n = codePoints(value);
      if (n < min) return new Failure("minLength", `must be at least ${min} characters long`, `got ${n}`);
    }
    if (re !== undefined && !re.test(value)) return new Failure("pattern", patternRule);
    return undefined;
  };
}

// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and
// `multipleOf`. A multiple is decided on the decimals as written, not on
// binary floating point: 0.0075 is a multiple of 0.0001 although
// 0.0075 / 0.0001 is 75.00000000000001 in doubles.

/** A finite number as an exact decimal: `digits × 10^exponent`. */
function decimal(n: number): { digits: bigint; exponent: number } {
  const [mantissa, exp = "0"] = String(Math.abs(n)).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  return { digits: BigInt(whole + fraction), exponent: Number(exp) - fraction.length };
}

/**
 * Whether `value` is an integer multiple of `divisor` (> 0), exactly, on the
 * shortest decimals that print as them. Exponents stay within ±400, so the
 * integers stay below about 800 digits: the cost is bounded.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (Number.isInteger(value) && Number.isInteger(divisor) && Number.isSafeInteger(value)) {
    return value % divisor === 0;
  }
  const a = decimal(value);
  const b = decimal(divisor);
  const exponent = Math.min(a.exponent, b.exponent);
  const scaledA = a.digits * 10n ** BigInt(a.exponent - exponent);
  const scaledB = b.digits * 10n ** BigInt(b.exponent - exponent);
  return scaledA % scaledB === 0n;
}

/** The check of the numeric keywords, or undefined when the schema has none. */
export function numberCheck(c: Compiler, at: Location): Check | undefined {
  const min = c.number(at, "minimum");
  const max = c.number(at, "maximum");
  const exMin = c.number(at, "exclusiveMinimum");
  const exMax = c.number(at, "exclusiveMaximum");
  const divisor = c.number(at, "multipleOf");
  if (divisor !== undefined && divisor <= 0) c.refuse(at, "multipleOf", "must be greater than 0");
  if ([min, max, exMin, exMax, divisor].every((bound) => bound === undefined)) return undefined;
  return (value) => {
    if (typeof value !== "number") return undefined;
    if (min !== undefined && value < min) return new Failure("minimum", `must be at least ${min}`, `got ${value}`);
    if (max !== undefined && value > max) return new Failure("maximum", `must be at most ${max}`, `got ${value}`);
    if (exMin !== undefined && value <= exMin) {
      return new Failure("exclusiveMinimum", `must be greater than ${exMin}`, `got ${value}`);
    }
    if (exMax !== undefined && value >= exMax) {
      return new Failure("exclusiveMaximum", `must be less than ${exMax}`, `got ${value}`);
    }
    if (divisor !== undefined && Number.isFinite(value) && !isMultipleOf(value, divisor)) {
      return new Failure("multipleOf", `must be a multiple of ${divisor}`, `got ${value}`);
    }
    return undefined;
  };
}

// `minItems`, `maxItems` and `uniqueItems`. `uniqueItems` keys each item by
// its number from the run's ValueIds (equal JSON, equal number) in a map, so
// a hostile array costs time linear in its size, not quadratic in its length,
// and a value checked at every level of a recursive schema is read once.

/** The checks of the array keywords that need no subschema, when present. */
export function arrayCountCheck(c: Compiler, at: Location): Check | undefined {
  const schema = at.schema as Record<string, unknown>;
  const min = c.count(at, "minItems");
  const max = c.count(at, "maxItems");
  const unique = schema.uniqueItems;
  if (unique !== undefined && typeof unique !== "boolean") c.refuse(at, "uniqueItems", "must be true or false");
  if (min === undefined && max === undefined && unique !== true) return undefined;
  if (unique === true) c.comparesValues = true;
  return (value, run) => {
    if (!Array.isArray(value)) return undefined;
    if (min !== undefined && value.length < min) {
      return new Failure("minItems", `must hold at least ${min} items`, `got ${value.length}`);
    }
    if (max !== undefined && value.length > max) {
      return new Failure("maxItems", `must hold at most ${max} items`, `got ${value.length}`);
    }
    return unique === true ? duplicate(value, run) : undefined;
  };
}

function duplicate(items: readonly unknown[], run: Run): Failure | undefined {
  if (items.length < 2) return undefined;
  const ids = run.ids ??= new ValueIds();
  const seen = new Map<number, number>();
  for (let i = 0; i < items.length; i++) {
    const id = ids.of(items[i]);
    const first = seen.get(id);
    if (first !== undefined) {
      return new Failure("uniqueItems", "must hold unique items", `but items ${first} and ${i} are equal`);
    }
    seen.set(id, i);
  }
  return undefined;
}

// `required`, `dependentRequired`, `minProperties`, `maxProperties`. Presence
// is an own property, so "__proto__" or "toString" are names like any other.

/** A keyword whose value must be a list of distinct property names. */
export function nameList(c: Compiler, at: Location, keyword: string | string[], value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string") || new Set(value).size < value.length) {
    c.refuse(at, keyword, "must be an array of distinct property names");
  }
  // A copy: the check keeps it, and a later edit of the schema's array changes nothing.
  return [...value];
}

/** The check of `required`, `dependentRequired`, `minProperties` and `maxProperties`, or undefined when absent. */
export function objectCountCheck(c: Compiler, at: Location): Check | undefined {
  const schema = at.schema as Record<string, unknown>;
  const required = schema.required === undefined ? [] : nameList(c, at, "required", schema.required);
  const dependent = (c.names(at, "dependentRequired") ?? []).map((name) => {
    const needs = (schema.dependentRequired as Record<string, unknown>)[name];
    return { name, needs: nameList(c, at, ["dependentRequired", name], needs) };
  });
  const min = c.count(at, "minProperties");
  const max = c.count(at, "maxProperties");
  if (required.length === 0 && dependent.length === 0 && min === undefined && max === undefined) return undefined;
  return (value) => {
    if (!isObject(value)) return undefined;
    for (let i = 0; i < required.length; i++) {
      if (!Object.hasOwn(value, required[i])) return new Failure("required", "is missing").at(required[i]);
    }
    for (const { name, needs } of dependent) {
      if (!Object.hasOwn(value, name)) continue;
      for (const need of needs) {
        if (!Object.hasOwn(value, need)) {
          return new Failure("dependentRequired", `is required when ${quote(name, 32)} is present`).at(need);
        }
      }
    }
    if (min !== undefined || max !== undefined) {
      let n = 0;
      for (const key in value) if (Object.hasOwn(value, key)) n++;
      if (min !== undefined && n < min) {
        return new Failure("minProperties", `must have at least ${min} properties`, `got ${n}`);
      }
      if (max !== undefined && n > max) {
        return new Failure("maxProperties", `must have at most ${max} properties`, `got ${n}`);
      }
    }
    return undefined;
  };
}
