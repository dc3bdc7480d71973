// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
import assert from "node:assert/strict";
import { childEnv, spawnRaw, spawnServer } from "@forge/toolkit/testing";
import { initialize } from "../engine/testdata/raw_initialize.ts";
import { importGraph } from "../internal/testdata/import_graph.ts";

const fixture = new URL("../engine/testdata/fixture_server.ts", import.meta.url).pathname;
const hello = new URL("../examples/hello-tool/main.ts", import.meta.url).pathname;
const repo = new URL("..", import.meta.url).pathname;
const perms: Deno.PermissionOptions = { run: true, read: [repo], env: "inherit" };

/** The root module's import graph, read once (`deno info`) for the two tests that look at it. */
let rootGraph: ReturnType<typeof importGraph> | undefined;
const rootImportGraph = () => (rootGraph ??= importGraph(new URL("../mod.ts", import.meta.url).pathname));

const isJsonRpc = (line: string) => {
  const msg = JSON.parse(line);
  return msg.jsonrpc === "2.0" && ("id" in msg || "method" in msg);
};

Deno.test({
  name: "health() prints ok and exits 0 with no Deno permission at all",
  permissions: perms,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", hello, "--health"],
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0);
    assert.equal(new TextDecoder().decode(out.stdout), "ok\n");
  },
});

Deno.test({
  name: "the core's module graph holds no npm package (no MCP SDK, no zod), so health() never loads one",
  permissions: perms,
  async fn() {
    const { modules } = await rootImportGraph();
    assert.ok(modules.length > 5, "the graph was read");
    assert.deepEqual(modules.filter((s) => !s.startsWith("file:") && !s.startsWith("node:")), [], "no npm: package");
  },
});

Deno.test({
  name:
    "importing the root module loads only the authoring half: no engine/, stdio/, permissions/ or schema engine until run() starts",
  permissions: perms,
  async fn() {
    const { modules, loaded } = await rootImportGraph();
    const root = new URL("../", import.meta.url).href;
    const folders = new Set([...loaded].map((s) => s.slice(root.length).split("/").slice(0, -1).join("/") || "."));
    assert.ok(loaded.has(new URL("../toolkit/server.ts", import.meta.url).href), "the graph was read");
    assert.deepEqual([...folders].sort(), [".", "internal", "jsonschema", "runner", "toolkit"]);
    // Of jsonschema/, only the check of a plain object schema, which needs no engine (toolkit/schema_engine.ts).
    const schemaModules = [...loaded].filter((s) => s.includes("/jsonschema/")).map((s) => s.slice(root.length)).sort();
    assert.deepEqual(schemaModules, [
      "jsonschema/_failure_text.ts",
      "jsonschema/_json_types.ts",
      "jsonschema/_object_acceptor.ts",
      "jsonschema/plain_object.ts",
    ]);
    assert.ok(
      modules.includes(new URL("../stdio/serve_core.ts", import.meta.url).href),
      "run() still reaches serve() through import()",
    );
  },
});

Deno.test({
  name:
    "console output and direct stdout writes (write, writeSync, the writable stream) of a handler go to stderr; stdout stays JSON-RPC",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: [fixture] });
    const result = await server.client.callTool({ name: "noisy", arguments: { text: "CANARY" } });
    assert.deepEqual(result.content, [{ type: "text", text: "noisy done" }]);
    const status = await server.close();
    assert.equal(status.code, 0);
    assert.ok(server.lines.length >= 2);
    for (const line of server.lines) assert.ok(isJsonRpc(line), `not JSON-RPC on stdout: ${line}`);
    const stderr = server.stderr();
    assert.match(stderr, /console.log from a handler CANARY/);
    assert.match(stderr, /raw stdout write from a handler/);
    assert.match(stderr, /raw stdout writeSync from a handler/);
    assert.match(stderr, /raw stdout stream write from a handler/);
  },
});

Deno.test({
  name: "a handler exception reaches the client as a generic -32603 with no stack or path; detail on stderr",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: [fixture] });
    await assert.rejects(
      () => server.client.callTool({ name: "crash", arguments: {} }),
      (err: Error) => {
        assert.match(err.message, /Internal error \(ref [0-9a-z-]+\)/);
        assert.doesNotMatch(err.message, /secret|disk on fire|at /);
        return true;
      },
    );
    const ok = await server.client.callTool({ name: "sleep", arguments: { ms: 1 } });
    assert.deepEqual(ok.content, [{ type: "text", text: "slept 1" }], "the server keeps serving");
    await server.close();
    assert.match(
      server.stderr(),
      /tool crash failed \(ref [0-9a-z-]+\)[^:]*: Error: disk on fire at \/secret\/host\/path/,
    );
  },
});

Deno.test({
  name: "SIGTERM during a slow call: the call completes, onClose runs once, exit 0, stdout only JSON-RPC",
  permissions: perms,
  async fn() {
    // A grace far longer than the call: only a shutdown that ignored it could end the call early.
    const server = await spawnServer({ args: [fixture, "--grace=60000"] });
    const call = server.client.callTool({ name: "sleep", arguments: { ms: 300 } });
    await server.waitForStderr("SLEEP_STARTED 300");
    server.process.kill("SIGTERM");
    const result = await call;
    assert.deepEqual(result.content, [{ type: "text", text: "slept 300" }]);
    const status = await server.close();
    assert.equal(status.code, 0);
    assert.equal(server.stderr().split("ON_CLOSE_RAN").length - 1, 1);
    for (const line of server.lines) assert.ok(isJsonRpc(line));
  },
});

/** Opens a session in the initialize-based era and waits for its answer. */
Deno.test({
  name: "SIGINT with a call past the grace period: it is aborted with an error reply, then exit 0",
  permissions: perms,
  async fn() {
    const raw = await spawnRaw({ args: [fixture, "--grace=200"] });
    await initialize(raw);
    await raw.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang" } }));
    await raw.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "sleep", arguments: { ms: 60000 } },
      }),
    );
    await raw.waitForStderr("HANG_STARTED");
    await raw.waitForStderr("SLEEP_STARTED 60000");
    raw.process.kill("SIGINT");
    const replies = [await raw.next(), await raw.next()];
    for (const reply of replies) {
      assert.equal((reply.error as { code: number; message: string }).message, "Server is shutting down");
    }
    assert.deepEqual(replies.map((r) => r.id).sort(), [1, 2]);
    const status = await raw.status();
    assert.equal(status.code, 0);
    assert.equal(raw.stderr().split("ON_CLOSE_RAN").length - 1, 1);
  },
});

Deno.test({
  name: "a second signal forces exit at once",
  permissions: perms,
  async fn() {
    const raw = await spawnRaw({ args: [fixture, "--grace=30000"] });
    await initialize(raw);
    await raw.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang" } }));
    await raw.waitForStderr("HANG_STARTED");
    raw.process.kill("SIGTERM");
    // Two signals sent at once may be heard as one: the second goes once the first was heard.
    await raw.waitForStderr("SIGNAL SIGTERM");
    raw.process.kill("SIGTERM");
    const status = await raw.status();
    assert.equal(status.code, 143);
  },
});

Deno.test({
  name: "stdin EOF mid-call: the call finishes, its reply is written, then exit 0",
  permissions: perms,
  async fn() {
    const raw = await spawnRaw({ args: [fixture, "--grace=60000"] });
    await raw.send(JSON.stringify({ jsonrpc: "2.0", id: "a", method: "server/discover", params: {} }));
    await raw.next();
    await raw.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: {
        name: "sleep",
        arguments: { ms: 200 },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }));
    await raw.closeInput();
    const reply = await raw.next();
    assert.equal(reply.id, 9);
    assert.deepEqual((reply.result as { content: unknown }).content, [{ type: "text", text: "slept 200" }]);
    assert.equal((await raw.status()).code, 0);
  },
});

Deno.test({
  name: "a per-call timeout answers -32001 and the server keeps serving",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: [fixture, "--timeout=150"] });
    await assert.rejects(
      () => server.client.callTool({ name: "hang", arguments: {} }),
      /Tool call timed out after 150 ms/,
    );
    const ok = await server.client.callTool({ name: "sleep", arguments: { ms: 1 } });
    assert.deepEqual(ok.content, [{ type: "text", text: "slept 1" }]);
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "when the client stops reading stdout (EPIPE) the server exits cleanly",
  permissions: perms,
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", fixture],
      clearEnv: true,
      env: childEnv(),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    await child.stdout.cancel();
    const writer = child.stdin.getWriter();
    const line = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) + "\n");
    try {
      for (let i = 0; i < 50; i++) await writer.write(line);
    } catch {
      // The server may be gone before every ping is written.
    }
    const status = await child.status;
    await child.stderr.cancel();
    assert.equal(status.code, 0);
    assert.equal(status.signal, null);
  },
});
