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
  const words = options.checking === "form" ? FORM_WORDS : ARGUMENT_WORDS;
  return (args) => {
    const failure = validate(args);
    return failure === undefined ? undefined : messageOf(failure, words);
  };
}

/** How a failure names what it checked. */
interface Words {
  /** The whole value: "arguments". */
  all: string;
  /** One member: "argument". */
  one: string;
  /** Where a member is unknown: "an argument of this tool". */
  member: string;
  /** The known members, before their names: "the tool's arguments are". */
  known: string;
  /** When there are none: "it takes none". */
  none: string;
}

const ARGUMENT_WORDS: Words = {
  all: "arguments",
  one: "argument",
  member: "an argument of this tool",
  known: "the tool's arguments are",
  none: "it takes none",
};

const FORM_WORDS: Words = {
  all: "answer",
  one: "field",
  member: "a field of the requested form",
  known: "the form's fields are",
  none: "it has none",
};

function messageOf(failure: SchemaFailure, words: Words): string {
  const { path } = failure;
  if (path.length === 0) return `Invalid ${words.all}: ${failure.message}`;
  let message = failure.message;
  if (path.length === 1 && failure.keyword === "additionalProperties") {
    const names = failure.allowed ?? [];
    const known = names.length === 0
      ? words.none
      : `${words.known} ${names.slice(0, 20).map((n) => quote(n, 32)).join(", ")}${names.length > 20 ? ", …" : ""}`;
    message = `is not ${words.member} (additionalProperties); ${known}`;
  } else if (path.length === 1 && failure.keyword === "unevaluatedProperties") {
    message = `is not ${words.member} (unevaluatedProperties)`;
  }
  // A model often sends null for an optional argument it means to leave out: say how to do that.
  if (failure.nullForOptional) message += "; to leave it out, omit it rather than sending null";
  return `Invalid ${words.one} ${quote(pathText(path))}: ${message}`;
}

/** `range.from`, `tags[1]`: the path as the model would write it. */
function pathText(path: readonly (string | number)[]): string {
  let text = "";
  for (const step of path) text += typeof step === "number" ? `[${step}]` : text === "" ? step : `.${step}`;
  return text;
}
