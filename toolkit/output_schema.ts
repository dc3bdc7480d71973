// Checks structuredContent against a tool's outputSchema before it is sent,
// with the same JSON Schema engine as the arguments (../jsonschema/), so the
// two sides agree on every schema. The failure names the JSON Pointer of the
// part that broke the rule; it goes to stderr, never to the model.

import { compileSchema } from "../jsonschema/compile_schema.ts";
import { SchemaError } from "../jsonschema/schema_error.ts";
import { outputValidator } from "./_schema_problem.ts";

/** A compiled output check: what is wrong with a result's structuredContent, or undefined. */
export type OutputValidator = (structuredContent: unknown) => string | undefined;

/**
 * Compiles `schema` into an output check. `fail` builds the error thrown for
 * a schema the toolkit cannot enforce.
 */
export function compileOutputValidator(
  schema: unknown,
  fail: (problem: string) => Error,
  options: { assertFormats?: boolean } = {},
): OutputValidator {
  let validate;
  try {
    validate = compileSchema(schema, { name: "outputSchema", assertFormats: options.assertFormats });
  } catch (err) {
    if (err instanceof SchemaError) throw fail(err.problem);
    throw err;
  }
  return outputValidator(validate);
}
