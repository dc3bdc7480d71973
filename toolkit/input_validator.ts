// Checks a call's arguments against the tool's inputSchema before anything
// else sees them (patterns, middleware, handler), with the JSON Schema engine
// (../jsonschema/), and words its failure for the model: the argument's path
// and the rule, e.g. `Invalid argument "range.from": must be at most 10
// (maximum), got 12`.

import { compileSchema, type SchemaFailure } from "../jsonschema/compile_schema.ts";
import { SchemaError } from "../jsonschema/schema_error.ts";
import { quote } from "../internal/quote.ts";

/** A compiled validator: the message for the model, or undefined when the arguments are valid. */
export type InputValidator = (args: Readonly<Record<string, unknown>>) => string | undefined;

/** How {@linkcode compileInputValidator} compiles. */
export interface InputValidatorOptions {
  /** Whether `format` asserts the formats the engine knows, instead of being an annotation. */
  assertFormats?: boolean;
  /** The schema's name in the refusal of a schema it cannot enforce; `inputSchema` unless given. */
  name?: string;
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
  return (args) => {
    const failure = validate(args);
    return failure === undefined ? undefined : messageOf(failure);
  };
}

function messageOf(failure: SchemaFailure): string {
  const { path } = failure;
  if (path.length === 0) return `Invalid arguments: ${failure.message}`;
  let message = failure.message;
  if (path.length === 1 && failure.keyword === "additionalProperties") {
    const names = failure.allowed ?? [];
    const known = names.length === 0
      ? "it takes none"
      : `the tool's arguments are ${names.slice(0, 20).map((n) => quote(n, 32)).join(", ")}${
        names.length > 20 ? ", …" : ""
      }`;
    message = `is not an argument of this tool (additionalProperties); ${known}`;
  } else if (path.length === 1 && failure.keyword === "unevaluatedProperties") {
    message = "is not an argument of this tool (unevaluatedProperties)";
  }
  // A model often sends null for an optional argument it means to leave out: say how to do that.
  if (failure.nullForOptional) message += "; to leave it out, omit it rather than sending null";
  return `Invalid argument ${quote(pathText(path))}: ${message}`;
}

/** `range.from`, `tags[1]`: the path as the model would write it. */
function pathText(path: readonly (string | number)[]): string {
  let text = "";
  for (const step of path) text += typeof step === "number" ? `[${step}]` : text === "" ? step : `.${step}`;
  return text;
}
