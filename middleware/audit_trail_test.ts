// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR,FORGE_AUDIT_KEY
import assert from "node:assert/strict";
import { connectInMemory, probe, serveRaw } from "@forge/toolkit/testing";
import {
  addTool,
  type ExactId,
  type Middleware,
  registerPatternTool,
  requireString,
  schema,
  Server,
  strProp,
  text,
  type Tool,
  ToolError,
} from "@forge/toolkit";
import {
  auditDigest,
  type AuditIntent,
  type AuditLate,
  type AuditRecord,
  type AuditResult,
  auditTrail,
  verifyAuditTrail,
} from "./mod.ts";

const CANARY = "CANARY-secret-8f3a1c";
const TMP = Deno.env.get("TMPDIR") ?? "/tmp";
const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const FILE_PERMISSIONS = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

/**
 * A server whose pattern tool "act" does what its mode says; `ran` counts
 * handler starts, and hears `slowStarted` when a "slow" call (which waits
 * for its signal) begins.
 */
function server(
  ran: { count: number; seen?: number; slowStarted?: () => void },
  lines?: string[],
  // The "hang" call's deadline; the other calls end in a few ms, so a second leaves them a wide margin on a busy machine.
  timeoutMs = 1_000,
): Server {
  const s = new Server({ name: "audited" });
  registerPatternTool(
    s,
    {
      name: "act",
      description: "Does what mode says",
      inputSchema: schema({ mode: strProp("ok | domain | crash | hang | slow | late"), secret: strProp("s") }, [
        "mode",
      ]),
      annotations: WRITE,
      timeoutMs,
    },
    (args) => ({ patterns: [`act:${requireString(args, "mode")}`] }),
    async (req) => {
      ran.count++;
      ran.seen = lines?.length;
      const mode = requireString(req.arguments, "mode");
      if (mode === "domain") throw new ToolError("refused");
      if (mode === "crash") throw new Error("bug");
      if (mode === "hang") await new Promise(() => {});
      if (mode === "slow") {
        ran.slowStarted?.();
        await new Promise((_, reject) => req.signal.addEventListener("abort", () => reject(req.signal.reason)));
      }
      if (mode === "late") {
        // Ignores its deadline, then fails on its own: after the call's outcome was written.
        await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
        throw new Error("failed after the deadline");
      }
      return text("acted");
    },
  );
  addTool(s, { name: "look", description: "Reads", inputSchema: schema(), annotations: RO }, () => text("seen"));
  return s;
}

/** A sink that keeps the lines, and a wait for the count of them to reach `count`. */
function collected(): { lines: string[]; sink: (line: string) => void; until: (count: number) => Promise<void> } {
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  return {
    lines,
    sink: (line) => (lines.push(line), wake?.()),
    async until(count) {
      while (lines.length < count) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

Deno.test("auditTrail() writes an intent before the handler runs and an outcome after it, for every outcome", async () => {
  const { lines, sink, until } = collected();
  const slow = Promise.withResolvers<void>();
  const ran = { count: 0, seen: undefined as number | undefined, slowStarted: slow.resolve };
  const audit = auditTrail({ server: "audited", sink });
  const session = await connectInMemory(server(ran, lines), { serve: { middleware: [audit] } });
  const c = session.client;
  await c.callTool({ name: "act", arguments: { mode: "ok", secret: CANARY } });
  assert.equal(ran.seen, 1, "the intent was written before the handler started");
  await c.callTool({ name: "act", arguments: { mode: "domain" } });
  await assert.rejects(c.callTool({ name: "act", arguments: { mode: "crash" } }));
  await assert.rejects(c.callTool({ name: "act", arguments: { mode: "hang" } }), /timed out/);
  await probe(c, "act", { mode: "ok", secret: CANARY });
  assert.equal((await probe(c, "act", {})).isError, true, "a probe that patterns() refuses");
  const controller = new AbortController();
  const cancelled = c.callTool({ name: "act", arguments: { mode: "slow" } }, undefined, { signal: controller.signal });
  await slow.promise;
  controller.abort();
  await assert.rejects(cancelled);
  await c.callTool({ name: "look", arguments: {} });
  // The client gives up at once; the server's outcome record follows when the cancellation reaches it, and a late
  // record when the handler, which stops on its signal by throwing, has ended.
  await until(13);
  await session.close();
  await audit.close();
  const records = lines.map((l) => JSON.parse(l) as AuditRecord);
  assert.deepEqual(
    records.map((r) => `${r.event}:${"outcome" in r ? r.outcome : ""}`),
    [
      ...["intent:", "outcome:ok", "intent:", "outcome:isError", "intent:", "outcome:error", "intent:"],
      ...["outcome:timeout", "probe:probe", "probe:isError", "intent:", "outcome:aborted", "late:"],
    ],
  );
  assert.deepEqual([records[12].event, (records[12] as AuditLate).ended, (records[12] as AuditLate).intent], [
    "late",
    "error",
    10,
  ]);
  const intent = records[0] as AuditIntent;
  assert.deepEqual(Object.keys(intent), [
    ...["seq", "prev", "event", "time", "server", "tool", "id", "patterns", "args_sha256", "client"],
  ]);
  assert.equal(intent.seq, 0);
  assert.equal(intent.prev, "0".repeat(64));
  assert.equal(intent.server, "audited");
  assert.equal(intent.tool, "act");
  assert.deepEqual(intent.patterns, ["act:ok"]);
  assert.match(intent.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.match(intent.args_sha256!, /^[0-9a-f]{64}$/);
  assert.equal(intent.client, "forge-test-client 0.0.0");
  const outcome = records[1] as AuditResult;
  assert.deepEqual(Object.keys(outcome), ["seq", "prev", "event", "time", "intent", "tool", "outcome", "duration_ms"]);
  assert.equal(outcome.intent, 0, "the outcome names its intent");
  assert.ok((records[7] as AuditResult).duration_ms >= 900, "the timeout was measured");
  assert.equal(intent.args_sha256, (records[8] as AuditIntent).args_sha256, "same arguments, same digest");
  assert.ok(!lines.join("\n").includes(CANARY), "argument values never reach the audit");
  assert.ok(!records.some((r) => r.tool === "look"), "read-only tools are not audited by default");
  const verdict = await verifyAuditTrail(lines.join("\n") + "\n");
  assert.deepEqual([verdict.ok, verdict.records, verdict.openIntents], [true, 13, []]);
});

Deno.test("auditTrail() writes a late record when a handler that ignored its deadline throws after the outcome", async () => {
  const { lines, sink, until } = collected();
  const logged: string[] = [];
  const audit = auditTrail({ server: "audited", sink, log: (line) => void logged.push(line) });
  const session = await connectInMemory(server({ count: 0 }, undefined, 50), { serve: { middleware: [audit] } });
  await assert.rejects(session.client.callTool({ name: "act", arguments: { mode: "late" } }), /timed out/);
  // The handler throws once its signal fired: its record follows the timeout's.
  await until(3);
  await session.close();
  await audit.close();
  const records = lines.map((l) => JSON.parse(l) as AuditRecord);
  assert.deepEqual(records.map((r) => r.event), ["intent", "outcome", "late"]);
  assert.equal((records[1] as AuditResult).outcome, "timeout");
  const late = records[2] as AuditLate;
  assert.deepEqual(Object.keys(late), ["seq", "prev", "event", "time", "intent", "tool", "ended", "duration_ms"]);
  assert.deepEqual([late.intent, late.tool, late.ended], [0, "act", "error"]);
  assert.ok(late.duration_ms >= (records[1] as AuditResult).duration_ms, "the handler ended after the outcome");
  assert.deepEqual(logged, [], "nothing was left running at close");
  const verdict = await verifyAuditTrail(lines.join("\n") + "\n");
  assert.deepEqual([verdict.ok, verdict.records, verdict.openIntents], [true, 3, []]);
});

Deno.test("auditTrail() writes no late record for a handler still running when it closes, and says so", async () => {
  const { lines, sink, until } = collected();
  const logged: string[] = [];
  const audit = auditTrail({ server: "audited", sink, log: (line) => void logged.push(line) });
  const session = await connectInMemory(server({ count: 0 }, undefined, 50), { serve: { middleware: [audit] } });
  // "hang" never ends: no timer waits for it, and closing the trail does not either.
  await assert.rejects(session.client.callTool({ name: "act", arguments: { mode: "hang" } }), /timed out/);
  await until(2);
  await session.close();
  await audit.close();
  assert.deepEqual(lines.map((l) => (JSON.parse(l) as AuditRecord).event), ["intent", "outcome"]);
  assert.equal(logged.length, 1);
  assert.match(
    logged[0],
    /audited: the audit trail closes while 1 handler\(s\) .* still run \(intents 0\): no late record/,
  );
});

Deno.test("auditTrail() runs no handler when the call is cancelled or times out while its intent is written", async () => {
  for (const end of ["cancelled", "timeout"] as const) {
    const ran = { count: 0 };
    const lines: string[] = [];
    const intentHeld = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const outcomeWritten = Promise.withResolvers<void>();
    // The intent's write waits until the test releases it; the outcome is taken at once.
    const sink = (line: string) => {
      lines.push(line);
      if (lines.length > 1) return outcomeWritten.resolve();
      intentHeld.resolve();
      return release.promise;
    };
    const aborted = Promise.withResolvers<void>();
    // Outside the trail: hears the call's signal fire on the server.
    const watch: Middleware = (ctx, next) => {
      ctx.signal.addEventListener("abort", () => aborted.resolve());
      return next();
    };
    const audit = auditTrail({ server: "audited", sink });
    const session = await connectInMemory(server(ran, undefined, end === "timeout" ? 50 : 60_000), {
      serve: { middleware: [watch, audit] },
    });
    const controller = new AbortController();
    const call = session.client.callTool({ name: "act", arguments: { mode: "ok" } }, undefined, {
      signal: controller.signal,
    });
    await intentHeld.promise;
    if (end === "cancelled") controller.abort();
    await assert.rejects(call);
    await aborted.promise;
    release.resolve();
    await outcomeWritten.promise;
    await audit.close();
    await session.close();
    const records = lines.map((l) => JSON.parse(l) as AuditRecord);
    assert.deepEqual(
      records.map((r) => `${r.event}:${"outcome" in r ? r.outcome : ""}`),
      ["intent:", `outcome:${end === "timeout" ? "timeout" : "aborted"}`],
      end,
    );
    assert.equal(ran.count, 0, `${end}: the handler never started`);
  }
});

Deno.test("auditTrail() refuses a side-effecting call or probe whose record cannot be written, and lets read-only tools run", async () => {
  const ran = { count: 0 };
  const logged: string[] = [];
  const audit = auditTrail({
    server: "audited",
    all: true,
    sink: () => Promise.reject(new Error("disk on fire")),
    log: (line) => logged.push(line),
  });
  const session = await connectInMemory(server(ran), { serve: { middleware: [audit] } });
  const refused = await session.client.callTool({ name: "act", arguments: { mode: "ok", secret: CANARY } });
  assert.equal(refused.isError, true);
  assert.match(
    JSON.stringify(refused.content),
    /Cannot run tool \\"act\\": its audit record cannot be written \(the audit trail failed\); nothing was done/,
  );
  assert.equal(ran.count, 0, "the handler never ran");
  const probed = await session.client.callTool({
    name: "act",
    arguments: { mode: "ok" },
    _meta: { "forge.permission_patterns": true },
  });
  assert.equal(probed.isError, true, "a probe whose record cannot be written is refused too");
  assert.match(JSON.stringify(probed.content), /Cannot probe tool \\"act\\": its audit record cannot be written/);
  const read = await session.client.callTool({ name: "look", arguments: {} });
  assert.equal(read.isError, undefined, "a read-only tool is recorded when it can be, never refused");
  await session.close();
  await audit.close();
  assert.ok(logged.some((l) => l.includes("cannot write the audit probe record")), "the operator sees the probe's");
  assert.ok(logged.some((l) => l.includes("disk on fire")), "the operator sees why");
  assert.ok(!logged.join("\n").includes(CANARY), "not even the log of a failed record holds argument values");
});

Deno.test("auditTrail({ failOpen: true }) says so loudly at start and lets the call run unrecorded", async () => {
  const ran = { count: 0 };
  const logged: string[] = [];
  const audit = auditTrail({
    server: "audited",
    failOpen: true,
    sink: () => Promise.reject(new Error("full")),
    log: (line) => logged.push(line),
  });
  assert.match(logged[0], /audit failOpen is set: side-effecting calls run even when their audit record cannot be/);
  const session = await connectInMemory(server(ran), { serve: { middleware: [audit] } });
  const result = await session.client.callTool({ name: "act", arguments: { mode: "ok" } });
  await session.close();
  await audit.close();
  assert.equal(result.isError, undefined);
  assert.equal(ran.count, 1);
});

Deno.test("auditTrail() refuses a stderrTimeoutMs that would never refuse a record stderr does not take", () => {
  for (const bad of [NaN, Infinity, 0, -5, "1000" as unknown as number]) {
    assert.throws(
      () => auditTrail({ server: "a", stderrTimeoutMs: bad }),
      /^RangeError: Cannot create the audit trail: stderrTimeoutMs must be a positive number of milliseconds, got /,
      String(bad),
    );
  }
  assert.equal(typeof auditTrail({ server: "a", stderrTimeoutMs: 250 }), "function");
});

Deno.test("auditTrail() leaves read-only tools out of the chain unless all is set", () => {
  const tool = { name: "t" } as Tool;
  assert.equal(auditTrail({ server: "a", sink: () => {} }).appliesTo?.(tool, false), false);
  assert.equal(auditTrail({ server: "a", sink: () => {} }).appliesTo?.(tool, true), true);
  assert.equal(auditTrail({ server: "a", all: true, sink: () => {} }).appliesTo?.(tool, false), true);
});

Deno.test({
  name: "auditTrail() appends to its own earlier file: the first new record links to the file's last one",
  permissions: FILE_PERMISSIONS,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    for (let round = 0; round < 2; round++) {
      const audit = auditTrail({ server: "f", file, key: "k".repeat(32) });
      const session = await connectInMemory(server({ count: 0 }, undefined, 10_000), {
        serve: { middleware: [audit] },
      });
      await Promise.all(
        [1, 2, 3].map(() => session.client.callTool({ name: "act", arguments: { mode: "ok", secret: CANARY } })),
      );
      await session.close();
      await audit.close();
    }
    const text = await Deno.readTextFile(file);
    const verdict = await verifyAuditTrail(text);
    assert.deepEqual([verdict.ok, verdict.records, verdict.last?.seq], [true, 12, 11]);
    assert.ok(!text.includes(CANARY));
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "auditTrail() refuses side effects when its file is removed, replaced or not permitted; reads go on",
  permissions: FILE_PERMISSIONS,
  async fn() {
    const dir = await Deno.makeTempDir();
    const attempt = async (file: string, between?: () => Promise<void>) => {
      const ran = { count: 0 };
      const audit = auditTrail({ server: "f", file, all: true, key: "k".repeat(32), log: () => {} });
      const session = await connectInMemory(server(ran, undefined, 10_000), { serve: { middleware: [audit] } });
      const c = session.client;
      if (between) {
        assert.equal((await c.callTool({ name: "act", arguments: { mode: "ok" } })).isError, undefined);
        await between();
      }
      const before = ran.count;
      const refused = await c.callTool({ name: "act", arguments: { mode: "ok" } });
      const read = await c.callTool({ name: "look", arguments: {} });
      await session.close();
      await audit.close();
      assert.equal(ran.count, before, "the refused call's handler never ran");
      assert.equal(read.isError, undefined);
      assert.equal(refused.isError, true);
      const message = (refused.content as { text: string }[])[0].text;
      assert.ok(!message.includes(dir), "the model is not shown the host path");
      return message;
    };
    const removed = `${dir}/removed.jsonl`;
    assert.match(await attempt(removed, () => Deno.remove(removed)), /the audit file was removed/);
    const replaced = `${dir}/replaced.jsonl`;
    assert.match(
      await attempt(replaced, async () => {
        await Deno.writeTextFile(`${dir}/forged`, '{"seq":0,"prev":"0"}\n');
        await Deno.rename(`${dir}/forged`, replaced);
      }),
      /the audit file was replaced: it does not end with the last record written/,
    );
    assert.match(await attempt("/var/forbidden-audit.jsonl"), /the audit file cannot be opened \(NotCapable\)/);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "auditTrail() keeps refusing side effects after its file is replaced or cut, appends nothing, and goes on once fixed",
  permissions: FILE_PERMISSIONS,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const stderr: string[] = [];
    const ran = { count: 0 };
    const audit = auditTrail({ server: "f", file, key: "k".repeat(32), log: (line) => void stderr.push(line) });
    const session = await connectInMemory(server(ran, undefined, 10_000), { serve: { middleware: [audit] } });
    const act = async () => await session.client.callTool({ name: "act", arguments: { mode: "ok" } });
    assert.equal((await act()).isError, undefined);
    const original = await Deno.readTextFile(file);
    // Each case puts another file at the path, then the operator's fix back.
    const cases: [string, RegExp, () => Promise<void>][] = [
      [
        '{"forged":true}\n',
        /the audit file was replaced: .*put the original back/,
        () => Deno.rename(`${file}.orig`, file),
      ],
      [`${original}{"seq":2,"pre`, /the audit file ends in a partial line; move it aside/, () => Deno.remove(file)],
    ];
    for (const [forged, reason, fix] of cases) {
      await Deno.rename(file, `${file}.orig`);
      await Deno.writeTextFile(`${dir}/forged`, forged);
      await Deno.rename(`${dir}/forged`, file);
      const before = ran.count;
      for (let call = 1; call <= 3; call++) {
        const refused = await act();
        assert.equal(refused.isError, true, `call ${call} after the swap is refused`);
        assert.match((refused.content as { text: string }[])[0].text, reason);
        assert.equal(await Deno.readTextFile(file), forged, `call ${call} appended nothing`);
      }
      assert.equal(ran.count, before, "no refused handler ran");
      assert.equal(stderr.filter((line) => reason.test(line)).length, 3, "stderr says what to do, for each call");
      stderr.length = 0;
      await fix();
      assert.equal((await act()).isError, undefined, "runs again once the operator fixed the file");
    }
    await session.close();
    await audit.close();
    const restored = await Deno.readTextFile(`${file}.orig`);
    assert.ok((await verifyAuditTrail(restored)).ok, "the restored file goes on with one unbroken chain");
    const fresh = await verifyAuditTrail(await Deno.readTextFile(file), {
      after: (await verifyAuditTrail(restored)).last,
    });
    assert.ok(fresh.ok, "the new file continues the chain");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "auditTrail() follows rotation: a new file at the path, or SIGUSR1 after a rename, continues the chain",
  permissions: FILE_PERMISSIONS,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const audit = auditTrail({ server: "f", file, key: "k".repeat(32) });
    const session = await connectInMemory(server({ count: 0 }, undefined, 10_000), { serve: { middleware: [audit] } });
    const call = async () =>
      assert.equal((await session.client.callTool({ name: "act", arguments: { mode: "ok" } })).isError, undefined);
    await call();
    // logrotate's "create": rename, then a new empty file at the path.
    await Deno.rename(file, `${dir}/audit.jsonl.2`);
    await Deno.writeTextFile(file, "", { mode: 0o600 });
    await call();
    // Rename only, then SIGUSR1: the server creates the new file.
    await Deno.rename(file, `${dir}/audit.jsonl.1`);
    // A listener added after the trail's hears each signal just after it, in the same turn.
    const heard = Promise.withResolvers<void>();
    const listener = () => heard.resolve();
    Deno.addSignalListener("SIGUSR1", listener);
    // Signal listeners keep no process alive: a backstop timer does, while the signal is on its way.
    const backstop = setTimeout(() => heard.reject(new Error("Cannot hear SIGUSR1: none within 60 s")), 60_000);
    Deno.kill(Deno.pid, "SIGUSR1");
    await heard.promise.finally(() => clearTimeout(backstop));
    Deno.removeSignalListener("SIGUSR1", listener);
    await call();
    await session.close();
    await audit.close();
    const texts = await Promise.all([".2", ".1", ""].map((suffix) => Deno.readTextFile(`${file}${suffix}`)));
    assert.deepEqual(texts.map((t) => t.trim().split("\n").length), [2, 2, 2], "one call per file");
    assert.ok((await verifyAuditTrail(texts.join(""))).ok, "one chain across the three files");
    const first = await verifyAuditTrail(texts[0]);
    assert.ok((await verifyAuditTrail(texts[1], { after: first.last })).ok, "a rotated file continues the one before");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "auditTrail() keys args_hmac with the key option, a key file or FORGE_AUDIT_KEY; refuses a short or shared key",
  permissions: { ...FILE_PERMISSIONS, env: ["TMPDIR", "FORGE_AUDIT_KEY"] },
  async fn() {
    const key = "k".repeat(40);
    const recorded = async (options: Parameters<typeof auditTrail>[0]) => {
      const lines: string[] = [];
      const audit = auditTrail({ ...options, sink: (l) => void lines.push(l) });
      const session = await connectInMemory(server({ count: 0 }), { serve: { middleware: [audit] } });
      await session.client.callTool({ name: "act", arguments: { mode: "ok", secret: CANARY } });
      await session.close();
      await audit.close();
      return JSON.parse(lines[0]) as AuditIntent;
    };
    const expected = await auditDigest({ mode: "ok", secret: CANARY }, key);
    assert.equal((await recorded({ server: "k", key })).args_hmac, expected);
    const dir = await Deno.makeTempDir();
    const keyFile = `${dir}/audit.key`;
    await Deno.writeTextFile(keyFile, key + "\n", { mode: 0o600 });
    await Deno.chmod(keyFile, 0o600);
    assert.equal((await recorded({ server: "k", keyFile })).args_hmac, expected, "one trailing newline is dropped");
    Deno.env.set("FORGE_AUDIT_KEY", key);
    const fromEnv = await recorded({ server: "k" });
    Deno.env.delete("FORGE_AUDIT_KEY");
    assert.equal(fromEnv.args_hmac, expected);
    assert.equal(fromEnv.args_sha256, undefined, "a keyed trail writes no plain digest");
    const unkeyed = await recorded({ server: "k" });
    assert.equal(unkeyed.args_sha256, await auditDigest({ mode: "ok", secret: CANARY }));
    await Deno.chmod(keyFile, 0o644);
    assert.throws(() => auditTrail({ server: "k", keyFile }), /Cannot use the audit key file: other users may read/);
    assert.throws(() => auditTrail({ server: "k", key: "short" }), RangeError);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("the audit trail and middleware see a call's id as its reply carries it, a number JavaScript cannot hold exactly too", async () => {
  const server = new Server({ name: "ids" });
  addTool(server, { name: "look", description: "Looks", inputSchema: schema(), annotations: RO }, () => text("seen"));
  const { lines, sink, until } = collected();
  const audit = auditTrail({ server: "ids", all: true, sink });
  const seen: unknown[] = [];
  const watch: Middleware = (ctx, next) => (seen.push(ctx.requestId), next());
  const s = serveRaw(server, { middleware: [watch, audit] });
  await s.send(
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
  );
  await s.next();
  // As written on the wire: above 2^53, a fraction, -0 and an overflow keep their text; the string of the same
  // digits is another id. Seen as strings, the first and last would be one id.
  const ids = ["12345678901234567890", "1.50", "-0", "1e400", '"12345678901234567890"'];
  const replies: string[] = [];
  for (const id of ids) {
    await s.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"look","arguments":{}}}`);
    await s.next();
    replies.push(s.lines.at(-1)!);
  }
  await until(2 * ids.length);
  await s.close();
  await audit.close();
  const idIn = (line: string, before: string, after: string) =>
    line.slice(line.indexOf(before) + before.length, line.indexOf(after, line.indexOf(before)));
  const intents = lines.filter((l) => l.includes('"event":"intent"'));
  assert.deepEqual(replies.map((r) => idIn(r, '"id":', ',"result"')), ids, "the replies carry the ids as sent");
  assert.deepEqual(intents.map((l) => idIn(l, '"id":', ',"patterns"')), ids, "the intents record the same ids");
  assert.deepEqual(seen.map((id) => JSON.stringify(id)), ids, "the middleware saw the same ids");
  assert.equal(typeof seen[4], "string");
  assert.deepEqual(seen.slice(0, 4).map((id) => (id as ExactId).text), ["12345678901234567890", "1.50", "-0", "1e400"]);
  assert.equal(seen[0] === seen[4], false);
});

/**
 * A raw session whose pattern tools "quick" (a 100 ms deadline) and
 * "patient" (a minute) have a pattern function that does what `how` says:
 * `bug` throws a plain Error, `stall` never settles, `wait` tells `started`
 * and settles only when its signal fires. `ran` counts handler starts.
 */
async function failingPatterns(
  sink: (line: string) => void,
  started: () => void,
): Promise<{ s: ReturnType<typeof serveRaw>; ran: { count: number } }> {
  const ran = { count: 0 };
  const server = new Server({ name: "gated" });
  for (const [name, timeoutMs] of [["quick", 100], ["patient", 60_000]] as const) {
    registerPatternTool(
      server,
      {
        name,
        description: "Gated",
        inputSchema: schema({ how: strProp("bug | stall | wait") }, ["how"]),
        annotations: WRITE,
        timeoutMs,
      },
      (args, signal) => {
        const how = requireString(args, "how");
        if (how === "bug") throw new Error("pattern bug");
        if (how === "stall") return new Promise(() => {});
        started();
        // The toolkit always passes the call's signal.
        return new Promise((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason)));
      },
      () => (ran.count++, text("acted")),
    );
  }
  const s = serveRaw(server, { middleware: [auditTrail({ server: "gated", sink })] });
  await s.send(
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
  );
  await s.next();
  return { s, ran };
}

/** A tools/call line: a call, or with `probe` a probe. */
function callLine(id: number, name: string, how: string, probe = false): string {
  const meta = probe ? { _meta: { "forge.permission_patterns": true } } : {};
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { how }, ...meta } });
}

/** `until(count)`, failing the test with what was written when it has not come in `ms`. */
async function within(until: (count: number) => Promise<void>, count: number, lines: string[], ms = 5_000) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${count} audit records did not come: ${lines.join("\n")}`)), ms);
  });
  try {
    await Promise.race([until(count), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Requires the trail the verifier accepts: calls 1 and 2, the first a call (intent and outcome) and the second a probe,
 * both ended `outcome`, with no patterns computed.
 */
async function assertRecorded(lines: string[], outcome: string): Promise<void> {
  const verdict = await verifyAuditTrail(lines.join("\n") + "\n");
  assert.deepEqual(
    [verdict.ok, verdict.records, verdict.openIntents],
    [true, lines.length, []],
    "the verifier accepts",
  );
  const records = lines.map((l) => JSON.parse(l) as AuditRecord);
  for (const r of records) {
    if (r.event === "intent" || r.event === "probe") assert.deepEqual(r.patterns, [], "no patterns were computed");
  }
  const events = records.map((r) => `${r.event}:${"outcome" in r ? r.outcome : ""}`);
  assert.deepEqual(events, ["intent:", `outcome:${outcome}`, `probe:${outcome}`]);
  assert.deepEqual(records.map((r) => ("id" in r ? r.id : undefined)), [1, undefined, 2]);
}

Deno.test("auditTrail() records a call and a probe whose pattern function throws a plain Error: outcome error, answered -32603 with a ref", async () => {
  const { lines, sink, until } = collected();
  const { s, ran } = await failingPatterns(sink, () => {});
  const replies = [];
  for (const [id, probe] of [[1, false], [2, true]] as const) {
    await s.send(callLine(id, "patient", "bug", probe));
    replies.push(await s.next());
    await within(until, id === 1 ? 2 : 3, lines);
  }
  await s.close();
  for (const [i, reply] of replies.entries()) {
    const err = reply.error as { code: number; message: string };
    assert.equal(reply.id, i + 1);
    assert.equal(err.code, -32603);
    const ref = err.message.match(/^Internal error \(ref ([0-9a-z-]+)\)$/)?.[1];
    assert.ok(ref !== undefined && s.log.some((l) => l.includes(`(ref ${ref})`) && l.includes("pattern bug")));
  }
  await assertRecorded(lines, "error");
  assert.equal(ran.count, 0, "the handler never ran");
});

Deno.test("auditTrail() records a call and a probe whose pattern function never settles: outcome timeout, answered -32001", async () => {
  const { lines, sink, until } = collected();
  const { s, ran } = await failingPatterns(sink, () => {});
  for (const [id, probe] of [[1, false], [2, true]] as const) {
    await s.send(callLine(id, "quick", "stall", probe));
    const reply = await s.next();
    assert.equal(reply.id, id);
    assert.deepEqual(reply.error, { code: -32001, message: "Tool call timed out after 100 ms" });
    // The reply goes at the deadline; the records follow it.
    await within(until, id === 1 ? 2 : 3, lines);
  }
  await s.close();
  await assertRecorded(lines, "timeout");
  assert.equal(ran.count, 0, "the handler never ran");
});

Deno.test("auditTrail() records a call and a probe cancelled while their pattern function runs: outcome aborted, no answer", async () => {
  const { lines, sink, until } = collected();
  let started = Promise.withResolvers<void>();
  const { s, ran } = await failingPatterns(sink, () => started.resolve());
  for (const [id, probe] of [[1, false], [2, true]] as const) {
    started = Promise.withResolvers<void>();
    await s.send(callLine(id, "patient", "wait", probe));
    await started.promise;
    await s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}`);
    await within(until, id === 1 ? 2 : 3, lines);
    // A cancelled call is not answered: the next line is the ping's.
    await s.send(`{"jsonrpc":"2.0","id":${id + 100},"method":"ping"}`);
    assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: id + 100, result: {} });
  }
  await s.close();
  assert.equal(s.lines.length, 3, "the initialize and the two pings were answered, nothing else");
  await assertRecorded(lines, "aborted");
  assert.equal(ran.count, 0, "the handler never ran");
});
