import { attachRegistry, registerTool, registryOf } from "./registry.ts";
import type { Args } from "./args.ts";
import type { Tool, ToolHandler } from "./tool.ts";

/** What a server says about itself in `initialize` and `server/discover`. */
export interface ServerInfo {
  /** The server's name, e.g. `files`. */
  name: string;
  /**
   * The server's version.
   * @default {"0.0.0"}
   */
  version?: string;
  /** A display title. */
  title?: string;
  /** Instructions for the model on how to use the server's tools. */
  instructions?: string;
}

/**
 * A tools-only MCP server: the table of tools that {@linkcode run} serves.
 * `run()` creates it and hands it to your register function; create one
 * yourself only to serve it in memory (see `@forge/toolkit/testing`).
 *
 * @example Register a tool
 * ```ts
 * import { addTool, schema, Server, text } from "@forge/toolkit";
 *
 * const server = new Server({ name: "hello" });
 * addTool(server, {
 *   name: "hello",
 *   description: "Says hello",
 *   inputSchema: schema(),
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 * }, () => text("hello"));
 * ```
 */
export class Server {
  /** The server's name. */
  readonly name: string;
  /** The server's version. */
  readonly version: string;
  /** A display title. */
  readonly title: string | undefined;
  /** Instructions for the model. */
  readonly instructions: string | undefined;

  /**
   * Creates an empty server.
   *
   * @param info The server's name, version and instructions.
   * @throws {TypeError} When the name is empty.
   */
  constructor(info: ServerInfo) {
    if (typeof info.name !== "string" || info.name.trim() === "") {
      throw new TypeError("Cannot create a server: the name is empty");
    }
    this.name = info.name;
    this.version = info.version ?? "0.0.0";
    this.title = info.title;
    this.instructions = info.instructions;
    attachRegistry(this);
  }

  /** The names of the registered tools, in registration order. */
  get toolNames(): string[] {
    return [...registryOf(this).tools.keys()];
  }
}

/**
 * Registers a tool. Adding one after the server started sends
 * `notifications/tools/list_changed` to the client.
 *
 * The handler's `req.arguments` is typed by the tool's `inputSchema`, and
 * every call is validated against that schema before the handler runs: a
 * call that breaks it gets an `isError` result naming the argument and the
 * rule, and the handler is not called.
 *
 * @typeParam A The arguments' type, inferred from `inputSchema`.
 * @param server The server from `run()`'s register function.
 * @param tool The definition; every annotation hint must be stated.
 * @param handler Request in, result out.
 * @throws {TypeError} When the definition breaks the spec's rules (name, schema, hints) or the name is taken.
 *
 * @example A read-only tool with typed arguments
 * ```ts
 * import { addTool, intProp, schema, Server, strProp, text } from "@forge/toolkit";
 *
 * const server = new Server({ name: "greeter" });
 * addTool(server, {
 *   name: "greet",
 *   description: "Greets someone by name",
 *   inputSchema: schema({ name: strProp("Who to greet"), times: intProp("How often", { minimum: 1 }) }, ["name"]),
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 * }, (req) => text(`Hello, ${req.arguments.name}! `.repeat(req.arguments.times ?? 1)));
 * ```
 */
export function addTool<A = Args>(server: Server, tool: Tool<A>, handler: ToolHandler<A>): void {
  registerTool(server, tool, handler, undefined);
}
