import { quote } from "./quote.ts";

/**
 * A domain failure the model can fix: a bad argument, something not found, an
 * access that policy denies. Thrown from a handler (or an argument helper), it
 * becomes a tool result with `isError: true` whose text is the message, and
 * the agent's loop goes on. Any other exception is an infrastructure failure:
 * the client gets a generic JSON-RPC error and the detail goes to stderr.
 *
 * Write the message for the model: say what was wrong and how to fix it, and
 * never include a host path outside the jail, a secret, or a stack.
 *
 * @example Refuse a request the model can correct
 * ```ts
 * import { ToolError } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * const err = new ToolError('File "notes.txt" not found');
 * assert.equal(err.name, "ToolError");
 * ```
 */
export class ToolError extends Error {
  /**
   * Creates a domain error.
   *
   * @param message What the model sees.
   * @param options Standard error options (`cause` stays on the server).
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
  }
}

/**
 * A {@linkcode ToolError} about one argument; the argument helpers throw it.
 *
 * @example Catch a bad argument
 * ```ts
 * import { ArgumentError, requireString } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => requireString({}, "path"), ArgumentError);
 * ```
 */
export class ArgumentError extends ToolError {
  /** The name of the argument that was wrong. */
  readonly argument: string;

  /**
   * Creates an error about one argument.
   *
   * @param argument The argument's name.
   * @param problem What is wrong with it, e.g. `must be an integer`.
   */
  constructor(argument: string, problem: string) {
    super(`Invalid argument ${quote(argument)}: ${problem}`);
    this.name = "ArgumentError";
    this.argument = argument;
  }
}
