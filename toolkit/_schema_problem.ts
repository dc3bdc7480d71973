// How a schema failure reads, for the model (a call's arguments, a user's
// answer to a form) and for the operator (a result's structuredContent). Kept
// apart from the engine: a plain object schema (../jsonschema/plain_object.ts)
// is checked and its failures worded without loading it.

import type { SchemaFailure, SchemaValidator } from "../jsonschema/compile_schema.ts";
import type { InputValidator } from "./input_validator.ts";
import type { OutputValidator } from "./output_schema.ts";
import { quote } from "../internal/quote.ts";

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

/**
 * The message for the model of a schema failure in a call's arguments (or a
 * user's answer to a form): the member's path and the rule, e.g.
 * `Invalid argument "range.from": must be at most 10 (maximum), got 12`.
 */
function argumentProblem(failure: SchemaFailure, checking: "arguments" | "form"): string {
  const words = checking === "form" ? FORM_WORDS : ARGUMENT_WORDS;
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

/**
 * The line for the operator of a schema failure in a result's
 * structuredContent: the JSON Pointer of the part and the rule, e.g.
 * `"/count": must be an integer (type), got the string "3"`.
 */
function outputProblem(failure: SchemaFailure): string {
  const pointer = failure.path.map((step) => `/${String(step).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
  return `${quote(pointer || "/")}: ${failure.message}`;
}

/**
 * The validator of a call's arguments (or a user's answer to a form) over a
 * compiled schema, the engine's or the plain-object check's: undefined when
 * they are valid, else the message for the model of the first failure.
 */
export function argumentValidator(validate: SchemaValidator, checking: "arguments" | "form"): InputValidator {
  return (args) => {
    const failure = validate(args);
    return failure === undefined ? undefined : argumentProblem(failure, checking);
  };
}

/**
 * The validator of a result's structuredContent over a compiled schema:
 * undefined when it is valid, else the line for the operator.
 */
export function outputValidator(validate: SchemaValidator): OutputValidator {
  return (value) => {
    const failure = validate(value);
    return failure === undefined ? undefined : outputProblem(failure);
  };
}
