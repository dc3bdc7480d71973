// notifications/progress for a call whose request carried a progress token.
// A handler may report as often as it likes; only increasing, finite values
// of a call still open reach the client, as the spec requires, and never more
// than one waits while the client is behind.

import type { Call } from "./_calls.ts";
import { ExactNumber } from "./id.ts";
import type { ToolRequest } from "../toolkit/tool.ts";

/** The `progress` of a call that reports to nobody. */
export const noProgress: ToolRequest["progress"] = (): void => {};

/** The most characters of a `progressToken` (or of a number's text) a call reports to; a longer one is ignored. */
export const MAX_PROGRESS_TOKEN_CHARS = 256;

/** Where progress goes: the stream's writer, which says when the client is behind. */
export interface ProgressOut {
  send(frame: string): void;
  readonly congested: boolean;
  idle(): Promise<void>;
}

/**
 * The `progress` function of a call: silent unless `meta.progressToken` is a
 * string or number of at most {@linkcode MAX_PROGRESS_TOKEN_CHARS}
 * characters. A number JavaScript cannot hold exactly arrives as an
 * ExactNumber and goes back as the text the client sent. The token is
 * serialised once per call. While the client is behind (`out.congested`),
 * reports are coalesced: only the latest waits, and it is sent once the
 * stream drains if the call is still open, so a handler reporting in a loop
 * cannot queue past the stream's bound.
 */
export function progressFor(meta: Record<string, unknown>, call: Call, out: ProgressOut): ToolRequest["progress"] {
  const token = meta.progressToken;
  if (typeof token !== "string" && typeof token !== "number" && !(token instanceof ExactNumber)) return noProgress;
  if (String(token).length > MAX_PROGRESS_TOKEN_CHARS) return noProgress;
  const head = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${
    JSON.stringify(token)
  },"progress":`;
  let last = -Infinity;
  let waiting: string | undefined;
  const flush = () => {
    const frame = waiting;
    waiting = undefined;
    if (frame !== undefined && call.open) out.send(frame);
  };
  return (progress, total, message) => {
    if (!call.open || !Number.isFinite(progress) || progress <= last) return;
    last = progress;
    let frame = head + JSON.stringify(progress);
    if (typeof total === "number" && Number.isFinite(total)) frame += `,"total":${JSON.stringify(total)}`;
    if (typeof message === "string") frame += `,"message":${JSON.stringify(message)}`;
    frame += "}}";
    if (waiting === undefined && !out.congested) return out.send(frame);
    if (waiting === undefined) void out.idle().then(flush);
    waiting = frame;
  };
}
