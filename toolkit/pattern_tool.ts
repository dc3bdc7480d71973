import { quote } from "../internal/quote.ts";
import { type ConfirmSpec, registerTool } from "./registry.ts";
import type { Args } from "./args.ts";
import type { Server } from "./server.ts";
import type { PatternFn, Tool, ToolHandler } from "./tool.ts";

/**
 * Options of {@linkcode registerPatternTool}.
 *
 * @typeParam A The arguments' type.
 */
export interface PatternToolOptions<A = Args> {
  /**
   * Ask the user to confirm each call before the handler runs, through the
   * client (elicitation): a fixed question, or a function of the (validated)
   * arguments that returns the question, or undefined when this call needs
   * none (for example, a write that creates a new file). Decline or cancel
   * answers an `isError` result and nothing runs; the middleware (an audit
   * trail) sees the answer in `ctx.confirmation`. Probes never ask.
   * @default {undefined: no confirmation}
   */
  confirm?: string | ((args: A) => string | undefined | Promise<string | undefined>);
  /**
   * When the client cannot ask its user (no elicitation capability): `refuse`
   * answers `-32021` in the 2026-07-28 era and an `isError` result in the
   * initialize era, without running the handler; `run` runs it unconfirmed
   * (the patterns approval of the host still applies).
   * @default {"refuse"}
   */
  whenUnconfirmable?: "run" | "refuse";
}

/**
 * Registers a side-effecting tool that declares permission patterns. A host
 * uses the patterns for its approval policy: a `tools/call` whose
 * `params._meta["forge.permission_patterns"]` is `true` is a probe, answered
 * with the patterns in the result's `_meta` without running the handler (see
 * docs/mcp-contract.md). A normal call (the flag absent or `false`) runs the
 * handler as usual; any other value of the flag is refused with `-32602`, so
 * nothing runs on a flag the server cannot read.
 *
 * It keeps the four positional parameters of the Go toolkit's
 * `RegisterPatternTool` (docs/ARCHITECTURE.md maps the names), so a server
 * ported from Go keeps its shape. Both `patterns` and `handler` see arguments already validated against
 * `inputSchema`, typed by it.
 *
 * @typeParam A The arguments' type, inferred from `inputSchema`.
 * @param server The server from `run()`'s register function.
 * @param tool The definition; `annotations.readOnlyHint` must be false.
 * @param patterns Computes the call's patterns from its arguments; must not have side effects.
 * @param handler Performs the action.
 * @param options See {@linkcode PatternToolOptions}: a confirmation asked before the handler runs.
 * @throws {TypeError} When the definition is invalid, claims to be read-only, or declares an `outputSchema`.
 *
 * @example A write tool with a pattern per path
 * ```ts
 * import { registerPatternTool, schema, Server, strProp, text } from "@forge/toolkit";
 *
 * const server = new Server({ name: "notes" });
 * registerPatternTool(
 *   server,
 *   {
 *     name: "write_note",
 *     description: "Writes a note",
 *     inputSchema: schema({ path: strProp("Note path"), content: strProp("Text") }, ["path", "content"]),
 *     annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
 *   },
 *   (args) => ({ patterns: [`write:${args.path}`] }),
 *   (req) => text(`wrote ${req.arguments.content.length} characters to ${req.arguments.path}`),
 * );
 * ```
 *
 * @example Ask the user before each deletion
 * ```ts
 * import { registerPatternTool, schema, Server, strProp, text } from "@forge/toolkit";
 *
 * const server = new Server({ name: "notes" });
 * registerPatternTool(
 *   server,
 *   {
 *     name: "delete_note",
 *     description: "Deletes a note",
 *     inputSchema: schema({ path: strProp("Note path") }, ["path"]),
 *     annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
 *   },
 *   (args) => ({ patterns: [`delete:${args.path}`] }),
 *   (req) => text(`deleted ${req.arguments.path}`),
 *   { confirm: (args) => `Delete ${args.path}?` },
 * );
 * ```
 */
export function registerPatternTool<A = Args>(
  server: Server,
  tool: Tool<A>,
  patterns: PatternFn<A>,
  handler: ToolHandler<A>,
  options: PatternToolOptions<A> = {},
): void {
  if (tool?.outputSchema !== undefined) {
    // A probe answers with patterns, not with structuredContent, and official
    // clients reject a result without it from a tool that declares an outputSchema.
    throw new TypeError(
      `Cannot register tool ${
        quote(tool.name)
      }: a pattern tool cannot declare an outputSchema (its probe result has no structuredContent)`,
    );
  }
  if (typeof patterns !== "function") {
    throw new TypeError(
      `Cannot register tool ${quote(tool?.name)}: patterns must be a function`,
    );
  }
  const { confirm, whenUnconfirmable = "refuse" } = options;
  if (confirm !== undefined && typeof confirm !== "string" && typeof confirm !== "function") {
    throw new TypeError(
      `Cannot register tool ${quote(tool?.name)}: confirm must be a string or a function`,
    );
  }
  if (whenUnconfirmable !== "run" && whenUnconfirmable !== "refuse") {
    throw new TypeError(
      `Cannot register tool ${quote(tool?.name)}: whenUnconfirmable must be "run" or "refuse"`,
    );
  }
  const spec = confirm === undefined
    ? undefined
    : { message: confirm as ConfirmSpec["message"], whenUnavailable: whenUnconfirmable };
  registerTool(server, tool, handler, patterns, spec);
}
