// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
import assert from "node:assert/strict";
import { spawnRaw, spawnServer } from "@forge/toolkit/testing";
import { looksLikeServer, startupLine } from "./startup.ts";

const fixture = new URL("./testdata/startup_server.ts", import.meta.url).pathname;
const repo = new URL("..", import.meta.url).pathname;
const perms: Deno.PermissionOptions = { run: true, read: [repo], env: "inherit" };
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

Deno.test("looksLikeServer() is false for --health, --help, --print-* flags, tests, benches and deno eval", () => {
  assert.equal(looksLikeServer([], "file:///srv/main.ts"), true);
  assert.equal(looksLikeServer(["-config", "c.json"], "file:///srv/main.ts"), true);
  for (const flag of ["--health", "--help", "-h", "--print-permissions", "--print-host-config=claude"]) {
    assert.equal(looksLikeServer([flag], "file:///srv/main.ts"), false, flag);
  }
  assert.equal(looksLikeServer(["--print-host-config", "vscode"], "file:///srv/main.ts"), false);
  for (const main of ["file:///srv/main_test.ts", "file:///srv/main.test.ts", "file:///srv/x_bench.ts"]) {
    assert.equal(looksLikeServer([], main), false, main);
  }
  assert.equal(looksLikeServer([], "file:///srv/$deno$eval.mts"), false);
  assert.equal(looksLikeServer([], "file:///srv/contest.ts"), true, "only a test suffix counts");
});

Deno.test("startupLine() is one line with the message and the first place outside the toolkit, never a stack", () => {
  const err = new RangeError('Cannot require property "pth":\nit is not defined');
  err.stack = [
    "RangeError: Cannot require property",
    `    at schema (${new URL("../toolkit/schema.ts", import.meta.url).href}:120:13)`,
    "    at file:///srv/tools/read.ts:7:22",
    "    at file:///srv/main.ts:3:1",
  ].join("\n");
  assert.equal(
    startupLine("files", err),
    'files: Cannot require property "pth": it is not defined (at file:///srv/tools/read.ts:7:22)',
  );
  assert.equal(startupLine("files", new SyntaxError("bad")), "files: SyntaxError: bad");
  assert.equal(startupLine("files", "a string"), "files: a string");
  const hostile = new Proxy({}, {
    getPrototypeOf: () => {
      throw new Error("trap");
    },
  });
  assert.equal(startupLine("files", hostile), "files: a thrown value that cannot be shown");
});

Deno.test({
  name: "console.log and stdout writes at module top level and in register never reach stdout ahead of the reply",
  permissions: perms,
  async fn() {
    const server = await spawnRaw({ args: ["--quiet", fixture] });
    await server.send(JSON.stringify(INIT));
    const reply = await server.next();
    assert.equal(reply.id, 1);
    assert.ok(reply.result, "the first stdout line is the initialize reply");
    const status = await server.status();
    assert.equal(status.code, 0);
    assert.deepEqual(server.lines.map((l) => JSON.parse(l).id), [1], "stdout held nothing but the reply");
    const stderr = server.stderr();
    assert.match(stderr, /top-level console.log/);
    assert.match(stderr, /top-level stdout writeSync/);
    assert.match(stderr, /console.log in register/);
  },
});

Deno.test({
  name: "--health and --print-permissions still print on stdout",
  permissions: perms,
  async fn() {
    for (const [flag, expected] of [["--health", /^ok$/m], ["--print-permissions", /^$/m]] as const) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--quiet", "--no-prompt", fixture, flag],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, flag);
      const stdout = new TextDecoder().decode(out.stdout);
      assert.match(stdout, expected, flag);
      // Such a process prints by design: its own top-level output stays where it wrote it.
      assert.match(stdout, /top-level console.log/, flag);
    }
  },
});

async function startUp(mistake: string): Promise<{ code: number; lines: string[]; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", fixture, mistake],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  // The fixture's own top-level noise is diverted to stderr too; what the toolkit adds is the rest.
  const lines = stderr.split("\n").filter((l) => l !== "" && !/^(top-level |console.log in register)/.test(l));
  return { code: out.code, lines, stdout: new TextDecoder().decode(out.stdout), stderr };
}

Deno.test({
  name: "every start-up mistake is one stderr line and exit code 1, never a stack trace",
  permissions: perms,
  async fn() {
    const cases: [string, RegExp][] = [
      ["import", /^startup_server\.ts: Cannot require property "pth": it is not defined$/],
      ["duplicate", /^startup: Cannot register tool "hi": a tool with this name is already registered/],
      [
        "annotations",
        /^startup: Cannot register tool "half": annotations must state all four hints, each true or false: readOnlyHint, destructiveHint, idempotentHint, openWorldHint \(missing: idempotentHint, openWorldHint\)/,
      ],
      ["register-throws", /^startup: the database is not reachable$/],
    ];
    for (const [mistake, line] of cases) {
      const { code, lines, stdout, stderr } = await startUp(mistake);
      assert.equal(code, 1, mistake);
      assert.equal(lines.length, 1, `${mistake}: ${lines.join("\n")}`);
      assert.match(lines[0], line, mistake);
      assert.equal(stdout, "", `${mistake}: nothing on stdout`);
      assert.match(
        stderr,
        /^top-level console.log\ntop-level stdout writeSync\n/,
        `${mistake}: what was logged came first`,
      );
      assert.doesNotMatch(stderr, /^\s+at /m, `${mistake}: no stack frame`);
    }
  },
});

Deno.test({
  name: "a handler returning a string is told to use text(); a plain Error is told to be a ToolError",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: ["--quiet", fixture] });
    await assert.rejects(server.client.callTool({ name: "string_result", arguments: {} }), /Internal error/);
    await assert.rejects(server.client.callTool({ name: "plain_error", arguments: {} }), /Internal error/);
    const status = await server.close();
    assert.equal(status.code, 0);
    const stderr = server.stderr();
    assert.match(
      stderr,
      /tool string_result failed \(ref [^)]+\): TypeError: Cannot send the result of tool "string_result": the handler returned a string; return text\(\.\.\.\) instead/,
    );
    assert.match(
      stderr,
      /tool plain_error failed \(ref [^)]+\) with a plain Error; for a failure the model can fix \(bad input, not found, denied\) throw ToolError/,
    );
    assert.doesNotMatch(
      stderr,
      /tool string_result failed \(ref [^)]+\) with a plain Error/,
      "a TypeError gets no ToolError hint",
    );
  },
});

Deno.test({
  name: "a process that serves by itself on Deno.stdout (serve() or StdioTransport) gets its stdout back",
  permissions: perms,
  async fn() {
    const own = new URL("./testdata/own_serve_server.ts", import.meta.url).pathname;
    for (const mode of ["serve", "transport"]) {
      const server = await spawnRaw({ args: ["--quiet", own, mode] });
      await server.send(JSON.stringify(INIT));
      const reply = await server.next();
      assert.equal(reply.id, 1, mode);
      await server.closeInput();
      await server.status();
      assert.deepEqual(server.lines.map((l) => JSON.parse(l).id), [1], `${mode}: stdout held only the reply`);
      assert.match(server.stderr(), /before serving/, mode);
    }
  },
});
