// The tool table behind a Server. Kept out of the public class so that
// authors see only addTool/registerPatternTool, while the dispatcher
// (engine/dispatch.ts) reads it directly.

import type { InputValidator } from "./input_validator.ts";
import type { OutputValidator } from "./output_schema.ts";
import { compiledWhenUsed, loadSchemaEngine } from "./schema_engine.ts";
import { plainInputValidator, plainOutputValidator } from "./_plain_validators.ts";
import { logLine } from "../internal/stderr.ts";
import { quote } from "../internal/quote.ts";
import type { PatternFn, Tool, ToolHandler } from "./tool.ts";
import type { Args } from "./args.ts";

/** A tool's confirmation, as registered. */
export interface ConfirmSpec {
  /** The question, or a function of the arguments that returns it (undefined: no question for this call). */
  message: string | ((args: Args) => string | undefined | Promise<string | undefined>);
  /** What happens when the client cannot ask its user. */
  whenUnavailable: "run" | "refuse";
}

/** A registered tool with what the dispatcher needs to run it. */
export interface Entry {
  tool: Tool;
  handler: ToolHandler;
  patterns: PatternFn | undefined;
  /** The confirmation asked before the handler runs (pattern tools only). */
  confirm?: ConfirmSpec;
  /** Checks a call's arguments against the inputSchema; compiled once, here. */
  validate: InputValidator;
  /** Checks a result's structuredContent against the outputSchema, when there is one; compiled once, here. */
  validateOutput?: OutputValidator;
  /** The definition as sent in tools/list, built once. */
  wire: Record<string, unknown>;
  /** The tool's `maxResultBytes`, checked here; read at each call. */
  maxResultBytes?: number | ((args: Record<string, unknown>) => number);
}

/** The tools of one server, in registration order. */
export class Registry {
  readonly tools: Map<string, Entry> = new Map();
  #listeners: (() => void)[] = [];
  #listCache: Record<string, unknown>[] | undefined;
  #listJsonCache: string | undefined;
  /** Compile steps of schemas registered while the engine was not loaded, for settleSchemas(). */
  deferred: (() => void)[] = [];
  /** Set by settleSchemas(): a schema that needs the engine while it is not loaded delays its tool until it is. */
  settled = false;
  /** Names of tools waiting for the engine (addWhenCompiled): taken, so another tool of the name is refused at once. */
  readonly pending: Set<string> = new Set();

  add(entry: Entry): void {
    this.tools.set(entry.tool.name, entry);
    this.#listCache = undefined;
    this.#listJsonCache = undefined;
    for (const listener of this.#listeners) listener();
  }

  /** The tools/list array, cached until the next change. */
  list(): Record<string, unknown>[] {
    this.#listCache ??= [...this.tools.values()].map((e) => e.wire);
    return this.#listCache;
  }

  /**
   * The tools/list array as JSON, cached with {@linkcode list}: a batch of a
   * thousand tools/list requests serialises it once, not once an item.
   */
  listJson(): string {
    return this.#listJsonCache ??= JSON.stringify(this.list());
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }
}

const registries = new WeakMap<object, Registry>();

/** Attaches a registry to a server object. */
export function attachRegistry(server: object): Registry {
  const registry = new Registry();
  registries.set(server, registry);
  return registry;
}

/** The registry of a server object created by this toolkit. */
export function registryOf(server: object): Registry {
  const registry = registries.get(server);
  if (!registry) throw new TypeError("Cannot use this server: it was not created by run() or new Server()");
  return registry;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
const HINTS_EXAMPLE =
  "annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }";

/** Validates a definition against the spec's rules and adds it; shared by addTool and registerPatternTool. */
export function registerTool<A>(
  server: object,
  tool: Tool<A>,
  handler: ToolHandler<A>,
  patterns: PatternFn<A> | undefined,
  confirm?: ConfirmSpec,
): void {
  const registry = registryOf(server);
  const name = typeof tool?.name === "string" ? tool.name : "";
  const fail = (problem: string) => new TypeError(`Cannot register tool ${quote(name)}: ${problem}`);
  if (!TOOL_NAME.test(name)) throw fail("a name is 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'");
  if (registry.tools.has(name) || registry.pending.has(name)) {
    throw fail("a tool with this name is already registered (tool names must be unique within a server)");
  }
  if (typeof tool.description !== "string" || tool.description.trim() === "") throw fail("the description is empty");
  checkObjectSchema(tool.inputSchema, "inputSchema", fail);
  if (tool.outputSchema !== undefined) checkObjectSchema(tool.outputSchema, "outputSchema", fail);
  if (tool.assertFormats !== undefined && typeof tool.assertFormats !== "boolean") {
    throw fail("assertFormats must be true or false");
  }
  // Both schemas are compiled from the JSON copy clients are sent, so what is
  // checked is what they see, and a later edit of the author's objects changes neither.
  const wire = wireOf(tool as Tool, fail);
  const formats = { assertFormats: tool.assertFormats };
  // A plain object schema is checked without the engine; any other is compiled by it, now when it is loaded, else
  // once it is (settleSchemas(), or the tool's first call).
  const deferred: (() => void)[] = [];
  const defer = (compileNow: () => void) => deferred.push(compileNow);
  const validate = plainInputValidator(wire.inputSchema) ??
    compiledWhenUsed((engine) => engine.compileInput(wire.inputSchema, fail, formats), defer);
  const validateOutput = wire.outputSchema === undefined ? undefined : plainOutputValidator(wire.outputSchema) ??
    compiledWhenUsed((engine) => engine.compileOutput(wire.outputSchema, fail, formats), defer);
  const annotations = tool.annotations as unknown as Partial<Record<string, unknown>> | null | undefined;
  const missing = HINTS.filter((hint) => typeof annotations?.[hint] !== "boolean");
  if (missing.length > 0) {
    // Clients treat an unstated hint as the riskiest value, so all four are stated, each true or false.
    throw fail(
      `annotations must state all four hints, each true or false: ${HINTS.join(", ")} ` +
        `(${
          annotations === null || typeof annotations !== "object"
            ? "no annotations given"
            : `missing: ${missing.join(", ")}`
        }); ` +
        `for a read-only local tool: ${HINTS_EXAMPLE}`,
    );
  }
  if (patterns && tool.annotations.readOnlyHint) {
    throw fail("a pattern tool has side effects, so readOnlyHint must be false");
  }
  if (typeof handler !== "function") throw fail("the handler is not a function");
  if (tool.timeoutMs !== undefined && !(Number.isFinite(tool.timeoutMs) && tool.timeoutMs > 0)) {
    throw fail("timeoutMs must be a positive number of milliseconds");
  }
  const most = tool.maxResultBytes as unknown;
  if (most !== undefined && typeof most !== "function" && !(Number.isFinite(most) && (most as number) > 0)) {
    throw fail("maxResultBytes must be a positive number of bytes or a function returning one");
  }
  const task = tool.task as unknown;
  if (task !== undefined && typeof task !== "boolean") {
    const { ttlMs: ttl, required, askFirst } = (task ?? {}) as {
      ttlMs?: unknown;
      required?: unknown;
      askFirst?: unknown;
    };
    if (
      task === null || typeof task !== "object" ||
      (ttl !== undefined && !(Number.isSafeInteger(ttl) && (ttl as number) > 0)) ||
      (required !== undefined && typeof required !== "boolean") ||
      (askFirst !== undefined && typeof askFirst !== "boolean")
    ) {
      throw fail(
        "task must be true, false or { ttlMs, required, askFirst } with ttlMs a positive whole number of milliseconds",
      );
    }
  }
  // The registry stores every tool alike; the validator guarantees the handler
  // and patterns only ever see arguments of type A.
  const entry: Entry = {
    tool: tool as Tool,
    handler: handler as ToolHandler,
    patterns: patterns as PatternFn | undefined,
    confirm,
    validate,
    validateOutput,
    wire,
    maxResultBytes: tool.maxResultBytes,
  };
  if (deferred.length > 0 && registry.settled) {
    addWhenCompiled(registry, entry, deferred, (server as { name?: unknown }).name);
    return;
  }
  registry.deferred.push(...deferred);
  registry.add(entry);
}

/**
 * Loads the JSON Schema engine when a tool registered so far needs it and
 * compiles those schemas; throws the first refusal (`Cannot register tool
 * "name": inputSchema/… `), as addTool does when the engine is loaded. run()
 * awaits it after `register`; from then on, a tool whose schema needs the
 * engine while it is still not loaded is added once it is.
 */
export async function settleSchemas(server: object): Promise<void> {
  const registry = registryOf(server);
  registry.settled = true;
  if (registry.deferred.length === 0) return;
  await loadSchemaEngine();
  for (const compileNow of registry.deferred.splice(0)) compileNow();
}

/**
 * Adds a tool registered while serving, whose schema needs the engine, once
 * the engine is loaded and the schema compiled (a client sees it then, with a
 * list change); a schema the engine refuses is reported on stderr, since
 * addTool has returned. Its name is taken meanwhile: a second addTool of it
 * throws at once, as it would with the tool added.
 */
function addWhenCompiled(registry: Registry, entry: Entry, deferred: (() => void)[], server: unknown): void {
  const name = entry.tool.name;
  registry.pending.add(name);
  loadSchemaEngine().then(() => {
    for (const compileNow of deferred) compileNow();
    registry.add(entry);
  }).catch((err) => {
    // Prefixed with the server's name, as the engine's own lines are.
    const line = err instanceof Error ? err.message : String(err);
    logLine(typeof server === "string" ? `${server}: ${line}` : line);
  })
    .finally(() => registry.pending.delete(name));
}

function checkObjectSchema(value: unknown, field: string, fail: (p: string) => TypeError): void {
  const s = value as Record<string, unknown> | null;
  if (s === null || typeof s !== "object" || s.type !== "object") throw fail(`${field} must be an object schema`);
  const props = s.properties;
  if (props === null || typeof props !== "object" || Array.isArray(props)) {
    throw fail(`${field}.properties must be an object (use schema() to build it)`);
  }
}

function wireOf(tool: Tool, fail: (p: string) => TypeError): Record<string, unknown> {
  const wire: Record<string, unknown> = { name: tool.name };
  if (tool.title !== undefined) wire.title = tool.title;
  wire.description = tool.description;
  wire.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) wire.outputSchema = tool.outputSchema;
  wire.annotations = tool.annotations;
  if (tool._meta !== undefined) wire._meta = tool._meta;
  // A copy: later edits to the author's object cannot change what clients
  // see, and a schema that cannot be serialised fails here, not mid-call.
  try {
    return JSON.parse(JSON.stringify(wire));
  } catch (err) {
    // A BigInt, or an object whose toJSON throws: the author's definition, said as the other refusals are.
    const why = err instanceof Error ? err.message : String(err);
    throw Object.assign(fail(`its definition cannot be sent as JSON (${why.slice(0, 100)})`), { cause: err });
  }
}
