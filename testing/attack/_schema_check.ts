// Whether a value passes a tool's inputSchema, for the keywords tools use.
// The kit uses it only to label a case ("reaches the handler" or "breaks the
// schema") and to make sure each argument gets values of both kinds; the
// server's own validator stays the judge of what it accepts.

type Schema = Record<string, unknown>;

/** The JSON type of a parsed value. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(type: unknown, value: unknown): boolean {
  if (type === undefined) return true;
  const actual = jsonType(value);
  const ok = (t: unknown) => t === actual || (t === "number" && actual === "integer");
  return Array.isArray(type) ? type.some(ok) : ok(type);
}

function numberPasses(schema: Schema, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (typeof minimum === "number" && value < minimum) return false;
  if (typeof maximum === "number" && value > maximum) return false;
  if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) return false;
  if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum) return false;
  return typeof multipleOf !== "number" || Number.isInteger(value / multipleOf);
}

function stringPasses(schema: Schema, value: string): boolean {
  let length = 0;
  for (let i = 0; i < value.length; i++, length++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < value.length) i++;
  }
  if (typeof schema.minLength === "number" && length < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
  if (typeof schema.pattern !== "string") return true;
  try {
    return new RegExp(schema.pattern, "u").test(value);
  } catch {
    return true;
  }
}

function arrayPasses(schema: Schema, value: unknown[]): boolean {
  if (typeof schema.minItems === "number" && value.length < schema.minItems) return false;
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return false;
  const items = schema.items;
  return !isSchema(items) || value.every((item) => passesSchema(items, item));
}

function objectPasses(schema: Schema, value: Record<string, unknown>): boolean {
  const properties = isSchema(schema.properties) ? schema.properties as Record<string, Schema> : {};
  const required = Array.isArray(schema.required) ? schema.required as string[] : [];
  if (required.some((name) => !Object.hasOwn(value, name))) return false;
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) {
      if (!passesSchema(properties[key], item)) return false;
    } else if (schema.additionalProperties === false) {
      return false;
    } else if (isSchema(schema.additionalProperties) && !passesSchema(schema.additionalProperties, item)) {
      return false;
    }
  }
  return true;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `value` satisfies `schema` (type, enum, const, bounds, lengths, pattern, items, properties, required). */
export function passesSchema(schema: unknown, value: unknown): boolean {
  if (schema === true || schema === undefined) return true;
  if (!isSchema(schema)) return schema !== false;
  if (!typeMatches(schema.type, value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
    return false;
  }
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) return false;
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const results = list.map((s) => passesSchema(s, value));
    if (key === "allOf" && !results.every(Boolean)) return false;
    if (key === "anyOf" && !results.some(Boolean)) return false;
    if (key === "oneOf" && results.filter(Boolean).length !== 1) return false;
  }
  if (typeof value === "number") return numberPasses(schema, value);
  if (typeof value === "string") return stringPasses(schema, value);
  if (Array.isArray(value)) return arrayPasses(schema, value);
  if (isSchema(value)) return objectPasses(schema, value);
  return true;
}
