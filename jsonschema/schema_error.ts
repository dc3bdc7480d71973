/**
 * A schema that cannot be compiled: a keyword with a value JSON Schema
 * 2020-12 does not allow, a reference to a schema outside the document, a
 * dialect other than 2020-12, or references that loop without going into the
 * value. Its `problem` names the place (`inputSchema/properties/s/pattern`)
 * and what is wrong, so a caller can put it in a message of its own.
 *
 * @example Refuse a schema and say why
 * ```ts
 * import { compileSchema, SchemaError } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => compileSchema({ minLength: -1 }, { name: "inputSchema" }),
 *   (err) => err instanceof SchemaError && err.problem === "inputSchema/minLength must be a non-negative integer",
 * );
 * ```
 */
export class SchemaError extends TypeError {
  /** Where the schema is wrong and how, without the leading `Cannot compile`. */
  readonly problem: string;

  /**
   * Creates the error for `problem`.
   *
   * @param problem Where the schema is wrong and how.
   */
  constructor(problem: string) {
    super(`Cannot compile the schema: ${problem}`);
    this.name = "SchemaError";
    this.problem = problem;
  }
}
