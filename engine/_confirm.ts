// The confirmation a pattern tool may ask for before its handler runs: one
// elicitation whose only answer is accept, decline or cancel.

import type { Asker } from "./_asker.ts";
import { protocolErrorOf, questionsOf } from "./_asker.ts";
import type { Args } from "../toolkit/args.ts";
import type { ConfirmSpec } from "../toolkit/registry.ts";
import { MissingCapabilityError } from "../toolkit/missing_capability_error.ts";
import { ToolError } from "../internal/tool_error.ts";

/**
 * How a confirmation ended; `unavailable` when the client cannot ask and the
 * tool runs anyway; `replayed` when the acceptance came in a requestState
 * already spent on a run (the call is refused).
 */
export type Confirmation = "accepted" | "declined" | "cancelled" | "unavailable" | "replayed";

/** Asks the user to confirm a call; undefined when this call needs no confirmation. */
export async function confirmCall(
  tool: string,
  spec: ConfirmSpec,
  args: Args,
  asker: Asker,
): Promise<Confirmation | undefined> {
  const message = typeof spec.message === "string" ? spec.message : await spec.message(args);
  if (message === undefined) return undefined;
  if (typeof message !== "string") {
    throw new TypeError(`Cannot confirm a call of tool "${tool}": confirm must return a string or undefined`);
  }
  try {
    const answer = await questionsOf(asker).elicit({ message, requestedSchema: { type: "object", properties: {} } });
    if (answer.action !== "accept") return answer.action === "decline" ? "declined" : "cancelled";
    // One "yes", one run: the answers a retried call brings are spent on it.
    const spent = asker.spend?.() ?? "ok";
    if (spent === "busy") {
      throw new ToolError(
        `Cannot run tool "${tool}": too many confirmed calls are remembered against replay; try again later`,
      );
    }
    return spent === "ok" ? "accepted" : "replayed";
  } catch (err) {
    if (!(err instanceof MissingCapabilityError)) throw err;
    if (spec.whenUnavailable === "run") return "unavailable";
    // 2026-07-28 answers -32021 (the error is marked for it); the initialize era gets an isError that says why.
    if (protocolErrorOf(err) !== undefined) throw err;
    throw new ToolError(
      `Cannot run tool "${tool}": it asks the user to confirm each call, and this client cannot ask ` +
        "(it did not declare the elicitation capability); nothing was done",
    );
  }
}
