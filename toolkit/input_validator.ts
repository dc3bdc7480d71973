// Checks a call's arguments against the tool's inputSchema before anything
// else sees them (patterns, middleware, handler), with the JSON Schema engine
// (../jsonschema/), and words its failure for the model: the argument's path
// and the rule, e.g. `Invalid argument "range.from": must be at most 10
// (maximum), got 12`.

import { compileSchema } from "../jsonschema/compile_schema.ts";
import { SchemaError } from "../jsonschema/schema_error.ts";
import { argumentValidator } from "./_schema_problem.ts";

/** A compiled validator: the message for the model, or undefined when the arguments are valid. */
export type InputValidator = (args: Readonly<Record<string, unknown>>) => string | undefined;

/** How {@linkcode compileInputValidator} compiles. */
export interface InputValidatorOptions {
  /** Whether `format` asserts the formats the engine knows, instead of being an annotation. */
  assertFormats?: boolean;
  /** The schema's name in the refusal of a schema it cannot enforce; `inputSchema` unless given. */
  name?: string;
  /**
   * What the checked values are, for the failure's words: a tool's
   * `arguments` (the default), or the fields of a `form` a user answered.
   */
  checking?: "arguments" | "form";
}

/**
 * Compiles `schema` into a validator. `fail` builds the error thrown for a
 * schema the toolkit cannot enforce (a keyword with a value 2020-12 does not
 * allow, a remote `$ref`, another dialect).
 */
export function compileInputValidator(
  schema: unknown,
  fail: (problem: string) => Error,
  options: InputValidatorOptions = {},
): InputValidator {
  let validate;
  try {
    validate = compileSchema(schema, { name: options.name ?? "inputSchema", assertFormats: options.assertFormats });
  } catch (err) {
    if (err instanceof SchemaError) throw fail(err.problem);
    throw err;
  }
  return argumentValidator(validate, options.checking ?? "arguments");
}
