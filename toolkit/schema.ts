/** A JSON Schema `type` name. */
export type JsonType = "object" | "string" | "integer" | "number" | "boolean" | "array" | "null";

/**
 * A JSON Schema 2020-12 fragment as the toolkit writes it. Only the keywords
 * the helpers produce are typed; the schema only hints the model, the handler
 * validates.
 */
export interface JsonSchema {
  /** The JSON type(s) a value must have. */
  type?: JsonType | JsonType[];
  /** What the value means, for the model. */
  description?: string;
  /** The schemas of an object's named properties. */
  properties?: Record<string, JsonSchema>;
  /** Properties an object must have. */
  required?: string[];
  /** Whether (or how) properties not listed are allowed. */
  additionalProperties?: boolean | JsonSchema;
  /** The schema of every array element. */
  items?: JsonSchema;
  /** The allowed values. */
  enum?: readonly (string | number)[];
  /** The smallest allowed number. */
  minimum?: number;
  /** The largest allowed number. */
  maximum?: number;
  /** The fewest characters of a string. */
  minLength?: number;
  /** The most characters of a string. */
  maxLength?: number;
  /** The fewest elements of an array. */
  minItems?: number;
  /** The most elements of an array. */
  maxItems?: number;
  /** The value assumed when absent (a hint only). */
  default?: unknown;
  /** Any other JSON Schema 2020-12 keyword. */
  [keyword: string]: unknown;
}

/** The schema of a tool's input or output: always an object with `properties`. */
export interface ObjectSchema extends JsonSchema {
  /** Always `"object"`. */
  type: "object";
  /** The properties; always an object, never null. */
  properties: Record<string, JsonSchema>;
}

/** Options of {@linkcode schema} and {@linkcode objectProp}. */
export interface SchemaOptions {
  /**
   * Whether properties that are not listed are allowed.
   * @default {false}
   */
  additionalProperties?: boolean;
}

/**
 * Builds an object schema: `properties` is always an object (`{}` when there
 * are none, never null) and `required` appears only when non-empty.
 *
 * @param properties The properties, built with the `*Prop` helpers.
 * @param required The names of the required properties.
 * @param options See {@linkcode SchemaOptions}.
 * @returns A JSON Schema 2020-12 object schema.
 * @throws {RangeError} When `required` names a property that is not defined.
 *
 * @example Build the input schema of a tool
 * ```ts
 * import { schema, strProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * const input = schema({ path: strProp("Path inside a root") }, ["path"]);
 * assert.deepEqual(input.required, ["path"]);
 * assert.deepEqual(schema({}).properties, {});
 * ```
 */
export function schema(
  properties: Record<string, JsonSchema> = {},
  required: readonly string[] = [],
  options: SchemaOptions = {},
): ObjectSchema {
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) {
      throw new RangeError(`Cannot require property "${name.slice(0, 64)}": it is not defined`);
    }
  }
  const out: ObjectSchema = { type: "object", properties: { ...properties } };
  if (required.length > 0) out.required = [...required];
  out.additionalProperties = options.additionalProperties ?? false;
  return out;
}

/** Extra keywords a property helper accepts (`minimum`, `maxLength`, `default`, …). */
export type PropOptions = Omit<JsonSchema, "type" | "description" | "properties" | "items" | "enum">;

/**
 * A string property.
 *
 * @param description What the model should put there.
 * @param options Extra keywords such as `minLength` or `default`.
 * @returns The property schema.
 *
 * @example A string property
 * ```ts
 * import { strProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(strProp("A name"), { type: "string", description: "A name" });
 * ```
 */
export function strProp(description: string, options: PropOptions = {}): JsonSchema {
  return { type: "string", description, ...options };
}

/**
 * An integer property.
 *
 * @param description What the model should put there.
 * @param options Extra keywords such as `minimum`, `maximum` or `default`.
 * @returns The property schema.
 *
 * @example An integer property with bounds
 * ```ts
 * import { intProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(intProp("Row limit", { minimum: 1 }).type, "integer");
 * ```
 */
export function intProp(description: string, options: PropOptions = {}): JsonSchema {
  return { type: "integer", description, ...options };
}

/**
 * A number property.
 *
 * @param description What the model should put there.
 * @param options Extra keywords such as `minimum` or `maximum`.
 * @returns The property schema.
 *
 * @example A number property
 * ```ts
 * import { numProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(numProp("Ratio").type, "number");
 * ```
 */
export function numProp(description: string, options: PropOptions = {}): JsonSchema {
  return { type: "number", description, ...options };
}

/**
 * A boolean property.
 *
 * @param description What the model should put there.
 * @param options Extra keywords such as `default`.
 * @returns The property schema.
 *
 * @example A boolean property
 * ```ts
 * import { boolProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(boolProp("Recurse", { default: false }).default, false);
 * ```
 */
export function boolProp(description: string, options: PropOptions = {}): JsonSchema {
  return { type: "boolean", description, ...options };
}

/**
 * A string property limited to fixed values.
 *
 * @param values The allowed values (at least one).
 * @param description What the choice means.
 * @returns The property schema.
 * @throws {RangeError} When `values` is empty.
 *
 * @example An enum property
 * ```ts
 * import { enumProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(enumProp(["asc", "desc"], "Order").enum, ["asc", "desc"]);
 * ```
 */
export function enumProp(values: readonly string[], description: string): JsonSchema {
  if (values.length === 0) throw new RangeError("Cannot build an enum property: no values given");
  return { type: "string", description, enum: [...values] };
}

/**
 * An array property.
 *
 * @param items The schema of each element.
 * @param description What the list holds.
 * @param options Extra keywords such as `minItems` or `maxItems`.
 * @returns The property schema.
 *
 * @example An array of strings
 * ```ts
 * import { arrayProp, strProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * const tags = arrayProp(strProp("A tag"), "Tags", { minItems: 1 });
 * assert.equal(tags.items?.type, "string");
 * ```
 */
export function arrayProp(items: JsonSchema, description: string, options: PropOptions = {}): JsonSchema {
  return { type: "array", description, items, ...options };
}

/**
 * A nested object property.
 *
 * @param properties The nested properties.
 * @param required The required nested properties.
 * @param description What the object holds.
 * @returns The property schema.
 * @throws {RangeError} When `required` names a property that is not defined.
 *
 * @example A nested object
 * ```ts
 * import { intProp, objectProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * const range = objectProp({ from: intProp("First"), to: intProp("Last") }, ["from"], "A range");
 * assert.deepEqual(range.required, ["from"]);
 * ```
 */
export function objectProp(
  properties: Record<string, JsonSchema>,
  required: readonly string[],
  description: string,
): JsonSchema {
  return { ...schema(properties, required), description };
}

/**
 * An object whose values are all strings (for example HTTP headers).
 *
 * @param description What the map holds.
 * @returns The property schema.
 *
 * @example A string map
 * ```ts
 * import { stringMapProp } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(stringMapProp("Headers").additionalProperties, { type: "string" });
 * ```
 */
export function stringMapProp(description: string): JsonSchema {
  return { type: "object", description, additionalProperties: { type: "string" } };
}
