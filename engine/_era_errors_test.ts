// test-permissions: --allow-run --allow-env --allow-read={repo}
// The deadline, busy and shutdown answers of each era, over a real server
// subprocess: raw frames for both eras on one stream (the era is per
// request), the official clients where they show what a host makes of it.
import assert from "node:assert/strict";
import type { Era } from "./_era.ts";
import { Client as SessionClient } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport as SessionStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type RawServer, spawnRaw } from "@forge/toolkit/testing";
import { initialize } from "./testdata/raw_initialize.ts";
import { busyError, outcomeForEra } from "./_era_errors.ts";

const fixture = new URL("./testdata/fixture_server.ts", import.meta.url).pathname;
const perms: Deno.PermissionOptions = { run: true, env: true, read: [new URL("..", import.meta.url).pathname] };
const STATELESS_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function started(args: string[]): Promise<RawServer> {
  const server = await spawnRaw({ args: [fixture, ...args] });
  await initialize(server);
  return server;
}

function call(id: string, name: string, args: Record<string, unknown>, era: Era): string {
  const params: Record<string, unknown> = { name, arguments: args };
  if (era === "stateless") params._meta = STATELESS_META;
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
}

/** Reads replies until every id in `ids` has one. */
async function replies(server: RawServer, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  const seen = new Map<string, Record<string, unknown>>();
  while (ids.some((id) => !seen.has(id))) {
    const msg = await server.next();
    if (typeof msg.id === "string") seen.set(msg.id, msg);
  }
  return seen;
}

type ErrorReply = { code: number; message: string; data?: Record<string, unknown> };
const errorOf = (msg: Record<string, unknown> | undefined) => msg?.error as ErrorReply;

Deno.test("outcomeForEra() leaves the initialize era alone and rewrites only deadline and shutdown for 2026-07-28", () => {
  const timeout = { kind: "error", error: { code: -32001, message: "Tool call timed out after 5 ms" } } as const;
  assert.equal(outcomeForEra(timeout, "session"), timeout);
  assert.deepEqual(outcomeForEra(timeout, "stateless"), {
    kind: "result",
    result: { content: [{ type: "text", text: "Tool call timed out after 5 ms" }], isError: true },
  });
  const internal = { kind: "error", error: { code: -32603, message: "Internal error (ref x)" } } as const;
  assert.equal(outcomeForEra(internal, "stateless"), internal);
  assert.equal(busyError("session", 3).code, -32003);
  assert.deepEqual(busyError("stateless", 3).data, { reason: "server_busy", retryable: true, limit: 3 });
});

Deno.test({
  name: "a deadline is -32001 in the initialize era and an isError result in 2026-07-28, on one stream",
  permissions: perms,
  async fn() {
    const server = await started(["--timeout=100"]);
    await server.send(call("session", "sleep", { ms: 60_000 }, "session"));
    await server.send(call("stateless", "sleep", { ms: 60_000 }, "stateless"));
    const got = await replies(server, ["session", "stateless"]);
    assert.equal(errorOf(got.get("session")).code, -32001);
    assert.match(errorOf(got.get("session")).message, /timed out after 100 ms/);
    const stateless = got.get("stateless")!.result as Record<string, unknown>;
    assert.equal(stateless.isError, true);
    assert.equal(stateless.resultType, "complete");
    assert.match(JSON.stringify(stateless.content), /Tool call timed out after 100 ms/);
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "past maxInFlight the initialize era gets -32003 and 2026-07-28 gets -32603 with data.reason server_busy",
  permissions: perms,
  async fn() {
    // The calls outlast the test, so both are in flight when the next two arrive; the input's end aborts them.
    const server = await started(["--inflight=2", "--grace=1"]);
    await server.send(
      [call("a", "sleep", { ms: 60_000 }, "session"), call("b", "sleep", { ms: 60_000 }, "stateless")].join("\n"),
    );
    await server.send(
      [call("session", "echo", { text: "x" }, "session"), call("stateless", "echo", { text: "x" }, "stateless")].join(
        "\n",
      ),
    );
    const got = await replies(server, ["session", "stateless"]);
    assert.equal(errorOf(got.get("session")).code, -32003);
    const stateless = errorOf(got.get("stateless"));
    assert.equal(stateless.code, -32603);
    assert.match(stateless.message, /Server busy: 2 calls in flight \(maxInFlight\); retry later/);
    assert.deepEqual(stateless.data, { reason: "server_busy", retryable: true, limit: 2 });
    await server.closeInput();
    const ended = await replies(server, ["a", "b"]);
    for (const id of ["a", "b"]) {
      assert.equal(errorOf(ended.get(id)).message, "Server is shutting down", `${id} ran on until the shutdown`);
    }
    await server.status();
  },
});

Deno.test({
  name: "calls aborted by shutdown get -32004 in the initialize era and -32603 shutting_down in 2026-07-28",
  permissions: perms,
  async fn() {
    const server = await started(["--grace=50"]);
    await server.send(
      [call("session", "sleep", { ms: 30_000 }, "session"), call("stateless", "sleep", { ms: 30_000 }, "stateless")]
        .join(
          "\n",
        ),
    );
    await server.waitForStderr("SLEEP_STARTED 30000", 2);
    await server.closeInput();
    const got = await replies(server, ["session", "stateless"]);
    assert.deepEqual(errorOf(got.get("session")), { code: -32004, message: "Server is shutting down" });
    assert.deepEqual(errorOf(got.get("stateless")), {
      code: -32603,
      message: "Server is shutting down",
      data: { reason: "shutting_down", retryable: false },
    });
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name:
    "the official clients: SDK 1.32.2 sees the deadline as error -32001, client 2.4 in 2026-07-28 as an isError result",
  permissions: perms,
  async fn() {
    const args = ["run", "--quiet", "--no-prompt", "--deny-run", fixture, "--timeout=100"];
    const session = new SessionClient({ name: "session", version: "1" });
    await session.connect(new SessionStdio({ command: Deno.execPath(), args, stderr: "pipe" }));
    await assert.rejects(
      session.callTool({ name: "sleep", arguments: { ms: 60_000 } }),
      (err: { code: number }) => err.code === -32001,
    );
    await session.close();
    const stateless = new Client({ name: "stateless", version: "2" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await stateless.connect(new StdioClientTransport({ command: Deno.execPath(), args, stderr: "pipe" }));
    const r = await stateless.callTool({ name: "sleep", arguments: { ms: 60_000 } });
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.content), /timed out after 100 ms/);
    await stateless.close();
  },
});
