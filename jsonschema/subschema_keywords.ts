// Where JSON Schema 2020-12 holds subschemas, by the shape of the keyword's
// value. A walk that must visit every subschema and nothing else (anchors,
// `$id`s, a `$ref` rewrite) reads these lists: a `$ref` inside `const` or
// `enum` is data, not a reference.

/** The keywords whose value holds subschemas, grouped by how they hold them. */
export interface SubschemaKeywords {
  /** The value is one subschema. */
  readonly single: readonly string[];
  /** The value maps names to subschemas. */
  readonly maps: readonly string[];
  /** The value is a list of subschemas. */
  readonly lists: readonly string[];
}

/**
 * The 2020-12 keywords whose value holds subschemas (`definitions` is the
 * meta-schema's older name for `$defs`).
 *
 * @example Visit the subschemas of `properties`
 * ```ts
 * import { SUBSCHEMA_KEYWORDS } from "./subschema_keywords.ts";
 * console.assert(SUBSCHEMA_KEYWORDS.maps.includes("properties"));
 * ```
 */
export const SUBSCHEMA_KEYWORDS: SubschemaKeywords = {
  single: [
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
  ],
  maps: ["$defs", "definitions", "properties", "patternProperties", "dependentSchemas"],
  lists: ["allOf", "anyOf", "oneOf", "prefixItems"],
};
