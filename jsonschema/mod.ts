/**
 * A JSON Schema 2020-12 validator, compiled once per schema, for values that
 * come from outside: the cost of a call is bounded by the value's size times
 * the schema's, references never leave the document, and a failure names the
 * path and the rule.
 *
 * ```ts
 * import { compileSchema } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const validate = compileSchema({ type: "object", properties: { n: { type: "integer", maximum: 10 } } });
 * assert.equal(validate({ n: 12 })?.message, "must be at most 10 (maximum), got 12");
 * ```
 *
 * @module
 */
export { type CompileOptions, compileSchema, type SchemaFailure, type SchemaValidator } from "./compile_schema.ts";
export { SchemaError } from "./schema_error.ts";
