// test-permissions: --allow-run --allow-env --allow-read
// Both protocol eras, each driven over a real subprocess by an independent
// official client: SDK 1.32.2 (initialize-based) and @modelcontextprotocol/client
// 2.4 (2026-07-28, and its auto-negotiation).
import assert from "node:assert/strict";
import { Client as SessionClient } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport as SessionStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Readable } from "node:stream";
import { StreamText } from "@forge/toolkit/testing";

const fixture = new URL("./testdata/fixture_server.ts", import.meta.url).pathname;
// Deno's node:child_process passes the parent's permissions to a `deno` child
// unless the child's arguments hold a permission flag; --deny-run is one that
// grants nothing (the fixture needs no permission, and would refuse to serve).
const serverArgs = ["run", "--quiet", "--no-prompt", "--deny-run", fixture];

type Mode = { mode: { pin: string } } | { mode: "auto" } | undefined;

async function stateless(mode: Mode) {
  return (await withStderr(mode)).client;
}

/** A client 2.4 connected to the fixture, and what the fixture writes to stderr. */
async function withStderr(mode: Mode): Promise<{ client: Client; stderr: StreamText }> {
  const transport = new StdioClientTransport({ command: Deno.execPath(), args: serverArgs, stderr: "pipe" });
  const client = new Client({ name: "stateless-client", version: "2.4.0" }, { versionNegotiation: mode as never });
  const stderr = new StreamText(Readable.toWeb(transport.stderr as Readable) as ReadableStream<Uint8Array>);
  await client.connect(transport);
  return { client, stderr };
}

Deno.test("SDK 1.32.2 client: initialize, tools/list, tools/call, isError and unknown tool", async () => {
  const transport = new SessionStdio({ command: Deno.execPath(), args: serverArgs, stderr: "pipe" });
  const client = new SessionClient({ name: "session-client", version: "1.32.2" });
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, "fixture");
  const { tools } = await client.listTools();
  assert.ok(tools.some((t: { name: string }) => t.name === "sleep"));
  const ok = await client.callTool({ name: "sleep", arguments: { ms: 1 } });
  assert.deepEqual(ok.content, [{ type: "text", text: "slept 1" }]);
  const bad = await client.callTool({ name: "sleep", arguments: { ms: 1.5 } });
  assert.equal(bad.isError, true, "argument errors are tool results");
  await assert.rejects(
    client.callTool({ name: "nope", arguments: {} }),
    (err: { code: number }) => err.code === -32602,
  );
  await client.close();
});

Deno.test("client 2.4 pinned to 2026-07-28: no initialize, results decode, unknown tool is -32602", async () => {
  const client = await stateless({ mode: { pin: "2026-07-28" } });
  // "modern" and "legacy" are the SDK's names for the stateless and session eras.
  assert.equal(client.getProtocolEra(), "modern");
  assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  assert.deepEqual(client.getServerVersion(), { name: "fixture", version: "0.0.0" });
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "steps"));
  const r = await client.callTool({ name: "sleep", arguments: { ms: 1 } });
  assert.deepEqual(r.content, [{ type: "text", text: "slept 1" }]);
  await assert.rejects(client.callTool({ name: "nope", arguments: {} }), /Unknown tool/);
  await client.close();
});

Deno.test("client 2.4 in auto mode probes with server/discover and chooses 2026-07-28", async () => {
  const client = await stateless({ mode: "auto" });
  assert.equal(client.getProtocolEra(), "modern");
  await client.close();
});

Deno.test("client 2.4 by default falls back to initialize and gets the session era", async () => {
  const client = await stateless(undefined);
  assert.equal(client.getProtocolEra(), "legacy");
  assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
  await client.close();
});

Deno.test("progress reaches the client in both eras", async () => {
  for (const mode of [{ mode: { pin: "2026-07-28" } }, undefined] as Mode[]) {
    const client = await stateless(mode);
    const seen: number[] = [];
    const nexts: Promise<unknown>[] = [];
    // The client hands a report to its callback a turn after reading it, and
    // forgets the call's token once the reply is read: a report read along with
    // the reply would be dropped. The tool goes on only once told to, here,
    // after each report reached the callback.
    const r = await client.callTool({ name: "gated_steps", arguments: { n: 3 } }, {
      onprogress: (p: { progress: number }) => {
        seen.push(p.progress);
        nexts.push(client.callTool({ name: "next", arguments: {} }));
      },
    });
    assert.deepEqual(r.content, [{ type: "text", text: "3 steps" }]);
    assert.deepEqual(seen, [1, 2, 3]);
    await Promise.all(nexts);
    await client.close();
  }
});

Deno.test("cancellation works in both eras and the server keeps serving", async () => {
  for (const mode of [{ mode: { pin: "2026-07-28" } }, undefined] as Mode[]) {
    const { client, stderr } = await withStderr(mode);
    const controller = new AbortController();
    const call = client.callTool({ name: "sleep", arguments: { ms: 30_000 } }, { signal: controller.signal });
    await stderr.waitFor("SLEEP_STARTED 30000");
    controller.abort("user cancel");
    await assert.rejects(call);
    const r = await client.callTool({ name: "sleep", arguments: { ms: 1 } });
    assert.deepEqual(r.content, [{ type: "text", text: "slept 1" }]);
    await client.close();
  }
});
