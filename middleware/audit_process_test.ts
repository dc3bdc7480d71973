// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=TMPDIR,{child-env}
// The audit trail in a real server process: killed in the middle of a call,
// writing to a full disk, and on a stderr nobody reads.
import assert from "node:assert/strict";
import { type RawServer, spawnRaw, spawnServer } from "@forge/toolkit/testing";
import { auditDigest, verifyAuditTrail } from "./mod.ts";
import { SERVER_IN_TMP } from "../internal/testdata/server_in_tmp.ts";

const fixture = new URL("./testdata/limits_server.ts", import.meta.url).pathname;
const perms = SERVER_IN_TMP;

Deno.test({
  name: "a server killed with SIGKILL in the middle of a call leaves its intent, which the next run links to",
  permissions: perms,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const args = [`--allow-read=${file}`, `--allow-write=${file}`, fixture, `--audit=${file}`];
    const server = await spawnServer({ args });
    const call = server.client.callTool({ name: "write", arguments: { path: "slow.txt", ms: 60_000 } }).catch(() => {});
    // The intent is on disk before the handler starts: wait for the handler, then kill.
    await server.waitForStderr("WRITE_STARTED");
    server.process.kill("SIGKILL");
    assert.equal((await server.process.status).signal, "SIGKILL");
    await call;
    const killed = await Deno.readTextFile(file);
    assert.deepEqual(killed.trim().split("\n").map((l) => JSON.parse(l).event), ["intent"]);
    assert.deepEqual((await verifyAuditTrail(killed)).openIntents, [0], "the reader sees an intent without outcome");
    const again = await spawnServer({ args });
    await again.client.callTool({ name: "write", arguments: { path: "after" } });
    assert.equal((await again.close()).code, 0);
    const text = await Deno.readTextFile(file);
    const verdict = await verifyAuditTrail(text);
    assert.deepEqual([verdict.ok, verdict.records, verdict.openIntents], [true, 3, [0]]);
    assert.deepEqual(JSON.parse(text.split("\n")[0]).patterns, ["write:slow.txt"], "the intent says what was approved");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "a server whose audit file is on a full disk refuses the side effect and says why",
  permissions: perms,
  async fn() {
    // Deno grants /dev/full only with -A; the server then needs its excess-permission override.
    const server = await spawnServer({ args: ["-A", fixture, "--audit=/dev/full", "--allow-excess-permissions"] });
    const result = await server.client.callTool({ name: "write", arguments: { path: "x" } });
    assert.equal(result.isError, true);
    assert.match(
      JSON.stringify(result.content),
      /Cannot run tool \\"write\\": its audit record cannot be written \(the audit file cannot be written \(ENOSPC\)\); nothing was done/,
    );
    assert.equal((await server.close()).code, 0);
    assert.match(
      server.stderr(),
      /limits: cannot write the audit intent record \(the audit file cannot be written: No space/,
    );
  },
});

Deno.test({
  name:
    "a server auditing to a stderr nobody reads refuses side effects and probes, keeps answering, and counts what it lost",
  permissions: perms,
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", fixture],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const send = (message: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
    const reply = async (id: number) => {
      while (true) {
        const at = buffered.indexOf("\n");
        if (at >= 0) {
          const line = buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
          const message = JSON.parse(line);
          if (message.id === id) return message;
          continue;
        }
        const { value, done } = await lines.read();
        if (done) throw new Error("Cannot read the reply: stdout ended");
        buffered += value;
      }
    };
    await send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    await reply(0);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    let refused: { text: string }[] | undefined;
    let id = 1;
    // Each call writes two records to stderr; a pipe holds 64 KiB, so a few hundred calls fill it.
    for (; id < 2_000 && refused === undefined; id++) {
      await send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "write", arguments: { path: "p" } } });
      const answer = await reply(id);
      if (answer.result?.isError) refused = answer.result.content;
    }
    assert.ok(refused, `no call was refused after ${id} calls`);
    assert.match(refused[0].text, /its audit record cannot be written \(stderr does not take the audit records\)/);
    // A probe runs nothing, but its record must be written before it is answered: refused as well.
    await send({
      jsonrpc: "2.0",
      id: 9_998,
      method: "tools/call",
      params: { name: "write", arguments: { path: "p" }, _meta: { "forge.permission_patterns": true } },
    });
    const probed = (await reply(9_998)).result;
    assert.equal(probed.isError, true, "a probe whose record stderr does not take is refused");
    assert.match(probed.content[0].text, /Cannot probe tool "write": its audit record cannot be written \(stderr/);
    await send({ jsonrpc: "2.0", id: 9_999, method: "tools/list" });
    assert.equal((await reply(9_999)).result.tools[0].name, "write", "the server still answers");
    // Read stderr at last: once it drains, one line counts the records that were not written.
    let stderr = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      if (/\d+ audit records not written: stderr was not read\n/.test(stderr)) break;
    }
    assert.match(stderr, /\d+ audit records not written: stderr was not read\n/);
    child.kill("SIGKILL");
    await child.status;
    await writer.close().catch(() => {});
    await lines.cancel();
  },
});

/** The fixture started with `denoFlags` and its own `flags`, initialized, driven with raw lines. */
async function rawFixture(denoFlags: string[], flags: string[]): Promise<RawServer> {
  const server = await spawnRaw({ args: [...denoFlags, fixture, ...flags] });
  await server.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  }));
  await server.next();
  return server;
}

const write = (id: unknown, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "write", arguments: args } });

Deno.test({
  name: "a request id holding a line break and a forged record forges no stderr line, and the trail on stderr verifies",
  permissions: perms,
  async fn() {
    const server = await rawFixture([], ["--timeout=200"]);
    const forged = '{"seq":1,"prev":"0000","event":"outcome","time":"x","intent":0,"tool":"write","outcome":"ok"}';
    // The call times out, and the timeout's log line names the request by its id.
    await server.send(write(`a\n${forged}\r\u001b[2K`, { path: "p", ms: 60_000 }));
    const reply = await server.next(30_000);
    assert.equal((reply.error as { code: number }).code, -32001);
    assert.equal((await server.status()).code, 0);
    const stderr = server.stderr();
    assert.match(stderr, /timed out after 200 ms \(request "a\\n\{\\"seq\\":1/, "the id is shown escaped");
    const lines = stderr.split("\n");
    assert.equal(lines.filter((l) => l.startsWith('{"seq":1,"prev":"0000"')).length, 0, "no forged line");
    assert.ok(!stderr.includes("\u001b"), "no terminal escape reaches stderr raw");
    const verdict = await verifyAuditTrail(stderr, { skipOtherLines: true });
    assert.deepEqual([verdict.ok, verdict.records, verdict.broken], [true, 2, undefined]);
  },
});

Deno.test({
  name: "a 1.2 MiB request id or path is cut and marked in the record, and a restarted server links to it and serves",
  permissions: perms,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const denoFlags = [`--allow-read=${file}`, `--allow-write=${file}`];
    const huge = "x".repeat(1_200_000);
    const first = await rawFixture(denoFlags, [`--audit=${file}`]);
    await first.send(write(huge, { path: "p" }));
    assert.equal(((await first.next(30_000)).result as { isError?: boolean }).isError, undefined);
    await first.send(write(2, { path: huge }));
    assert.equal(((await first.next(30_000)).result as { isError?: boolean }).isError, undefined);
    assert.equal((await first.status()).code, 0);
    const records = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(records.map((r) => r.cut), [["id"], undefined, ["patterns"], undefined]);
    assert.equal(records[0].id, `${"x".repeat(256)}…`);
    assert.equal(records[2].patterns[0], `write:${"x".repeat(1018)}…`);
    // A new process reads the last record back to link to it: it must fit what the trail reads.
    const again = await rawFixture(denoFlags, [`--audit=${file}`]);
    await again.send(write(3, { path: "after" }));
    const after = await again.next(30_000);
    assert.deepEqual(after.result, { content: [{ type: "text", text: "written" }] });
    assert.equal((await again.status()).code, 0);
    const verdict = await verifyAuditTrail(await Deno.readTextFile(file));
    assert.deepEqual([verdict.ok, verdict.records], [true, 6]);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "arguments that break the schema are recorded as invalid, not digested; valid ones are digested as before",
  permissions: perms,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const server = await rawFixture([`--allow-read=${file}`, `--allow-write=${file}`], [`--audit=${file}`]);
    await server.send(write(1, { path: 5, extra: "x".repeat(100_000) }));
    assert.equal(((await server.next(30_000)).result as { isError?: boolean }).isError, true);
    await server.send(write(2, { path: "p" }));
    assert.deepEqual((await server.next(30_000)).result, { content: [{ type: "text", text: "written" }] });
    assert.equal((await server.status()).code, 0);
    const intents = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l))
      .filter((r) => r.event === "intent");
    assert.deepEqual(intents.map((r) => [r.args_invalid, typeof r.args_sha256]), [[true, "undefined"], [
      undefined,
      "string",
    ]]);
    assert.equal(intents[1].args_sha256, await auditDigest({ path: "p" }));
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "a handler that ignores its signal and finishes after its deadline leaves the outcome timeout, then a late record of how it ended",
  permissions: perms,
  async fn() {
    const server = await rawFixture([], ["--timeout=200"]);
    // Each handler waits for its deadline, ignores it, and goes on to end its own way.
    const ends = { ok: "ok", domain: "isError", crash: "error" };
    let id = 1;
    for (const [finish, ended] of Object.entries(ends)) {
      await server.send(write(id++, { path: finish, finish }));
      assert.equal(((await server.next(30_000)).error as { code: number }).code, -32001, finish);
      // The client heard of the timeout; the trail tells what the handler did after.
      await server.waitForStderr(`"ended":"${ended}"`);
    }
    assert.equal((await server.status()).code, 0);
    const stderr = server.stderr();
    const verdict = await verifyAuditTrail(stderr, { skipOtherLines: true });
    assert.deepEqual([verdict.ok, verdict.records, verdict.openIntents], [true, 9, []]);
    const records = stderr.split("\n").filter((l) => l.startsWith('{"seq":')).map((l) => JSON.parse(l));
    assert.deepEqual(records.map((r) => `${r.event}:${r.outcome ?? r.ended ?? ""}:${r.intent ?? ""}`), [
      ...["intent::", "outcome:timeout:0", "late:ok:0"],
      ...["intent::", "outcome:timeout:3", "late:isError:3"],
      ...["intent::", "outcome:timeout:6", "late:error:6"],
    ]);
    assert.ok(records.every((r) => r.event !== "late" || (r.tool === "write" && r.duration_ms >= 0)));
  },
});

Deno.test({
  name: "a server stopped by SIGTERM or the end of stdin in the middle of a call records it aborted before it exits",
  permissions: perms,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const denoFlags = [`--allow-read=${file}`, `--allow-write=${file}`];
    for (const stop of ["SIGTERM", "end of stdin"]) {
      const server = await rawFixture(denoFlags, [`--audit=${file}`, "--grace=100"]);
      // A minute's work that ignores its signal: the shutdown's grace ends it.
      await server.send(write(1, { path: "p", ms: 60_000 }));
      await server.waitForStderr("WRITE_STARTED");
      if (stop === "SIGTERM") server.process.kill("SIGTERM");
      else await server.closeInput();
      assert.equal((await server.status()).code, 0, stop);
      // The shutdown does not wait for the handler: the trail says it closed with it still running.
      const intent = stop === "SIGTERM" ? 0 : 2;
      assert.match(
        server.stderr(),
        new RegExp(`still run \\(intents ${intent}\\): no late record will say how they end`),
      );
    }
    const records = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(records.map((r) => `${r.event}:${r.outcome ?? ""}`), [
      ...["intent:", "outcome:aborted", "intent:", "outcome:aborted"],
    ]);
    const verdict = await verifyAuditTrail(await Deno.readTextFile(file));
    assert.deepEqual([verdict.ok, verdict.records, verdict.openIntents], [true, 4, []]);
    await Deno.remove(dir, { recursive: true });
  },
});
