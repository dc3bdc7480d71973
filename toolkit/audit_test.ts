// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { connectInMemory, probe } from "@forge/toolkit/testing";
import {
  addTool,
  type AuditRecord,
  auditTrail,
  registerPatternTool,
  requireString,
  schema,
  Server,
  strProp,
  text,
  ToolError,
} from "@forge/toolkit";
import { canonicalJson } from "./audit.ts";

const CANARY = "CANARY-secret-8f3a1c";
const TMP = Deno.env.get("TMPDIR") ?? "/tmp";
const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function server(): Server {
  const s = new Server({ name: "audited" });
  registerPatternTool(
    s,
    {
      name: "act",
      description: "Does what mode says",
      inputSchema: schema({ mode: strProp("ok | domain | crash | hang | slow"), secret: strProp("s") }, ["mode"]),
      annotations: WRITE,
      timeoutMs: 100,
    },
    (args) => ({ patterns: [`act:${requireString(args, "mode")}`] }),
    async (req) => {
      const mode = requireString(req.arguments, "mode");
      if (mode === "domain") throw new ToolError("refused");
      if (mode === "crash") throw new Error("bug");
      if (mode === "hang") await new Promise(() => {});
      if (mode === "slow") await new Promise((r) => setTimeout(r, 10_000));
      return text("acted");
    },
  );
  addTool(s, { name: "look", description: "Reads", inputSchema: schema(), annotations: RO }, () => text("seen"));
  return s;
}

Deno.test("auditTrail() writes one line per pattern-tool call for every outcome, field by field", async () => {
  const lines: string[] = [];
  const audit = auditTrail({ server: "audited", sink: (l) => lines.push(l) });
  const session = await connectInMemory(server(), { serve: { middleware: [audit] } });
  const c = session.client;
  await c.callTool({ name: "act", arguments: { mode: "ok", secret: CANARY } });
  await c.callTool({ name: "act", arguments: { mode: "domain" } });
  await assert.rejects(c.callTool({ name: "act", arguments: { mode: "crash" } }));
  await assert.rejects(c.callTool({ name: "act", arguments: { mode: "hang" } }), /timed out/);
  await probe(c, "act", { mode: "ok", secret: CANARY });
  assert.equal((await probe(c, "act", {})).isError, true, "a probe that patterns() refuses");
  const controller = new AbortController();
  const cancelled = c.callTool({ name: "act", arguments: { mode: "slow" } }, undefined, { signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(cancelled);
  await c.callTool({ name: "look", arguments: {} });
  for (let i = 0; i < 100 && lines.length < 7; i++) await new Promise((r) => setTimeout(r, 5));
  await session.close();
  const records = lines.map((l) => JSON.parse(l) as AuditRecord);
  assert.deepEqual(records.map((r) => r.outcome), ["ok", "isError", "error", "timeout", "probe", "isError", "aborted"]);
  const first = records[0];
  assert.deepEqual(Object.keys(first).sort(), [
    "args_sha256",
    "client",
    "duration_ms",
    "id",
    "outcome",
    "patterns",
    "server",
    "time",
    "tool",
  ]);
  assert.equal(first.server, "audited");
  assert.equal(first.tool, "act");
  assert.deepEqual(first.patterns, ["act:ok"]);
  assert.match(first.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(first.duration_ms >= 0);
  assert.match(first.args_sha256, /^[0-9a-f]{64}$/);
  assert.equal(first.client, "forge-test-client 0.0.0");
  assert.ok(records[3].duration_ms >= 90, "the timeout was measured");
  assert.equal(records[0].args_sha256, records[4].args_sha256, "same arguments, same digest");
  assert.ok(!lines.join("\n").includes(CANARY), "argument values never reach the audit");
  assert.ok(!records.some((r) => r.tool === "look"), "read-only tools are not audited by default");
});

Deno.test("auditTrail({ all: true }) records read-only tools too", async () => {
  const lines: string[] = [];
  const session = await connectInMemory(server(), {
    serve: { middleware: [auditTrail({ server: "a", all: true, sink: (l) => lines.push(l) })] },
  });
  await session.client.callTool({ name: "look", arguments: {} });
  await session.close();
  assert.equal((JSON.parse(lines[0]) as AuditRecord).tool, "look");
  assert.deepEqual((JSON.parse(lines[0]) as AuditRecord).patterns, []);
});

Deno.test({
  name: "auditTrail() appends to its file, which it may write under a permission scoped to that file",
  permissions: { read: [TMP], write: [TMP] },
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    await Deno.writeTextFile(file, '{"earlier":"line"}\n');
    const audit = auditTrail({ server: "f", file });
    const session = await connectInMemory(server(), { serve: { middleware: [audit] } });
    await Promise.all(
      [1, 2, 3].map(() => session.client.callTool({ name: "act", arguments: { mode: "ok", secret: CANARY } })),
    );
    await session.close();
    await audit.close();
    const text = await Deno.readTextFile(file);
    const lines = text.trim().split("\n");
    assert.equal(lines.length, 4, "appended after the earlier line, one per call");
    assert.deepEqual(JSON.parse(lines[0]), { earlier: "line" });
    assert.ok(!text.includes(CANARY));
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("canonicalJson() sorts keys at every level and survives 100k levels of nesting", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
  );
  assert.equal(canonicalJson(JSON.parse('{"__proto__":1,"a":2}')), '{"__proto__":1,"a":2}');
  const deep = JSON.parse('{"a":'.repeat(100_000) + "1" + "}".repeat(100_000));
  assert.equal(canonicalJson(deep).length, 600_001);
});
