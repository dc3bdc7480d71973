// How a tool's handler ended, for the toolkit's own middleware: the engine
// offers it on the call context under a symbol, so the public CallContext
// stays as it is and a context made elsewhere (a test's) simply lacks it.

/** How a handler ended: it returned a result, returned or threw a domain error (`isError`), or threw. */
export type HandlerEnd = "ok" | "isError" | "error";

/** The key of the engine's `(): Promise<HandlerEnd | undefined>` on a call context. */
export const HANDLER_END: unique symbol = Symbol("forge.handlerEnd");

/** What the engine adds to a call context: resolves when the handler ended, with how; undefined when it never ran. */
export interface HandlerEndOffer {
  [HANDLER_END](): Promise<HandlerEnd | undefined>;
}

/**
 * Once `next()` has settled: resolves with how the call's handler ended, or
 * undefined when it never ran or never ends here (a call paused to ask its
 * client). Undefined at once for a context the engine did not make.
 */
export function handlerEndOf(ctx: object): Promise<HandlerEnd | undefined> | undefined {
  const offer = (ctx as Partial<HandlerEndOffer>)[HANDLER_END];
  return typeof offer === "function" ? offer.call(ctx) : undefined;
}

/** How a handler that returned `result` ended: `isError` for a result so marked, else `ok`; never throws. */
export function endOf(result: unknown): HandlerEnd {
  try {
    return (result as { isError?: unknown } | null)?.isError === true ? "isError" : "ok";
  } catch {
    return "ok";
  }
}
