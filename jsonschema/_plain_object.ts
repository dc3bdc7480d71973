// Most tool schemas are one object of scalar properties: `{type: "object",
// properties: {text: {type: "string"}}, required: ["text"]}`. For those, a
// value is accepted by one loop over its keys instead of the engine's chain of
// checks; anything the loop does not accept goes to the engine, which finds
// the failure and words it, so only the verdict "valid" is ever given here.

import { isObject } from "./_check.ts";
import { TYPE_TESTS } from "./_validation.ts";

/** Keywords that assert nothing (annotations): a schema holding only these and the ones handled here qualifies. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly"]);
const ROOT_KEYWORDS = new Set(["type", "properties", "required", "additionalProperties", ...ANNOTATIONS]);
const PROPERTY_KEYWORDS = new Set(["type", ...ANNOTATIONS]);
/** Types whose test looks at the value alone (never into it). */
const SCALARS = new Set(["string", "integer", "number", "boolean", "null"]);

/**
 * For a schema that is an object of scalar-typed properties — `type:
 * "object"`, `properties` each holding one scalar `type` and annotations,
 * `required`, and `additionalProperties` absent, `true` or `false` — a test
 * that is true exactly when the engine finds the value valid. Undefined for
 * any other schema. `schema` must already have compiled (its keywords are
 * not checked again here); what it holds is copied, so a later edit of it
 * changes nothing.
 */
export function plainObjectAcceptor(schema: unknown): ((value: unknown) => boolean) | undefined {
  if (!isObject(schema) || schema.type !== "object" || !Object.keys(schema).every((k) => ROOT_KEYWORDS.has(k))) {
    return undefined;
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && typeof extra !== "boolean") return undefined;
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required as string[] : []);
  // Each property's test, and whether it is required.
  const rules = new Map<string, Rule>();
  for (const name of Object.keys(properties)) {
    const property = properties[name];
    if (!isObject(property) || !Object.keys(property).every((k) => PROPERTY_KEYWORDS.has(k))) return undefined;
    const type = property.type;
    if (typeof type !== "string" || !SCALARS.has(type)) return undefined;
    rules.set(name, { test: TYPE_TESTS[type], required: required.has(name) });
  }
  const closed = extra === false;
  // A required name with no property: any value where others are allowed; where none are, no object is valid.
  if (!closed) { for (const name of required) if (!rules.has(name)) rules.set(name, { test: ANY, required: true }); }
  const requiredCount = required.size;
  return (value) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    // Own keys are distinct: counting the required ones met tells whether all are there.
    let met = 0;
    // Its own keys, as the engine reads them (for…in, skipping inherited ones): a list of them costs the server
    // less than for…in with a check per key.
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const rule = rules.get(key);
      if (rule === undefined) {
        if (closed) return false;
        continue;
      }
      if (!rule.test((value as Record<string, unknown>)[key])) return false;
      if (rule.required) met++;
    }
    return met === requiredCount;
  };
}

interface Rule {
  test: (value: unknown) => boolean;
  required: boolean;
}

const ANY = (): boolean => true;
