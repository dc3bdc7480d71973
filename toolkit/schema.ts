/** A JSON Schema `type` name. */
export type JsonType = "object" | "string" | "integer" | "number" | "boolean" | "array" | "null";

/**
 * A JSON Schema 2020-12 fragment. The keywords the helpers produce are typed;
 * any other 2020-12 keyword (`$defs`, `$ref`, `anyOf`, `unevaluatedProperties`…)
 * is allowed as well. A tool's `inputSchema` is enforced: every call is
 * validated against it, every keyword included, before the handler runs.
 */
export interface JsonSchema {
  /** The JSON type(s) a value must have. */
  type?: JsonType | JsonType[];
  /** What the value means, for the model. */
  description?: string;
  /** The schemas of an object's named properties (`true` allows anything, `false` nothing). */
  properties?: Record<string, JsonSchema | boolean>;
  /** Properties an object must have. */
  required?: string[];
  /** Whether (or how) properties not listed are allowed. */
  additionalProperties?: boolean | JsonSchema;
  /** The schema of every array element (after `prefixItems`, if any). */
  items?: JsonSchema | boolean;
  /** The allowed values, compared by JSON equality. */
  enum?: readonly unknown[];
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

/**
 * A schema that also carries, for TypeScript only, the type of the values it
 * accepts: the property helpers return one, so that `schema()` can give the
 * handler typed arguments. The `"~value"` key exists in types only; it is
 * never present at run time nor sent to clients.
 *
 * @typeParam T The type of a value the schema accepts.
 */
export interface Prop<T> extends JsonSchema {
  /** The accepted value's type; type-level only. */
  readonly "~value"?: T;
}

/**
 * The TypeScript type of the values a schema accepts: `string` for
 * `strProp()`, the union of literals for `enumProp()`, and so on; `unknown`
 * for a hand-written schema.
 *
 * @typeParam S The schema.
 */
export type Infer<S> = S extends { readonly "~value"?: infer T } ? T : unknown;

/**
 * The arguments object described by `properties` and `required`: a required
 * property has its type, an optional one its type or `undefined`.
 *
 * @typeParam P The properties, as built with the `*Prop` helpers.
 * @typeParam R The names of the required properties.
 */
export type ObjectValue<P extends Record<string, JsonSchema>, R extends string> =
  & { -readonly [K in keyof P as K extends R ? K : never]: Infer<P[K]> }
  & { -readonly [K in keyof P as K extends R ? never : K]?: Infer<P[K]> } extends infer O ? { [K in keyof O]: O[K] }
  : never;

/**
 * The schema of a tool's input or output: always an object with `properties`.
 *
 * @typeParam T The type of the object it accepts (the handler's arguments).
 */
export interface ObjectSchema<T = Readonly<Record<string, unknown>>> extends JsonSchema {
  /** Always `"object"`. */
  type: "object";
  /** The properties; always an object, never null. */
  properties: Record<string, JsonSchema | boolean>;
  /** The accepted object's type; type-level only. */
  readonly "~value"?: T;
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
 * are none, never null) and `required` appears only when non-empty. Its type
 * carries the arguments' types, so a handler registered with it reads
 * `req.arguments.path` as a `string` when `path` is a required `strProp()`,
 * and the toolkit validates every call against it before the handler runs.
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
export function schema<
  P extends Record<string, JsonSchema> = Record<never, never>,
  R extends keyof P & string = never,
>(
  properties?: P,
  required: readonly R[] = [],
  options: SchemaOptions = {},
): ObjectSchema<ObjectValue<P, R>> {
  properties ??= {} as P;
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) {
      throw new RangeError(`Cannot require property "${name.slice(0, 64)}": it is not defined`);
    }
  }
  const out: ObjectSchema<ObjectValue<P, R>> = { type: "object", properties: { ...properties } };
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
export function strProp(description: string, options: PropOptions = {}): Prop<string> {
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
export function intProp(description: string, options: PropOptions = {}): Prop<number> {
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
export function numProp(description: string, options: PropOptions = {}): Prop<number> {
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
export function boolProp(description: string, options: PropOptions = {}): Prop<boolean> {
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
export function enumProp<const V extends readonly string[]>(values: V, description: string): Prop<V[number]> {
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
export function arrayProp<S extends JsonSchema>(
  items: S,
  description: string,
  options: PropOptions = {},
): Prop<Infer<S>[]> & { items: S } {
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
export function objectProp<P extends Record<string, JsonSchema>, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[],
  description: string,
): Prop<ObjectValue<P, R>> {
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
export function stringMapProp(description: string): Prop<Record<string, string>> {
  return { type: "object", description, additionalProperties: { type: "string" } };
}
