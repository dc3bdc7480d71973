import {
  type Infer,
  json,
  type PatternFn,
  schema,
  stringMapProp,
  strProp,
  type Tool,
  type ToolHandler,
} from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";

const input = schema({
  url: strProp("Absolute http(s) URL on an allowed host, e.g. https://api.example.com/v1/items", { minLength: 1 }),
  headers: stringMapProp(
    'Extra request headers, e.g. {"Accept": "application/json"}. Host, Authorization, Cookie, ' +
      "Proxy-*, hop-by-hop, Accept-Encoding, forwarding and method-override headers are refused",
  ),
}, ["url"]);

/** The arguments of `fetch_url`, checked against its schema before the patterns or the handler run. */
export type FetchUrlArgs = Infer<typeof input>;

/**
 * The `fetch_url` definition. A GET changes nothing on this machine, but it
 * carries what the model chose (path, query, headers) to another party, and
 * what a GET does there is that party's business: so it is a pattern tool
 * (`readOnlyHint: false`, not destructive, idempotent, open world) and the
 * host can approve it per origin.
 *
 * @param timeoutMs The per-call deadline (the start-up `timeout_ms` plus a grace).
 * @returns The tool definition.
 *
 * @example The annotations
 * ```ts
 * import { fetchUrlTool } from "./fetch_url.ts";
 * import assert from "node:assert/strict";
 *
 * const tool = fetchUrlTool(11_000);
 * assert.equal(tool.annotations.readOnlyHint, false);
 * assert.equal(tool.annotations.openWorldHint, true);
 * ```
 */
export function fetchUrlTool(timeoutMs: number): Tool<FetchUrlArgs> {
  return {
    name: "fetch_url",
    title: "Fetch a URL",
    description: "GETs a URL on an allowed host and returns its status, content type and body as text. " +
      "Redirects are followed only to allowed hosts; a non-2xx status is returned, not an error. " +
      "The body is cut at the configured size (truncated: true); a binary body is described, not returned.",
    inputSchema: input,
    // No outputSchema: a pattern tool's probe answers without structuredContent,
    // which official clients reject for a tool that declares one. The result
    // still carries structuredContent (see the README).
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    timeoutMs,
  };
}

/**
 * The call's permission patterns, computed without I/O from the current
 * config: `get:<origin><path>` (no query: it is data, often tokens, and the
 * audit trail records patterns) and, to approve for good,
 * `get:<origin>/*`. A URL or header the server would refuse makes the probe
 * an `isError` result.
 *
 * @param mgr The manager.
 * @returns The pattern function.
 *
 * @example The patterns of a URL
 * ```ts
 * import { fetchUrlPatterns } from "./fetch_url.ts";
 * import { Manager } from "../domain/manager.ts";
 * import { ConfigSchema } from "../domain/config.ts";
 * import assert from "node:assert/strict";
 *
 * const config = ConfigSchema.parse({ allow_hosts: ["api.example.com"] });
 * const patterns = fetchUrlPatterns(new Manager(() => Promise.resolve(config), { timeoutMs: 10_000 }));
 * assert.deepEqual(await patterns({ url: "https://API.example.com/v1/../items?key=x" }), {
 *   patterns: ["get:https://api.example.com/items"],
 *   always: ["get:https://api.example.com/*"],
 * });
 * ```
 */
export function fetchUrlPatterns(mgr: Manager): PatternFn<FetchUrlArgs> {
  return async (args) => {
    const url = await mgr.check({ url: args.url, headers: args.headers });
    return { patterns: [`get:${url.origin}${url.pathname}`], always: [`get:${url.origin}/*`] };
  };
}

/**
 * The handler: arguments in, the manager's fetch with the call's signal,
 * the structured result out.
 *
 * @param mgr The manager.
 * @returns The handler.
 *
 * @example Wire the tool
 * ```ts
 * import { registerPatternTool, Server } from "@forge/toolkit";
 * import { fetchUrlHandler, fetchUrlPatterns, fetchUrlTool } from "./fetch_url.ts";
 * import { Manager } from "../domain/manager.ts";
 * import { ConfigSchema } from "../domain/config.ts";
 *
 * const mgr = new Manager(() => Promise.resolve(ConfigSchema.parse({})), { timeoutMs: 10_000 });
 * const server = new Server({ name: "http" });
 * registerPatternTool(server, fetchUrlTool(mgr.callTimeoutMs), fetchUrlPatterns(mgr), fetchUrlHandler(mgr));
 * ```
 */
export function fetchUrlHandler(mgr: Manager): ToolHandler<FetchUrlArgs> {
  return async (req) => json(await mgr.fetch({ url: req.arguments.url, headers: req.arguments.headers }, req.signal));
}
