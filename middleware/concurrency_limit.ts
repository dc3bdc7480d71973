import type { Middleware } from "../toolkit/middleware.ts";
import { error } from "../toolkit/result.ts";
import type { Tool } from "../toolkit/tool.ts";

/** Options of {@linkcode concurrencyLimit}. */
export interface ConcurrencyLimitOptions {
  /** The limit of tools not named in `tools`; absent means unlimited. */
  default?: number;
  /** Limits per tool name. */
  tools?: Record<string, number>;
}

/**
 * A per-tool limit on handlers running at once. A call past the limit gets a
 * clear `isError` result at once (it does not queue); the handler does not
 * run. A call cancelled or past its deadline keeps its slot until its
 * handler ends, if that handler ignores its signal. Probes pass freely. The
 * server-wide bound is `run()`'s `maxInFlight`.
 *
 * @param options See {@linkcode ConcurrencyLimitOptions}.
 * @returns The middleware.
 * @throws {RangeError} When a limit is not a positive integer.
 *
 * @example At most two queries at once
 * ```ts
 * import { concurrencyLimit } from "@forge/toolkit/middleware";
 *
 * const limit = concurrencyLimit({ tools: { run_query: 2 } });
 * ```
 */
export function concurrencyLimit(options: ConcurrencyLimitOptions): Middleware {
  const limits = new Map(Object.entries(options.tools ?? {}).map(([name, n]) => [name, checked(n, name)]));
  const fallback = options.default === undefined ? undefined : checked(options.default, "default");
  const running = new Map<string, number>();
  const limit: Middleware = async (ctx, next) => {
    const limit = limits.get(ctx.tool.name) ?? fallback;
    if (limit === undefined || ctx.probe) return await next();
    const now = running.get(ctx.tool.name) ?? 0;
    if (now >= limit) {
      return error(
        `Too many concurrent calls of tool "${ctx.tool.name}": at most ${limit} at once; retry when one finishes`,
      );
    }
    running.set(ctx.tool.name, now + 1);
    try {
      return await next();
    } finally {
      // A call cancelled or past its deadline has its answer, but a handler that ignores its signal still runs: its
      // slot is given back when it ends.
      void ctx.untilHandlerEnds().then(() => running.set(ctx.tool.name, (running.get(ctx.tool.name) ?? 1) - 1));
    }
  };
  // Tools without a limit skip it entirely.
  return Object.assign(limit, { appliesTo: (tool: Tool) => fallback !== undefined || limits.has(tool.name) });
}

function checked(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`Cannot build the concurrency limit of "${name}": it must be a positive integer, got ${n}`);
  }
  return n;
}
