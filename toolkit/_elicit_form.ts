// What MCP lets a server ask in a form (`elicitation/create`, form mode): a
// flat object whose properties are strings (optionally an email, uri, date or
// date-time, a length range, a pattern), numbers or integers (a range),
// booleans, and enums of strings (single choice: `enum`, with `enumNames` as
// 2025-06-18 wrote titles, or titled `oneOf` consts; multiple choice: an
// array of such an enum). The rules depend on the revision the client speaks.
// 2025-11-25's, which 2026-07-28 keeps, hold everything above, a `default` on
// every kind and `$schema` at the top. 2025-06-18's are narrower (its
// schema.ts: StringSchema, NumberSchema, BooleanSchema, EnumSchema): no
// multi-select array, no titled `oneOf`, no `pattern`, no `$schema`, and a
// `default` only on a boolean. A revision with no elicitation at all
// (2025-03-26, 2024-11-05), whose client declared it anyway, gets the
// narrower rules. A form outside the client's rules is the handler's mistake,
// found before the user is asked anything. Besides the spec's keywords the
// top accepts `additionalProperties: true|false` (`schema()` writes `false`)
// and `title`/`description`, annotations a client may show or ignore.

import { quote } from "../internal/quote.ts";
import { NARROW_FORM_VERSIONS as NARROW } from "./form_revisions.ts";

const FORMATS = ["email", "uri", "date", "date-time"];
const TOP = ["type", "properties", "required", "$schema", "additionalProperties", "title", "description"];
const COMMON = ["type", "title", "description", "default"];
const KEYWORDS: Record<string, string[]> = {
  string: [...COMMON, "minLength", "maxLength", "pattern", "format", "enum", "enumNames", "oneOf"],
  number: [...COMMON, "minimum", "maximum"],
  integer: [...COMMON, "minimum", "maximum"],
  boolean: COMMON,
  array: [...COMMON, "minItems", "maxItems", "items"],
};
const KINDS = "a string, number, integer, boolean, or enum of strings (an array only as a multi-select enum)";

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === "string";
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

function isStrings(value: unknown, nonEmpty: boolean): value is string[] {
  return Array.isArray(value) && (!nonEmpty || value.length > 0) && value.every(isString);
}

/** Whether `value` is a non-empty list of `{const: string, title: string}`: titled enum options. */
function isTitledOptions(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 &&
    value.every((option) =>
      isObject(option) && isString(option.const) && isString(option.title) &&
      Object.keys(option).every((k) => k === "const" || k === "title")
    );
}

/**
 * What makes `schema` something an elicitation form may not ask a client
 * that speaks protocol `version`, worded for `Cannot elicit: …` and naming
 * the property; undefined when it is a form MCP allows there. Without a
 * version, or with 2025-11-25 or 2026-07-28, the rules are 2025-11-25's. The
 * JSON Schema engine judges the rest (a pattern that is no regular
 * expression, another `$schema` dialect).
 */
export function formProblem(schema: unknown, version?: string): string | undefined {
  const problem = newestProblem(schema);
  if (problem !== undefined || version === undefined || !NARROW.has(version)) return problem;
  const newer = newerKind(schema as Record<string, unknown>);
  return newer === undefined
    ? undefined
    : `${newer}, which MCP 2025-06-18 forms do not have; the client speaks ${version}`;
}

/**
 * What a form that 2025-11-25's rules allow uses that 2025-06-18's do not,
 * naming the property; undefined when it has none.
 */
function newerKind(schema: Record<string, unknown>): string | undefined {
  if (schema.$schema !== undefined) return 'requestedSchema has "$schema"';
  for (const [name, property] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
    const kind = property.type === "array"
      ? "is a multi-select enum (an array)"
      : property.oneOf !== undefined
      ? "is a titled enum (oneOf of {const, title})"
      : property.pattern !== undefined
      ? 'has "pattern"'
      : property.default !== undefined && property.type !== "boolean"
      ? `has ${property.type === "integer" ? "an" : "a"} ${property.type} default`
      : undefined;
    if (kind !== undefined) return `property ${quote(name)} ${kind}`;
  }
  return undefined;
}

/** What makes `schema` no form under 2025-11-25's rules, the widest the toolkit speaks. */
function newestProblem(schema: unknown): string | undefined {
  if (!isObject(schema) || schema.type !== "object") return 'requestedSchema must be {type: "object", properties}';
  for (const keyword of Object.keys(schema)) {
    if (!TOP.includes(keyword)) {
      return `requestedSchema has ${quote(keyword)}, which a form may not use; it takes ${TOP.join(", ")}`;
    }
  }
  const properties = schema.properties;
  if (!isObject(properties)) return "requestedSchema.properties must be an object";
  const { additionalProperties: extra, required, title, description } = schema;
  if (extra !== undefined && typeof extra !== "boolean") {
    return "requestedSchema.additionalProperties must be true or false, not a schema";
  }
  if (required !== undefined) {
    if (!isStrings(required, false)) return "requestedSchema.required must be a list of property names";
    const unknown = required.find((name) => !Object.hasOwn(properties, name));
    if (unknown !== undefined) return `requestedSchema requires ${quote(unknown)}, which is not one of its properties`;
  }
  if (schema.$schema !== undefined && !isString(schema.$schema)) return "requestedSchema.$schema must be a string";
  if ((title !== undefined && !isString(title)) || (description !== undefined && !isString(description))) {
    return "requestedSchema's title and description must be strings";
  }
  for (const [name, property] of Object.entries(properties)) {
    const problem = propertyProblem(property);
    if (problem !== undefined) return `property ${quote(name)} ${problem}`;
  }
  return undefined;
}

/** What is wrong with one property of a form, worded to follow its name. */
function propertyProblem(property: unknown): string | undefined {
  if (!isObject(property)) return `must be a schema object: ${KINDS}`;
  const type = property.type;
  const allowed = isString(type) && Object.hasOwn(KEYWORDS, type) ? KEYWORDS[type] : undefined;
  if (allowed === undefined) {
    const what = type === "object"
      ? "is an object (a form is flat)"
      : type === undefined
      ? "has no type"
      : `has the type ${quote(type)}`;
    return `${what}; a form's property is ${KINDS}`;
  }
  for (const keyword of Object.keys(property)) {
    if (!allowed.includes(keyword)) {
      return `has ${quote(keyword)}, which a form's ${type} property may not use; it takes ${allowed.join(", ")}`;
    }
  }
  const { title, description } = property;
  if ((title !== undefined && !isString(title)) || (description !== undefined && !isString(description))) {
    return "must have a string title and description";
  }
  switch (type) {
    case "string":
      return stringProblem(property);
    case "number":
    case "integer":
      for (const bound of ["minimum", "maximum", "default"]) {
        if (property[bound] !== undefined && typeof property[bound] !== "number") return `must have a number ${bound}`;
      }
      return undefined;
    case "boolean":
      return property.default === undefined || typeof property.default === "boolean"
        ? undefined
        : "must have a boolean default";
    default:
      return multiSelectProblem(property);
  }
}

function stringProblem(property: Record<string, unknown>): string | undefined {
  const { format, pattern, enum: values, enumNames, oneOf } = property;
  for (const bound of ["minLength", "maxLength"]) {
    if (property[bound] !== undefined && !isCount(property[bound])) return `must have a whole, non-negative ${bound}`;
  }
  if (format !== undefined && !FORMATS.includes(format as string)) {
    return `has the format ${quote(format)}; a form's string may be ${FORMATS.join(", ")}`;
  }
  if (pattern !== undefined && !isString(pattern)) return "must have a string pattern";
  if (property.default !== undefined && !isString(property.default)) return "must have a string default";
  if (values !== undefined && oneOf !== undefined) return "has both enum and oneOf; an enum takes one of them";
  if (values !== undefined && !isStrings(values, true)) return "must have an enum of one or more strings";
  if (enumNames !== undefined) {
    if (values === undefined) return "has enumNames without an enum";
    if (!isStrings(enumNames, false) || enumNames.length !== (values as string[]).length) {
      return "must have one string in enumNames for each enum value";
    }
  }
  if (oneOf !== undefined && !isTitledOptions(oneOf)) {
    return "must have a oneOf of {const, title} strings (a titled enum), one or more";
  }
  return undefined;
}

function multiSelectProblem(property: Record<string, unknown>): string | undefined {
  const { items, minItems, maxItems } = property;
  if ((minItems !== undefined && !isCount(minItems)) || (maxItems !== undefined && !isCount(maxItems))) {
    return "must have whole, non-negative minItems and maxItems";
  }
  const untitled = isObject(items) && items.type === "string" && isStrings(items.enum, true) &&
    Object.keys(items).length === 2;
  const titled = isObject(items) && isTitledOptions(items.anyOf) && Object.keys(items).length === 1;
  if (!untitled && !titled) {
    return 'is an array whose items are not an enum; a form\'s array is a multi-select: items {type: "string", ' +
      "enum: [...]} or {anyOf: [{const, title}, ...]}";
  }
  if (property.default !== undefined && !isStrings(property.default, false)) {
    return "must have a list of strings as default";
  }
  return undefined;
}
