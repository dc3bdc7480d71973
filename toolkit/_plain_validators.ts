// A tool's validators for a plain object schema (one object of scalar
// properties, what schema() builds from strProp, intProp, numProp and boolProp
// without options): checked and worded by ../jsonschema/plain_object.ts,
// with the same answers as the engine's, without loading it.

import { plainObjectValidator } from "../jsonschema/plain_object.ts";
import type { InputValidator } from "./input_validator.ts";
import type { OutputValidator } from "./output_schema.ts";
import { argumentValidator, outputValidator } from "./_schema_problem.ts";

/** The arguments' validator of a plain object inputSchema; undefined for any other schema. */
export function plainInputValidator(schema: unknown): InputValidator | undefined {
  const validate = plainObjectValidator(schema);
  return validate === undefined ? undefined : argumentValidator(validate, "arguments");
}

/** The structuredContent's validator of a plain object outputSchema; undefined for any other schema. */
export function plainOutputValidator(schema: unknown): OutputValidator | undefined {
  const validate = plainObjectValidator(schema);
  return validate === undefined ? undefined : outputValidator(validate);
}
