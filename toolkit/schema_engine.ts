// Where the registry finds the JSON Schema engine. The engine (../jsonschema/)
// is not loaded with `@forge/toolkit`: every `deno run main.ts --health` would
// pay for its modules. A plain object schema (one object of scalar
// properties) never needs it: ./_plain_validators.ts checks and words it with
// the engine's answers. Any other schema is compiled by the engine:
// - served by hand (stdio/serve.ts), the engine is loaded with serve(), so
//   addTool compiles such a schema, and refuses a bad one, at once;
// - under run(), it is loaded only when a schema needs it: after `register`,
//   run() awaits settleSchemas() (./registry.ts), which loads it and compiles
//   what was registered meanwhile, so a bad schema still stops the start; a
//   tool registered later, while it is still not loaded, is added once it is.
// A tool registered before anything loaded it (a Server built by hand, never
// served) has its schemas compiled when first used.

import type { InputValidator, InputValidatorOptions } from "./input_validator.ts";
import type { OutputValidator } from "./output_schema.ts";

/** The two compilers the registry needs. */
export interface SchemaEngine {
  /** Compiles a tool's inputSchema; `fail` builds the error for a schema it cannot enforce. */
  compileInput(schema: unknown, fail: (problem: string) => Error, options: InputValidatorOptions): InputValidator;
  /** Compiles a tool's outputSchema; `fail` builds the error for a schema it cannot enforce. */
  compileOutput(schema: unknown, fail: (problem: string) => Error, options: InputValidatorOptions): OutputValidator;
  /**
   * Why `schema` is no elicitation form MCP allows a client that speaks
   * protocol `version` (./_elicit_form.ts; undefined: the newest rules), or
   * undefined when it is one.
   */
  formProblem(schema: unknown, version?: string): string | undefined;
}

let engine: SchemaEngine | undefined;

/** Makes `provided` the engine the registry compiles with; the protocol engine calls it as it loads. */
export function provideSchemaEngine(provided: SchemaEngine): void {
  engine = provided;
}

/** The engine, once the protocol engine provided it. */
export function schemaEngine(): SchemaEngine | undefined {
  return engine;
}

/** Loads the engine (once) and returns it. */
export async function loadSchemaEngine(): Promise<SchemaEngine> {
  if (engine === undefined) await import("./schema_engine_provider.ts");
  return engine!;
}

/**
 * `compile(engine)` now when the engine is loaded, else a function that
 * compiles on its first call. `defer` is given the compile step, to run it
 * once the engine is loaded (settleSchemas()), earlier than the first call.
 */
export function compiledWhenUsed<T extends (value: never) => string | undefined>(
  compile: (engine: SchemaEngine) => T,
  defer?: (compileNow: () => void) => void,
): T {
  if (engine !== undefined) return compile(engine);
  let compiled: T | undefined;
  const compileNow = () => {
    if (engine === undefined) throw new TypeError("Cannot check a value against its schema: nothing loaded the engine");
    compiled ??= compile(engine);
  };
  defer?.(compileNow);
  return ((value: never) => {
    if (compiled === undefined) compileNow();
    return compiled!(value);
  }) as T;
}
