// The JSON types `type` names: how each is tested and how a failure names it.
// Kept apart from the validation vocabulary so that the plain-object check
// (./plain_object.ts) words its failures with the engine's own words without
// loading the engine.

/** The test of each JSON type name, as `type` applies it. */
export const TYPE_TESTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (v) => typeof v === "string",
  // "integer" is any number with no fractional part (1.0 is one), as JSON Schema counts it.
  integer: (v) => Number.isInteger(v),
  // A non-finite number is not JSON: a handler's NaN would reach the client as null.
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  null: (v) => v === null,
};

/** How a failure names each JSON type: `must be an integer`. */
export const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};
