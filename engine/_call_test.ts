import assert from "node:assert/strict";
import { type CallInput, type Outcome, runCall } from "./_call.ts";
import { CallTable } from "./_calls.ts";
import { NO_ASKER } from "./_asker.ts";
import type { Entry } from "../toolkit/registry.ts";
import type { Middleware } from "../toolkit/middleware.ts";
import { text, type ToolResult } from "../toolkit/result.ts";
import type { ToolHandler } from "../toolkit/tool.ts";
import { ToolError } from "../internal/tool_error.ts";
import { ManualClock } from "../internal/manual_clock.ts";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function input(table: CallTable, handler: ToolHandler, extra: Partial<CallInput> = {}, timeoutMs = 1_000): CallInput {
  const tool = { name: "t", description: "d", inputSchema: { type: "object" as const, properties: {} } };
  const entry: Entry = {
    tool: { ...tool, annotations: READ_ONLY },
    handler,
    patterns: undefined,
    validate: () => undefined,
    wire: tool,
  };
  return {
    entry,
    args: {},
    meta: {},
    id: 1,
    client: { name: "c", version: "1", protocolVersion: "2025-11-25" },
    origin: { asker: () => NO_ASKER },
    call: table.open(1, timeoutMs),
    middleware: [],
    progress: () => {},
    log: () => {},
    ...extra,
  };
}

const textOf = (o: Outcome) => o.kind === "result" ? (o.result.content[0] as { text: string }).text : o.kind;

Deno.test("runCall() answers a synchronous handler in the same turn, without a promise", () => {
  const table = new CallTable();
  const outcome = runCall(input(table, () => text("now")));
  assert.ok(!(outcome instanceof Promise));
  assert.equal(textOf(outcome), "now");
  // Its failures are synchronous too, with the same contract as the general path.
  const domain = runCall(input(table, () => {
    throw new ToolError("fix the argument");
  }));
  assert.ok(!(domain instanceof Promise));
  assert.equal(domain.kind === "result" && domain.result.isError, true);
  assert.equal(textOf(domain), "fix the argument");
  const bug = runCall(input(table, () => {
    throw new Error("/secret/host/path");
  }));
  assert.ok(!(bug instanceof Promise) && bug.kind === "error");
  assert.match(bug.error.message, /^Internal error \(ref [0-9a-z-]+\)$/);
  // A result whose `then` getter throws is a failure of the call, never an exception out of runCall.
  const hostile = () =>
    ({
      get then() {
        throw new Error("getter");
      },
    }) as unknown as ToolResult;
  const trap = runCall(input(table, hostile));
  assert.ok(!(trap instanceof Promise) && trap.kind === "error");
  // Nor is anything thrown that cannot even be turned into a string.
  for (
    const thrown of [
      Object.create(null),
      new Proxy({}, {
        getPrototypeOf: () => {
          throw new Error("trap");
        },
        get: () => {
          throw new Error("trap");
        },
      }),
    ]
  ) {
    const odd = runCall(input(table, () => {
      throw thrown;
    }));
    assert.ok(!(odd instanceof Promise) && odd.kind === "error");
  }
  const noContent = runCall(input(table, () => ({}) as ToolResult));
  assert.ok(!(noContent instanceof Promise) && noContent.kind === "error");
  table.dispose();
});

Deno.test("runCall() settles an async handler: result, ToolError, failure", async () => {
  const table = new CallTable();
  assert.equal(textOf(await runCall(input(table, () => Promise.resolve(text("later"))))), "later");
  const domain = await runCall(input(table, () => Promise.reject(new ToolError("not found"))));
  assert.equal(domain.kind === "result" && domain.result.isError, true);
  assert.equal(textOf(domain), "not found");
  const bug = await runCall(input(table, () => Promise.reject(new TypeError("boom"))));
  assert.equal(bug.kind, "error");
  const hostile = new Proxy({}, {
    getPrototypeOf: () => {
      throw new Error("trap");
    },
  });
  for (const thrown of [Object.create(null), hostile]) {
    assert.equal((await runCall(input(table, () => Promise.reject(thrown)))).kind, "error");
  }
  table.dispose();
});

Deno.test("runCall() ends an async handler that never settles at its deadline, and on cancellation", async () => {
  const clock = new ManualClock();
  const table = new CallTable(clock);
  const never = () => new Promise<ToolResult>(() => {});
  const running = runCall(input(table, never, {}, 30));
  clock.advance(30);
  const timedOut = await running;
  assert.equal(timedOut.kind === "error" && timedOut.error.code, -32001);
  const cancelled = input(table, never);
  const pending = runCall(cancelled);
  table.cancel(cancelled.call.key, new DOMException("stop", "AbortError"));
  assert.deepEqual(await pending, { kind: "none" });
  // A ToolError thrown after the abort does not turn a cancellation into a result.
  const late = input(table, (req) =>
    new Promise<ToolResult>((_, reject) => {
      req.signal.addEventListener("abort", () => reject(new ToolError("too late")));
    }));
  const racing = runCall(late);
  table.abortAll("shutdown", new DOMException("bye", "AbortError"));
  const shutdown = await racing;
  assert.equal(shutdown.kind === "error" && shutdown.error.code, -32004);
  table.dispose();
});

Deno.test("runCall() takes the general path for middleware and probes; the handler never runs on a probe", async () => {
  const table = new CallTable();
  let ran = 0;
  const handler = () => (ran++, text("ran"));
  const seen: string[] = [];
  const mw: Middleware = async (ctx, next) => (seen.push(ctx.tool.name), await next());
  const wrapped = runCall(input(table, handler, { middleware: [mw] }));
  assert.ok(wrapped instanceof Promise);
  assert.equal(textOf(await wrapped), "ran");
  assert.deepEqual(seen, ["t"]);
  const probe = runCall(input(table, handler, { meta: { "forge.permission_patterns": true } }));
  assert.ok(probe instanceof Promise);
  assert.match(textOf(await probe), /^Probe only, not run/);
  assert.equal(ran, 1);
  table.dispose();
});

Deno.test("runCall() makes a call's AbortController only when its handler reads signal", async () => {
  const table = new CallTable();
  // Counts reads of the call's signal: each first read makes the AbortController.
  const counted = (extra: Partial<CallInput>, handler: ToolHandler) => {
    const made = input(table, handler, extra);
    const call = made.call;
    const signalOf = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(call), "signal")!.get!;
    const reads = { n: 0 };
    Object.defineProperty(call, "signal", { get: () => (reads.n++, signalOf.call(call)) });
    return { made, reads };
  };
  const quiet = counted({}, (req) => text(`${req.name} ${JSON.stringify(req.arguments)}`));
  assert.equal(textOf(runCall(quiet.made) as Outcome), "t {}");
  assert.equal(quiet.reads.n, 0);
  // A handler that reads it gets the call's signal, which fires on cancellation.
  let seen: AbortSignal | undefined;
  const reading = counted({}, (req) => {
    seen = req.signal;
    return new Promise<ToolResult>(() => {});
  });
  const pending = runCall(reading.made);
  assert.equal(reading.reads.n, 1);
  table.cancel(reading.made.call.key, new DOMException("stop", "AbortError"));
  assert.deepEqual(await pending, { kind: "none" });
  assert.equal(seen?.aborted, true);
  // The question methods still work taken off the request.
  const detached = counted(
    {},
    ({ elicit, listRoots, sample }) => text([elicit, listRoots, sample].map((f) => typeof f).join(" ")),
  );
  assert.equal(textOf(runCall(detached.made) as Outcome), "function function function");
  assert.equal(detached.reads.n, 0);
  table.dispose();
});

Deno.test("runCall() hands a pattern tool's handler the patterns of its call, frozen, and a plain tool's none", async () => {
  const table = new CallTable();
  const seen: (readonly string[] | undefined)[] = [];
  const handler: ToolHandler = (req) => {
    seen.push(req.patterns);
    return text("ok");
  };
  const plain = input(table, handler);
  await runCall(plain);
  const patterned = input(table, handler);
  patterned.entry.patterns = (args) => ({ patterns: [`write:${Object.keys(args).length}`, "delete:y"] });
  await runCall(patterned);
  assert.deepEqual(seen, [undefined, ["write:0", "delete:y"]]);
  assert.ok(Object.isFrozen(seen[1]));
  // A probe runs no handler.
  const probe = input(table, handler, { meta: { "forge.permission_patterns": true } });
  probe.entry.patterns = () => ({ patterns: ["write:z"] });
  await runCall(probe);
  assert.equal(seen.length, 2);
});
