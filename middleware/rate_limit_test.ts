import assert from "node:assert/strict";
import { text, type ToolResult } from "@forge/toolkit";
import type { CallContext, Tool } from "@forge/toolkit";
import { rateLimit } from "./rate_limit.ts";

const RO = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

function tool(name: string): Tool {
  return { name, description: "d", inputSchema: { type: "object", properties: {} }, annotations: RO };
}

function ctx(name: string, probe = false): CallContext {
  return { tool: tool(name), probe } as unknown as CallContext;
}

/**
 * Runs `fn` with `performance.now()` reading `clock.ms`: the bucket refills
 * by the time it reads, and a test moves that time by hand.
 */
function withTime(fn: (clock: { ms: number }) => Promise<void>): () => Promise<void> {
  return async () => {
    const clock = { ms: 1_000_000 };
    const real = performance.now;
    performance.now = () => clock.ms;
    try {
      await fn(clock);
    } finally {
      performance.now = real;
    }
  };
}

/** Calls the middleware once; "ran" when it let the handler run, else the refusal's text. */
async function call(limit: ReturnType<typeof rateLimit>, c: CallContext): Promise<string> {
  const result: ToolResult = await limit(c, () => Promise.resolve(text("ran")));
  return result.isError ? (result.content[0] as { text: string }).text : "ran";
}

Deno.test(
  "rateLimit() lets exactly the burst through at once and refuses the next call, naming when to retry",
  withTime(async () => {
    const limit = rateLimit({ tools: { write: { rate: 2, burst: 3 } } });
    for (let i = 0; i < 3; i++) assert.equal(await call(limit, ctx("write")), "ran");
    assert.equal(
      await call(limit, ctx("write")),
      'Rate limit exceeded for tool "write": at most 2 calls per second (bursts of 3); retry in 500 ms',
    );
  }),
);

Deno.test(
  "rateLimit() serves a client that waits exactly the time its refusal named, and refuses it a millisecond earlier",
  withTime(async (clock) => {
    // Rates and gaps whose refill does not add up exactly in floating point.
    for (const rate of [1, 2, 3, 7, 0.3]) {
      for (let gap = 1; gap < 2000; gap += 7) {
        const limit = rateLimit({ default: { rate, burst: 1 } });
        assert.equal(await call(limit, ctx("write")), "ran");
        clock.ms += gap;
        const refused = (await call(limit, ctx("write"))).match(/retry in (\d+) ms$/);
        if (refused === null) continue;
        const waitMs = Number(refused[1]);
        clock.ms += waitMs - 1;
        assert.match(await call(limit, ctx("write")), /retry in 1 ms$/, `rate ${rate}, gap ${gap}: early`);
        clock.ms += 1;
        assert.equal(await call(limit, ctx("write")), "ran", `rate ${rate}, gap ${gap}: told ${waitMs} ms`);
      }
    }
  }),
);

Deno.test(
  "rateLimit() refills no further than the burst after a long quiet spell",
  withTime(async (clock) => {
    const limit = rateLimit({ tools: { write: { rate: 1, burst: 2 } } });
    clock.ms += 3_600_000;
    assert.equal(await call(limit, ctx("write")), "ran");
    assert.equal(await call(limit, ctx("write")), "ran");
    assert.match(await call(limit, ctx("write")), /^Rate limit exceeded/);
  }),
);

Deno.test(
  "rateLimit() keeps a bucket per tool, so one tool's burst does not spend another's",
  withTime(async () => {
    const limit = rateLimit({ default: { rate: 1 } });
    assert.equal(await call(limit, ctx("a")), "ran");
    assert.match(await call(limit, ctx("a")), /tool "a"/);
    assert.equal(await call(limit, ctx("b")), "ran");
  }),
);

Deno.test(
  "rateLimit() lets probes through without spending a token, and refused calls spend none either",
  withTime(async (clock) => {
    const limit = rateLimit({ tools: { write: { rate: 1 } } });
    for (let i = 0; i < 5; i++) assert.equal(await call(limit, ctx("write", true)), "ran");
    assert.equal(await call(limit, ctx("write")), "ran");
    for (let i = 0; i < 5; i++) assert.match(await call(limit, ctx("write")), /^Rate limit exceeded/);
    clock.ms += 1000;
    assert.equal(await call(limit, ctx("write")), "ran", "refusals did not dig the bucket below zero");
  }),
);

Deno.test("rateLimit() applies only to the tools it limits, every tool once it has a default", () => {
  const named = rateLimit({ tools: { write: { rate: 1 } } });
  assert.equal(named.appliesTo!(tool("write"), true), true);
  assert.equal(named.appliesTo!(tool("read"), false), false);
  assert.equal(rateLimit({ default: { rate: 1 } }).appliesTo!(tool("read"), false), true);
});

Deno.test("rateLimit() refuses a rate or burst that is not a positive finite number when it is built", () => {
  const bad: { rate: number; burst?: number }[] = [
    { rate: 0 },
    { rate: -1 },
    { rate: NaN },
    { rate: Infinity },
    { rate: 1, burst: 0.5 },
    { rate: 1, burst: Infinity },
    { rate: 1, burst: NaN },
  ];
  for (const spec of bad) {
    assert.throws(
      () => rateLimit({ tools: { write: spec } }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message === 'Cannot build the rate limit of "write": rate must be > 0 and burst >= 1',
      JSON.stringify(spec),
    );
  }
  assert.throws(() => rateLimit({ default: { rate: 0 } }), /rate limit of "default"/);
  // A rate below one a second still gets a bucket of one call.
  rateLimit({ default: { rate: 0.1 } });
});
