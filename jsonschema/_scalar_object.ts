// A shortcut in front of the compiled validator of the most common tool
// schema the plain-object check (./plain_object.ts) does not take: an object
// whose properties each hold one scalar check, the schema helpers' `strProp`
// with `maxLength`, `intProp` with bounds, `enumProp`, or a local
// `#/$defs/<name>` reference to such a check. One loop over the value's keys
// accepts a valid value, with no run state and no closure per keyword. A value
// it does not accept goes to the engine, which finds and words the failure:
// the shortcut must never accept a value the engine refuses, and
// `_scalar_object_test.ts` holds its answers equal to the engine's both ways.

import { TYPE_TESTS } from "./_json_types.ts";
import {
  isPlainSchema,
  objectAcceptor,
  type PropertyRule,
  SCALAR_TYPES,
  SCHEMA_ANNOTATIONS,
} from "./_object_acceptor.ts";
import { codePoints } from "./_validation.ts";

// Not `$comment` at the root: a schema holding it there goes to the engine alone, which the tests use to compare.
const ROOT_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "$defs",
  "$schema",
  ...SCHEMA_ANNOTATIONS,
]);
// The numeric keywords of a scalar check: string lengths and number bounds.
const BOUNDS = ["minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const CHECK_KEYWORDS = new Set<string>(["$comment", "type", "enum", "const", ...BOUNDS, ...SCHEMA_ANNOTATIONS]);
const LOCAL_DEF = /^#\/\$defs\/([A-Za-z0-9_]+)$/;
const isObject = TYPE_TESTS.object as (value: unknown) => value is Record<string, unknown>;

/**
 * A test that accepts exactly the values the engine finds valid against
 * `schema`, when `schema` is a scalar object schema the engine has compiled;
 * undefined for any other schema. `format` is an annotation unless
 * `assertFormats`, and then the schema is not taken.
 */
export function scalarObjectAcceptor(
  schema: unknown,
  assertFormats: boolean,
): ((value: unknown) => boolean) | undefined {
  if (!isPlainSchema(schema) || schema.type !== "object" || !Object.keys(schema).every((k) => ROOT_KEYWORDS.has(k))) {
    return undefined;
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && typeof extra !== "boolean") return undefined;
  const properties = schema.properties ?? {};
  const defs = schema.$defs ?? {};
  if (!isObject(properties) || !isObject(defs)) return undefined;
  const listed = schema.required ?? [];
  if (!Array.isArray(listed) || !listed.every((n) => typeof n === "string")) return undefined;
  const required = new Set(listed as string[]);
  const rules = new Map<string, PropertyRule>();
  for (const name of Object.keys(properties)) {
    const test = propertyTest(properties[name], defs, assertFormats);
    if (test === undefined) return undefined;
    rules.set(name, { test, required: required.has(name) });
  }
  return objectAcceptor(rules, required, extra === false);
}

/** The test of one property's schema: its own check and, through a local `$ref`, its definition's; or undefined. */
function propertyTest(
  schema: unknown,
  defs: Record<string, unknown>,
  assertFormats: boolean,
): ((value: unknown) => boolean) | undefined {
  // Each schema object is read by its keys: one whose keywords sit elsewhere (inherited, hidden) is the engine's.
  if (!isPlainSchema(schema)) return undefined;
  const own = scalarCheck(schema, assertFormats, true);
  if (own === undefined || schema.$ref === undefined) return own === undefined ? undefined : compile(own);
  const name = typeof schema.$ref === "string" ? LOCAL_DEF.exec(schema.$ref)?.[1] : undefined;
  const target = name !== undefined && Object.hasOwn(defs, name) ? defs[name] : undefined;
  // The definition holds no $ref of its own: no chain, no cycle.
  const referred = isPlainSchema(target) ? scalarCheck(target, assertFormats, false) : undefined;
  return referred === undefined ? undefined : compile(meet(own, referred));
}

/** What one scalar schema asks of a value, each keyword absent when undefined. */
interface ScalarCheck {
  /** Type names the value must have, each (a `$ref` and its definition can each name one). */
  types: string[];
  /** Sets the value must be in, each (`const`, `enum`). */
  sets: Set<unknown>[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** The check of a scalar schema, or undefined when it holds any other keyword. */
function scalarCheck(
  schema: Record<string, unknown>,
  assertFormats: boolean,
  withRef: boolean,
): ScalarCheck | undefined {
  for (const key of Object.keys(schema)) {
    if (key === "$ref" ? !withRef : key === "format" ? assertFormats : !CHECK_KEYWORDS.has(key)) return undefined;
  }
  const check: ScalarCheck = { types: [], sets: [] };
  if (schema.type !== undefined) {
    if (typeof schema.type !== "string" || !SCALAR_TYPES.has(schema.type)) return undefined;
    check.types.push(schema.type);
  }
  for (const keyword of ["const", "enum"] as const) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const values = keyword === "const" ? [schema.const] : schema.enum;
    if (!Array.isArray(values) || !values.every((v) => v === null || typeof v !== "object")) return undefined;
    // The engine's comparison of scalars: one Set, SameValueZero (1 and 1.0 are one number, so are 0 and -0).
    check.sets.push(new Set(values));
  }
  for (const keyword of BOUNDS) {
    const bound = schema[keyword];
    if (bound !== undefined) {
      // The engine compiled the schema, so each bound is a number; anything else is not taken.
      if (typeof bound !== "number") return undefined;
      check[keyword] = bound;
    }
  }
  return check;
}

/** The check of both: every type and set of each, and of each pair of bounds the tighter. */
function meet(a: ScalarCheck, b: ScalarCheck): ScalarCheck {
  const tighter = (x: number | undefined, y: number | undefined, pick: (x: number, y: number) => number) =>
    x === undefined ? y : y === undefined ? x : pick(x, y);
  return {
    types: [...a.types, ...b.types],
    sets: [...a.sets, ...b.sets],
    minLength: tighter(a.minLength, b.minLength, Math.max),
    maxLength: tighter(a.maxLength, b.maxLength, Math.min),
    minimum: tighter(a.minimum, b.minimum, Math.max),
    maximum: tighter(a.maximum, b.maximum, Math.min),
    exclusiveMinimum: tighter(a.exclusiveMinimum, b.exclusiveMinimum, Math.max),
    exclusiveMaximum: tighter(a.exclusiveMaximum, b.exclusiveMaximum, Math.min),
  };
}

/** One closure for the whole check, its bounds constants of it: no call per keyword. */
function compile(check: ScalarCheck): (value: unknown) => boolean {
  const types = check.types.map((name) => TYPE_TESTS[name]);
  const { sets, minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum } = check;
  const lengths = minLength !== undefined || maxLength !== undefined;
  const bounds = [minimum, maximum, exclusiveMinimum, exclusiveMaximum].some((b) => b !== undefined);
  return (value) => {
    for (let i = 0; i < types.length; i++) if (!types[i](value)) return false;
    for (let i = 0; i < sets.length; i++) if (!sets[i].has(value)) return false;
    if (typeof value === "string") {
      if (!lengths) return true;
      // UTF-16 length bounds the code points from both sides (n/2 ≤ points ≤ n): count only when it cannot decide.
      if (maxLength !== undefined && value.length > maxLength && codePoints(value) > maxLength) return false;
      if (minLength !== undefined && value.length < 2 * minLength && codePoints(value) < minLength) return false;
      return true;
    }
    if (typeof value === "number" && bounds) {
      if (minimum !== undefined && value < minimum) return false;
      if (maximum !== undefined && value > maximum) return false;
      if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return false;
      if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) return false;
    }
    return true;
  };
}
