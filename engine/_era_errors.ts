// How each era hears that the server, not the tool, ended a call: its deadline
// passed, too many calls were in flight, or the server is shutting down.
//
// The initialize era keeps the implementation-defined codes the SDK v1 clients
// have always received (-32001, -32003, -32004). 2026-07-28 gives -32000…-32019
// no meaning across implementations and defines no code of its own for these
// three (it allocates -32020…-32099 one by one), so a 2026-07-28 client gets what
// it can act on without knowing this toolkit: a deadline is a tool execution
// error the model reads and can answer by narrowing its request (`isError`),
// and a busy or stopping server is `-32603` with `data.reason` saying which,
// and whether a retry may help.

import type { Outcome } from "./_call.ts";
import type { Era } from "./_era.ts";
import { ErrorCode, type RpcError } from "./jsonrpc.ts";
import { error } from "../toolkit/result.ts";

/** Why the server refused or ended a call, as `data.reason` of a 2026-07-28 error. */
export type LimitReason = "server_busy" | "shutting_down";

/** The error for a call refused because `max` calls are in flight. */
export function busyError(era: Era, max: number): RpcError {
  return busy(era, `Server busy: ${max} calls in flight (maxInFlight); retry later`, max);
}

/**
 * The refusal of a call that would bring what the calls in flight hold (requests, and the replies their tools
 * reserve) past `max` bytes (`maxInFlightBytes`).
 */
export function busyBytesError(era: Era, max: number): RpcError {
  return busy(
    era,
    `Server busy: this call would bring the calls in flight past ${max} bytes of requests and replies (maxInFlightBytes); retry later`,
    max,
  );
}

function busy(era: Era, message: string, limit: number): RpcError {
  if (era === "session") return { code: ErrorCode.serverBusy, message };
  return { code: ErrorCode.internalError, message, data: { reason: "server_busy", retryable: true, limit } };
}

/**
 * A call's outcome as its era answers it. The call runner speaks the
 * initialize era's codes; a 2026-07-28 call has its deadline and shutdown
 * answers rewritten here, everything else passes through.
 */
export function outcomeForEra(outcome: Outcome, era: Era): Outcome {
  if (era === "session" || outcome.kind !== "error") return outcome;
  const { code, message } = outcome.error;
  if (code === ErrorCode.requestTimeout) return { kind: "result", result: error(message) };
  if (code === ErrorCode.shuttingDown) {
    return {
      kind: "error",
      error: { code: ErrorCode.internalError, message, data: { reason: "shutting_down", retryable: false } },
    };
  }
  return outcome;
}
