// notifications/progress for a call whose request carried a progress token.
// A handler may report as often as it likes; only increasing, finite values
// of a call still open reach the client, as the spec requires.

import type { Call } from "./_calls.ts";
import { encodeNotification, ExactNumber } from "./jsonrpc.ts";
import type { ToolRequest } from "../toolkit/tool.ts";

/** The `progress` of a call that reports to nobody. */
export const noProgress: ToolRequest["progress"] = (): void => {};

/**
 * The `progress` function of a call: silent unless `meta.progressToken` is a
 * string or number. A number JavaScript cannot hold exactly arrives as an
 * ExactNumber and goes back as the text the client sent.
 */
export function progressFor(
  meta: Record<string, unknown>,
  call: Call,
  send: (frame: string) => void,
): ToolRequest["progress"] {
  const token = meta.progressToken;
  if (typeof token !== "string" && typeof token !== "number" && !(token instanceof ExactNumber)) return noProgress;
  let last = -Infinity;
  return (progress, total, message) => {
    if (!call.open || !Number.isFinite(progress) || progress <= last) return;
    last = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (typeof total === "number" && Number.isFinite(total)) params.total = total;
    if (typeof message === "string") params.message = message;
    send(encodeNotification("notifications/progress", params));
  };
}
