import type { Middleware } from "../toolkit/middleware.ts";
import { error } from "../toolkit/result.ts";
import type { Tool } from "../toolkit/tool.ts";

/** A token bucket: `rate` calls per second on average, bursts up to `burst`. */
export interface RateSpec {
  /** Tokens added per second. */
  rate: number;
  /**
   * The bucket's size: how many calls may come at once after a quiet spell.
   * @default {the rate, at least 1}
   */
  burst?: number;
}

/** Options of {@linkcode rateLimit}. */
export interface RateLimitOptions {
  /** The limit of tools not named in `tools`; absent means unlimited. */
  default?: RateSpec;
  /** Limits per tool name. */
  tools?: Record<string, RateSpec>;
}

/**
 * A per-tool rate limit (token bucket). A call over the limit gets a clear
 * `isError` result saying when to retry; the handler does not run. Probes
 * pass freely: they do not run the action.
 *
 * @param options See {@linkcode RateLimitOptions}.
 * @returns The middleware.
 * @throws {RangeError} When a rate or burst is not a positive number.
 *
 * @example Five writes per second, bursts of ten
 * ```ts
 * import { rateLimit } from "@forge/toolkit/middleware";
 *
 * const limit = rateLimit({ tools: { write_file: { rate: 5, burst: 10 } } });
 * ```
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const specs = new Map(Object.entries(options.tools ?? {}).map(([name, spec]) => [name, checked(spec, name)]));
  const fallback = options.default ? checked(options.default, "default") : undefined;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const limit: Middleware = (ctx, next) => {
    const spec = specs.get(ctx.tool.name) ?? fallback;
    if (!spec || ctx.probe) return next();
    const now = performance.now();
    const bucket = buckets.get(ctx.tool.name) ?? { tokens: spec.burst, at: now };
    bucket.tokens = Math.min(spec.burst, bucket.tokens + ((now - bucket.at) / 1000) * spec.rate);
    bucket.at = now;
    buckets.set(ctx.tool.name, bucket);
    // The refill is summed call by call in floating point, so the token is
    // counted as there a nanosecond early: else a client that waits exactly
    // the time it was told could be refused again by a rounding error.
    const missingMs = ((1 - bucket.tokens) / spec.rate) * 1000;
    if (missingMs > SLACK_MS) {
      const waitMs = Math.ceil(missingMs - SLACK_MS);
      return error(
        `Rate limit exceeded for tool "${ctx.tool.name}": at most ${spec.rate} calls per second ` +
          `(bursts of ${spec.burst}); retry in ${waitMs} ms`,
      );
    }
    bucket.tokens -= 1;
    return next();
  };
  // Tools without a limit skip it entirely.
  return Object.assign(limit, { appliesTo: (tool: Tool) => fallback !== undefined || specs.has(tool.name) });
}

/** How early, in milliseconds, a token may be counted: far below what a clock or a client can tell apart. */
const SLACK_MS = 1e-6;

function checked(spec: RateSpec, name: string): { rate: number; burst: number } {
  const burst = spec.burst ?? Math.max(1, spec.rate);
  if (!(spec.rate > 0) || !Number.isFinite(spec.rate) || !(burst >= 1) || !Number.isFinite(burst)) {
    throw new RangeError(`Cannot build the rate limit of "${name}": rate must be > 0 and burst >= 1`);
  }
  return { rate: spec.rate, burst };
}
