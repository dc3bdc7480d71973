// Where the registry finds the JSON Schema engine. The engine (../jsonschema/)
// is not loaded with `@forge/toolkit`: every `deno run main.ts --health` would
// pay for its modules. The protocol engine provides it when it loads
// (engine/dispatch.ts, under serve()), and run() loads the serving half before
// `register` runs, so a server's schemas are compiled, and a bad one refused,
// by addTool itself. A tool registered before anything loaded the protocol
// engine (a Server built by hand, never served) has its schemas compiled when
// first used.

import type { InputValidator, InputValidatorOptions } from "./input_validator.ts";
import type { OutputValidator } from "./output_schema.ts";

/** The two compilers the registry needs. */
export interface SchemaEngine {
  /** Compiles a tool's inputSchema; `fail` builds the error for a schema it cannot enforce. */
  compileInput(schema: unknown, fail: (problem: string) => Error, options: InputValidatorOptions): InputValidator;
  /** Compiles a tool's outputSchema; `fail` builds the error for a schema it cannot enforce. */
  compileOutput(schema: unknown, fail: (problem: string) => Error, options: InputValidatorOptions): OutputValidator;
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

/**
 * `compile(engine)` now when the engine is loaded, else a function that
 * compiles on its first call (by then a served server has loaded it).
 */
export function compiledWhenUsed<T extends (value: never) => string | undefined>(
  compile: (engine: SchemaEngine) => T,
): T {
  if (engine !== undefined) return compile(engine);
  let compiled: T | undefined;
  return ((value: never) => {
    if (compiled === undefined) {
      if (engine === undefined) {
        throw new TypeError("Cannot check a value against its schema: nothing loaded the engine");
      }
      compiled = compile(engine);
    }
    return compiled(value);
  }) as T;
}
