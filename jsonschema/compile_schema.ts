import { quote } from "../internal/quote.ts";
import { all, type Check, Failure, PASS } from "./_check.ts";
import { Compiler, type Location, STATELESS } from "./_compiler.ts";
import { pointerOf, SchemaDocument } from "./_document.ts";
import { formatCheck } from "./_format.ts";
import { arrayItemsCheck, logicChecks, propertiesCheck } from "./_applicator.ts";
import { entering, newRun, refChecks } from "./_refs.ts";
import { withUnevaluated } from "./_unevaluated.ts";
import { plainObjectValidator } from "./plain_object.ts";
import { scalarObjectAcceptor } from "./_scalar_object.ts";
import { failureText } from "./_failure_text.ts";
import { arrayCountCheck, numberCheck, objectCountCheck, stringCheck, typeCheck, valueChecks } from "./_validation.ts";
import { SchemaError } from "./schema_error.ts";

/** Options of {@linkcode compileSchema}. */
export interface CompileOptions {
  /**
   * The schema's name at the start of a {@linkcode SchemaError}'s problem,
   * e.g. `inputSchema` in `inputSchema/properties/s/pattern is not a valid…`.
   * @default {"schema"}
   */
  name?: string;
  /**
   * Whether `format` is asserted for the formats the engine knows (`date-time`,
   * `date`, `time`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uri`,
   * `uri-reference`, `uuid`, `json-pointer`, `relative-json-pointer`, `regex`).
   * By default `format` is an annotation, as JSON Schema 2020-12 says; any
   * other format name stays one either way.
   * @default {false}
   */
  assertFormats?: boolean;
}

/** Where and why a value broke a schema: the first rule it broke. */
export interface SchemaFailure {
  /** Property names and item indexes from the value down to the part that broke the rule; empty for the value itself. */
  path: (string | number)[];
  /** The keyword of the rule, e.g. `maximum`, `required`, `additionalProperties`. */
  keyword: string;
  /** The rule, its keyword and what the value was instead, e.g. `must be at most 10 (maximum), got 12`. */
  message: string;
  /** The part is null where its object's schema lists it as an optional property. */
  nullForOptional: boolean;
  /** For `additionalProperties`: the names the object's schema lists under `properties`. */
  allowed?: readonly string[];
}

/** A compiled schema: the first failure of `value`, or undefined when `value` is valid. */
export type SchemaValidator = (value: unknown) => SchemaFailure | undefined;

/**
 * Compiles a JSON Schema 2020-12 document into a validator. Every keyword of
 * the core, applicator, unevaluated and validation vocabularies is enforced:
 * `$ref` and `$dynamicRef` to anything the document holds (JSON Pointers,
 * `$defs`, `$anchor`, `$id`-relative URIs, recursion), and
 * `unevaluatedProperties`/`unevaluatedItems`. `format` is an annotation unless
 * {@linkcode CompileOptions.assertFormats} is set; content keywords, meta-data
 * and unknown keywords are annotations.
 *
 * The schema is compiled once; a call runs only the checks its keywords
 * produced. The cost of a call is bounded by the value's size times the
 * schema's: patterns are compiled once and run after the lengths,
 * `uniqueItems` is linear, and a reference is followed once per object or
 * array it is applied to.
 *
 * @param schema The schema, as parsed JSON (an object or a boolean).
 * @param options See {@linkcode CompileOptions}.
 * @returns The validator.
 * @throws {SchemaError} When the schema is not valid JSON Schema 2020-12, declares another dialect, refers to a
 * schema it does not hold (remote references are refused, never fetched), or refers back to itself without going
 * into the value.
 *
 * @example Validate a value and read the failure
 * ```ts
 * import { compileSchema } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const validate = compileSchema({
 *   type: "object",
 *   properties: { range: { $ref: "#/$defs/range" } },
 *   $defs: { range: { type: "object", properties: { from: { type: "integer", maximum: 10 } } } },
 * });
 * assert.equal(validate({ range: { from: 3 } }), undefined);
 * const failure = validate({ range: { from: 12 } });
 * assert.deepEqual(failure?.path, ["range", "from"]);
 * assert.equal(failure?.message, "must be at most 10 (maximum), got 12");
 * ```
 */
export function compileSchema(schema: unknown, options: CompileOptions = {}): SchemaValidator {
  // The common tool schema is checked, and its failures worded, with nothing compiled (./plain_object.ts).
  const plain = plainObjectValidator(schema);
  if (plain !== undefined) return plain;
  const name = options.name ?? "schema";
  const doc = new SchemaDocument(schema, (tokens, problem) => {
    throw new SchemaError(`${name}${pointerOf(tokens)} ${problem}`);
  });
  const compiler = new Compiler(doc, { name, assertFormats: options.assertFormats ?? false }, compileNode);
  const check = compiler.node({ schema, tokens: [], resource: doc.rootResource });
  compiler.refuseLoops();
  const references = compiler.hasReferences;
  const stateful = doc.dynamic || references || compiler.comparesValues;
  const validate: SchemaValidator = (value) => {
    const run = stateful ? newRun(doc.dynamic) : STATELESS;
    let failure: Failure | undefined;
    try {
      failure = check(value, run, undefined);
    } catch (err) {
      // A value nested deeper than the stack allows, through a recursive schema; parsed input is
      // depth-capped before it gets here, so this is a handler's value or a raised cap.
      if (!(err instanceof RangeError)) throw err;
      return { path: [], keyword: "depth", message: "is nested too deeply to be checked", nullForOptional: false };
    }
    if (failure === undefined) return undefined;
    return {
      path: failure.steps.toReversed(),
      keyword: failure.keyword,
      message: failureText(failure.rule, failure.keyword, failure.detail, failure.names),
      nullForOptional: failure.nullForOptional,
      ...(failure.names === undefined ? {} : { allowed: failure.names }),
    };
  };
  // An object of scalar checks (./_scalar_object.ts): one loop accepts a valid value; the engine explains the others.
  const accepts = scalarObjectAcceptor(schema, options.assertFormats ?? false);
  return accepts === undefined ? validate : (value) => (accepts(value) ? undefined : validate(value));
}

/** The dialects this engine implements: JSON Schema 2020-12, with or without the empty fragment. */
const DIALECTS = new Set([
  "https://json-schema.org/draft/2020-12/schema",
  "https://json-schema.org/draft/2020-12/schema#",
]);

const FALSE: Check = () => new Failure("false schema", "is not allowed here");

/**
 * Compiles the subschema at `at`. The order is the cost order: the cheap
 * assertions on the value itself first (type, const, lengths, bounds, counts,
 * required), then what descends into properties and items, then the
 * subschemas applied in place, then `unevaluated*`, which needs all of them.
 * Keywords JSON Schema 2020-12 does not define are annotations, as the
 * specification says, and are ignored.
 */
function compileNode(c: Compiler, at: Location): Check {
  const schema = at.schema;
  if (schema === true) return PASS;
  if (schema === false) return FALSE;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    c.refuse(at, [], "must be a schema (an object or a boolean)");
  }
  const dialect = (schema as Record<string, unknown>).$schema;
  if (dialect !== undefined && !DIALECTS.has(dialect as string)) {
    c.refuse(
      at,
      "$schema",
      `is ${quote(dialect, 120)}: only JSON Schema 2020-12 is validated ` +
        `(the dialect MCP specifies); drop $schema or generate "https://json-schema.org/draft/2020-12/schema"`,
    );
  }
  const checks: (Check | undefined)[] = [
    typeCheck(c, at),
    ...valueChecks(c, at),
    stringCheck(c, at),
    formatCheck(c, at),
    numberCheck(c, at),
    arrayCountCheck(c, at),
    objectCountCheck(c, at),
    propertiesCheck(c, at),
    arrayItemsCheck(c, at),
    ...refChecks(c, at),
    ...logicChecks(c, at),
  ];
  let check = withUnevaluated(c, at, all(checks.filter((k) => k !== undefined)));
  const isResourceRoot = at.tokens.length === at.resource.tokens.length;
  if (c.doc.dynamic && isResourceRoot) check = entering(at.resource, check);
  return check;
}
