// A real audit trail with a late record, for the verifier's tests and the
// audit:verify task's: a pattern tool whose handler ignores its 50 ms
// deadline and returns after it (intent 0, outcome timeout, late ok).
import assert from "node:assert/strict";
import { connectInMemory } from "../../testing/mod.ts";
import { registerPatternTool, schema, Server, strProp, text, type ToolHandler } from "../../mod.ts";
import { auditTrail } from "../mod.ts";

/**
 * The trail's lines: the late call's three records, then, with `thenOk`, an
 * ok call's intent and outcome.
 */
export async function lateTrail(thenOk: boolean): Promise<string[]> {
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  const s = putServer(async (req) => {
    // Ignores its deadline and puts all the same.
    if (req.arguments.k === "late") await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
    return text("put");
  }, 50);
  const audit = auditTrail({ server: "v", sink: (line) => void (lines.push(line), wake?.()) });
  const session = await connectInMemory(s, { serve: { middleware: [audit] } });
  await assert.rejects(session.client.callTool({ name: "put", arguments: { k: "late" } }), /timed out/);
  while (lines.length < 3) await new Promise<void>((resolve) => (wake = resolve));
  if (thenOk) await session.client.callTool({ name: "put", arguments: { k: "b" } });
  await session.close();
  await audit.close();
  return lines;
}

/**
 * A server of one pattern tool, `put {k}`, whose pattern is `put:<k>`: the
 * tool the verifier's trails record.
 */
export function putServer(handler: ToolHandler<{ k: string }>, timeoutMs?: number): Server {
  const s = new Server({ name: "v" });
  registerPatternTool(
    s,
    {
      name: "put",
      description: "Puts",
      inputSchema: schema({ k: strProp("k") }, ["k"]),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
    (args) => ({ patterns: [`put:${args.k}`] }),
    handler,
  );
  return s;
}
