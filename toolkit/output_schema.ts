// Checks structuredContent against a tool's outputSchema before it is sent.
// A deliberately small JSON Schema subset: every keyword it accepts is
// enforced, and a schema that uses anything else is refused at registration,
// so "validated" never silently means "partly validated". The walk follows
// the schema, whose depth the author controls, never the value's depth.

import type { JsonSchema } from "./schema.ts";

const ENFORCED = new Set([
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "anyOf",
  "oneOf",
  "allOf",
]);
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "format",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/** Returns the first keyword the checker cannot enforce, with its location, or undefined. */
export function unsupportedKeyword(schema: unknown, at = "#"): string | undefined {
  if (typeof schema === "boolean") return undefined;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return `${at} (not a schema)`;
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (!ENFORCED.has(key)) return `${at}/${key}`;
    if (key === "properties") {
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
        const bad = unsupportedKeyword(sub, `${at}/properties/${name}`);
        if (bad) return bad;
      }
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      const bad = unsupportedKeyword(value, `${at}/${key}`);
      if (bad) return bad;
    } else if (key === "anyOf" || key === "oneOf" || key === "allOf") {
      if (!Array.isArray(value)) return `${at}/${key} (not an array)`;
      for (let i = 0; i < value.length; i++) {
        const bad = unsupportedKeyword(value[i], `${at}/${key}/${i}`);
        if (bad) return bad;
      }
    }
  }
  return undefined;
}

/** Returns the first way `value` breaks `schema` (with a JSON pointer), or undefined. */
export function checkValue(schema: JsonSchema | boolean, value: unknown, at = ""): string | undefined {
  if (schema === true) return undefined;
  if (schema === false) return `${at || "/"}: no value is allowed here`;
  const where = at || "/";
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => hasType(value, t))) {
      return `${where}: expected ${types.join(" or ")}, got ${typeName(value)}`;
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((e) => deepEqual(e, value))) {
    return `${where}: not one of the allowed values`;
  }
  if (Object.hasOwn(schema, "const") && !deepEqual(schema.const, value)) return `${where}: not the constant value`;
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) {
      return `${where}: shorter than ${schema.minLength}`;
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) return `${where}: longer than ${schema.maxLength}`;
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
      return `${where}: does not match the pattern`;
    }
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) return `${where}: below ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${where}: above ${schema.maximum}`;
    const exMin = schema.exclusiveMinimum as number | undefined;
    const exMax = schema.exclusiveMaximum as number | undefined;
    if (exMin !== undefined && value <= exMin) return `${where}: not above ${exMin}`;
    if (exMax !== undefined && value >= exMax) return `${where}: not below ${exMax}`;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      return `${where}: fewer than ${schema.minItems} items`;
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return `${where}: more than ${schema.maxItems} items`;
    }
    if (schema.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const bad = checkValue(schema.items, value[i], `${at}/${i}`);
        if (bad) return bad;
      }
    }
  } else if (value !== null && typeof value === "object") {
    const bad = checkObject(schema, value as Record<string, unknown>, at);
    if (bad) return bad;
  }
  return checkCombinators(schema, value, at);
}

function checkObject(schema: JsonSchema, value: Record<string, unknown>, at: string): string | undefined {
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name)) return `${at || "/"}: missing required property ${JSON.stringify(name)}`;
  }
  const props = schema.properties ?? {};
  for (const [name, item] of Object.entries(value)) {
    const path = `${at}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (Object.hasOwn(props, name)) {
      const bad = checkValue(props[name], item, path);
      if (bad) return bad;
    } else if (schema.additionalProperties !== undefined) {
      const bad = checkValue(schema.additionalProperties as JsonSchema | boolean, item, path);
      if (bad) return bad;
    }
  }
  return undefined;
}

function checkCombinators(schema: JsonSchema, value: unknown, at: string): string | undefined {
  const where = at || "/";
  const allOf = schema.allOf as JsonSchema[] | undefined;
  for (const sub of allOf ?? []) {
    const bad = checkValue(sub, value, at);
    if (bad) return bad;
  }
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf && !anyOf.some((sub) => checkValue(sub, value, at) === undefined)) return `${where}: matches none of anyOf`;
  const oneOf = schema.oneOf as JsonSchema[] | undefined;
  if (oneOf && oneOf.filter((sub) => checkValue(sub, value, at) === undefined).length !== 1) {
    return `${where}: must match exactly one of oneOf`;
  }
  return undefined;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));
}
