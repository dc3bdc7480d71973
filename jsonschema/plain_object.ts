// Most tool schemas are one object of scalar properties: `{type: "object",
// properties: {text: {type: "string"}}, required: ["text"]}`. For those, a
// value is accepted by one loop over its keys instead of the engine's chain of
// checks, and a value the loop does not accept is explained here too: the
// failure the engine would report (its order of checks, its keywords, its
// words), found in a second, slower walk. So such a schema needs none of the
// engine's modules (a server whose tools all have one starts without loading
// them), and `plain_object_test.ts` holds the answers equal to the engine's
// over generated schemas and values.

import { describeValue } from "../internal/describe_value.ts";
import { TYPE_NAMES, TYPE_TESTS } from "./_json_types.ts";
import { failureText } from "./_failure_text.ts";
import { isPlainSchema, objectAcceptor, SCALAR_TYPES, SCHEMA_ANNOTATIONS } from "./_object_acceptor.ts";
import type { SchemaFailure, SchemaValidator } from "./compile_schema.ts";

const ROOT_KEYWORDS = new Set(["type", "properties", "required", "additionalProperties", ...SCHEMA_ANNOTATIONS]);
const PROPERTY_KEYWORDS = new Set(["type", ...SCHEMA_ANNOTATIONS]);
// What `type: "object"` accepts, as a type guard.
const isObject = TYPE_TESTS.object as (value: unknown) => value is Record<string, unknown>;

/**
 * The validator of a plain object schema: `type: "object"`, `properties`
 * each of one scalar `type` (plus annotations), `required` (a list of
 * distinct names) and a boolean `additionalProperties`, nothing else. Its
 * answers are the engine's, failure for failure. Undefined for any other
 * schema, which only the engine compiles (and refuses when it is not valid):
 * a schema taken here is one the engine compiles without a problem.
 */
export function plainObjectValidator(schema: unknown): SchemaValidator | undefined {
  // A schema object is read by its keys: one whose keywords sit elsewhere (inherited, hidden) is the engine's.
  if (!isPlainSchema(schema) || schema.type !== "object" || !Object.keys(schema).every((k) => ROOT_KEYWORDS.has(k))) {
    return undefined;
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && typeof extra !== "boolean") return undefined;
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return undefined;
  const listed = schema.required ?? [];
  if (!Array.isArray(listed) || !listed.every((n) => typeof n === "string") || new Set(listed).size < listed.length) {
    return undefined;
  }
  const requiredList = [...listed] as string[];
  const required = new Set(requiredList);
  // Each property's type, and whether it is required.
  const rules = new Map<string, Rule>();
  for (const name of Object.keys(properties)) {
    const property = properties[name];
    if (!isPlainSchema(property) || !Object.keys(property).every((k) => PROPERTY_KEYWORDS.has(k))) return undefined;
    const type = property.type;
    if (typeof type !== "string" || !SCALAR_TYPES.has(type)) return undefined;
    rules.set(name, { type, test: TYPE_TESTS[type], required: required.has(name) });
  }
  const names = [...rules.keys()];
  const closed = extra === false;
  const accepts = objectAcceptor(rules, required, closed);
  // The engine's order: the value's type, then each required name in the list's order, then each own key in the
  // value's order: its property's type, or, not being a property of a closed schema, the key itself.
  const explain = (value: unknown): SchemaFailure => {
    if (!isObject(value)) return failure([], "type", `must be an object`, `got ${describeValue(value)}`);
    const object = value as Record<string, unknown>;
    for (const name of requiredList) if (!Object.hasOwn(object, name)) return failure([name], "required", "is missing");
    for (const key of Object.keys(object)) {
      const rule = rules.get(key);
      const item = object[key];
      if (rule !== undefined) {
        if (rule.test(item)) continue;
        const text = `must be ${TYPE_NAMES[rule.type]}`;
        return failure([key], "type", text, `got ${describeValue(item)}`, item === null && !rule.required);
      }
      if (closed) return failure([key], "additionalProperties", "is not an allowed property", undefined, false, names);
    }
    // The loop refused only what the walk finds; a value both pass is valid.
    throw new Error("plain object schema: the value was refused with no failure to report");
  };
  return (value) => accepts(value) ? undefined : explain(value);
}

interface Rule {
  type: string;
  test: (value: unknown) => boolean;
  required: boolean;
}

function failure(
  path: string[],
  keyword: string,
  rule: string,
  detail?: string,
  nullForOptional = false,
  allowed?: readonly string[],
): SchemaFailure {
  return {
    path,
    keyword,
    message: failureText(rule, keyword, detail, allowed),
    nullForOptional,
    ...(allowed === undefined ? {} : { allowed }),
  };
}
