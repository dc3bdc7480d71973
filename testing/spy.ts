import type { ToolHandler, ToolRequest, ToolResult } from "@forge/toolkit";

/** A handler that counts its calls. */
export interface SpyHandler extends ToolHandler {
  /** The requests it received, in order. */
  readonly calls: ToolRequest[];
}

/**
 * Wraps a handler so a test can assert whether it ran (for example, that a
 * probe did not run it).
 *
 * @param handler The real handler.
 * @returns The counting handler.
 *
 * @example Assert that a probe did not run the handler
 * ```ts
 * import { text } from "@forge/toolkit";
 * import { spyHandler } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const handler = spyHandler(() => text("done"));
 * assert.equal(handler.calls.length, 0);
 * ```
 */
export function spyHandler(handler: ToolHandler): SpyHandler {
  const calls: ToolRequest[] = [];
  const spy = (request: ToolRequest): ToolResult | Promise<ToolResult> => {
    calls.push(request);
    return handler(request);
  };
  return Object.assign(spy, { calls });
}
