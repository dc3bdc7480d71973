import type { ClientCapability } from "./client_input.ts";
import { ToolError } from "../internal/tool_error.ts";

/**
 * Thrown by `request.elicit()`, `request.listRoots()` and `request.sample()`
 * when the client did not declare the capability the question needs. A
 * handler that can do without the answer catches it and falls back; one that
 * lets it escape gets the protocol's answer: `-32021
 * MissingRequiredClientCapability` with `data.requiredCapabilities` in the
 * 2026-07-28 era, an `isError` result saying what is missing in the
 * initialize era (it is a {@linkcode ToolError}).
 *
 * @example Fall back when the client cannot ask its user
 * ```ts
 * import { MissingCapabilityError, schema, boolProp, text, type ToolHandler } from "@forge/toolkit";
 *
 * const handler: ToolHandler = async (req) => {
 *   try {
 *     const answer = await req.elicit({
 *       message: "Send the report now?",
 *       requestedSchema: schema({ send: boolProp("Send it") }, ["send"]),
 *     });
 *     return text(answer.action === "accept" && answer.content.send ? "sent" : "kept");
 *   } catch (err) {
 *     if (err instanceof MissingCapabilityError) return text("kept: this client cannot ask its user");
 *     throw err;
 *   }
 * };
 * ```
 */
export class MissingCapabilityError extends ToolError {
  /** The capability the client did not declare. */
  readonly capability: ClientCapability;

  /**
   * Creates the error for one missing capability.
   *
   * @param capability The capability that is missing.
   * @param method The request that needed it.
   */
  constructor(capability: ClientCapability, method: string) {
    super(`Cannot send ${method} to the client: it did not declare the ${capability} capability`);
    this.name = "MissingCapabilityError";
    this.capability = capability;
  }
}
