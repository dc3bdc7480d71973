import type { RpcError } from "./jsonrpc.ts";

/**
 * A client's error response as a message or a log line names it: its code
 * (`?` when that is not a number) and the first 200 characters of its
 * message, JSON-quoted.
 *
 * @param error The `error` member of the client's response.
 * @returns For example `error -32601 "Method not found"`.
 *
 * @example Name a client's error
 * ```ts
 * import { rpcErrorText } from "./_rpc_error_text.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(rpcErrorText({ code: -32601, message: "Method not found" }), 'error -32601 "Method not found"');
 * ```
 */
export function rpcErrorText(error: RpcError | undefined): string {
  const code = typeof error?.code === "number" ? error.code : "?";
  const message = typeof error?.message === "string" ? error.message.slice(0, 200) : "";
  return `error ${code} ${JSON.stringify(message)}`;
}
