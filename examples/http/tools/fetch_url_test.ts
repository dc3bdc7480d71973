// test-permissions: --allow-net=127.0.0.1,127.0.0.2,localhost
import assert from "node:assert/strict";
import { Server } from "@forge/toolkit";
import { auditTrail } from "@forge/toolkit/middleware";
import { connectInMemory, probe } from "@forge/toolkit/testing";
import type { Config } from "../domain/config.ts";
import { Manager } from "../domain/manager.ts";
import { assertCanaryUntouched, testConfig, testServersForFile } from "../testdata/test_servers.ts";
import { fetchUrlTool } from "./fetch_url.ts";
import { registerAll } from "./register.ts";

const servers = testServersForFile();
const SHARED = { sanitizeOps: false, sanitizeResources: false, permissions: { net: ["127.0.0.1"] } };

/** A test with the file's settings that, once done, checks it sent nothing to the canary server. */
function test(t: { name: string; fn: () => Promise<void> }): void {
  Deno.test({ ...SHARED, name: t.name, fn: () => t.fn().then(() => assertCanaryUntouched(servers)) });
}

const config = (init: Record<string, unknown> = {}): Config => testConfig(servers, { max_bytes: 1_000, ...init });

async function session(current: Config = config()) {
  const audit: string[] = [];
  const server = new Server({ name: "http" });
  registerAll(server, new Manager(() => Promise.resolve(current), { timeoutMs: current.timeout_ms }));
  const middleware = [auditTrail({ server: "http", sink: (line) => audit.push(line) })];
  const connected = await connectInMemory(server, { serve: { middleware } });
  return { ...connected, audit };
}

function textOf(result: { content: unknown[] }): string {
  return (result.content as { text: string }[]).map((block) => block.text).join("\n");
}

test({
  name:
    "fetch_url is listed as a pattern tool: not read-only, not destructive, idempotent, open world, with output schema",
  async fn() {
    const s = await session();
    const [tool] = (await s.client.listTools()).tools;
    assert.equal(tool.name, "fetch_url");
    assert.deepEqual(tool.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    assert.deepEqual((tool.inputSchema as { required: string[] }).required, ["url"]);
    assert.equal(tool.outputSchema, undefined, "a pattern tool declares no outputSchema");
    await s.close();
  },
});

test({
  name: "fetch_url returns the structured result, and the same JSON as text",
  async fn() {
    const s = await session();
    const result = await s.client.callTool({ name: "fetch_url", arguments: { url: `${servers.main}/chain?n=1` } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, {
      url: `${servers.main}/text`,
      status: 200,
      content_type: "text/plain; charset=utf-8",
      body: "hello, world",
      truncated: false,
      redirects: [`${servers.main}/text`],
      binary: false,
    });
    assert.deepEqual(JSON.parse(textOf(result)), result.structuredContent);
    await s.close();
  },
});

test({
  name: "fetch_url returns a 404 as a result with its status, not as an error",
  async fn() {
    const s = await session();
    const result = await s.client.callTool({
      name: "fetch_url",
      arguments: { url: `${servers.main}/status?code=404` },
    });
    assert.equal(result.isError, undefined);
    assert.equal((result.structuredContent as { status: number }).status, 404);
    await s.close();
  },
});

test({
  name: "fetch_url answers isError for everything the model can fix, without leaking the canary",
  async fn() {
    const s = await session(config({ allow_hosts: [`127.0.0.1:${servers.mainPort}`, "10.0.0.1"] }));
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: `${servers.canary}/` }, /the host "127.0.0.2" is not allowed/],
      [{ url: `https://127.0.0.1:${servers.mainPort}/` }, /the scheme "https" is not allowed/],
      [{ url: `http://127.0.0.1:1/` }, /the port 1 is not allowed/],
      [{ url: `http://user:pw@127.0.0.1:${servers.mainPort}/` }, /user name or password/],
      [{ url: `http://2130706433:${servers.mainPort}/` }, /not in canonical form/],
      [{ url: "http://10.0.0.1/" }, /10.0.0.1 is a private address/],
      [{ url: `${servers.main}/to?location=${encodeURIComponent(servers.canary)}` }, /127.0.0.2/],
      [{ url: `${servers.main}/chain?n=9` }, /more than 5 redirects/],
      [{ url: `${servers.main}/echo`, headers: { Host: "x" } }, /Cannot send header "Host"/],
      [{ url: `${servers.main}/echo`, headers: { "X-A": 1 } }, /Invalid argument "headers.X-A": must be a string/],
      [{ url: "" }, /Invalid argument "url": must be at least 1 characters long/],
      [{}, /Invalid argument "url"/],
      [{ url: "not a url" }, /not an absolute URL/],
    ];
    for (const [args, pattern] of cases) {
      const result = await s.client.callTool({ name: "fetch_url", arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), pattern);
      assert.equal(result.structuredContent, undefined);
    }
    assert.ok(!s.lines.some((line) => line.includes(servers.canaryBody)));
    await s.close();
  },
});

test({
  name: "a probe of fetch_url returns get: patterns for origin and path, and sends no request",
  async fn() {
    const s = await session();
    const seen = servers.requests.length;
    const answer = await probe(s.client, "fetch_url", {
      url: `HTTP://127.0.0.1:${servers.mainPort}/a/../echo?token=abc#frag`,
      headers: { Accept: "text/plain" },
    });
    assert.deepEqual(answer, {
      patterns: [`get:${servers.main}/echo`],
      always: [`get:${servers.main}/*`],
      isError: false,
    });
    assert.equal(servers.requests.length, seen, "the probe ran nothing");
    assert.equal((await probe(s.client, "fetch_url", { url: `${servers.canary}/` })).isError, true);
    assert.equal((await probe(s.client, "fetch_url", { url: servers.main, headers: { Cookie: "a" } })).isError, true);
    assert.equal(servers.requests.length, seen);
    await s.close();
  },
});

test({
  name: "fetch_url is audited: patterns and outcome, never the query, the header values or the body",
  async fn() {
    const s = await session();
    await s.client.callTool({
      name: "fetch_url",
      arguments: { url: `${servers.main}/echo?token=query-secret`, headers: { "X-Note": "header-secret" } },
    });
    await probe(s.client, "fetch_url", { url: `${servers.main}/text` });
    await s.client.callTool({ name: "fetch_url", arguments: { url: `${servers.canary}/` } });
    const records = s.audit.map((line) => JSON.parse(line));
    assert.deepEqual(records.map((r) => [r.event, r.outcome, r.patterns]), [
      ["intent", undefined, [`get:${servers.main}/echo`]],
      ["outcome", "ok", undefined],
      ["probe", "probe", [`get:${servers.main}/text`]],
      ["intent", undefined, []],
      ["outcome", "isError", undefined],
    ]);
    const all = s.audit.join("\n");
    for (const hidden of ["query-secret", "header-secret", "hello, world", servers.canaryBody]) {
      assert.ok(!all.includes(hidden), hidden);
    }
    await s.close();
  },
});

test({
  name: "fetch_url passes the call's signal down: a cancelled call aborts the request on the server",
  async fn() {
    const s = await session();
    const count = (paths: string[]) => paths.filter((path) => path === "/slow-body").length;
    const [asked, aborted] = [count(servers.requests.map((r) => r.path)), count(servers.aborted)];
    const controller = new AbortController();
    const call = s.client.callTool(
      { name: "fetch_url", arguments: { url: `${servers.main}/slow-body` } },
      undefined,
      { signal: controller.signal },
    );
    await servers.requested("/slow-body", asked + 1);
    controller.abort();
    await assert.rejects(call);
    // The server sees the abort: the body's stream is cancelled.
    await servers.abortedTimes("/slow-body", aborted + 1);
    await s.close();
  },
});

test({
  name: "fetch_url turns the config's timeout_ms into an isError result before the tool's own deadline",
  async fn() {
    const s = await session(config({ timeout_ms: 200 }));
    const result = await s.client.callTool({ name: "fetch_url", arguments: { url: `${servers.main}/slow` } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /no complete response within 200 ms/);
    assert.ok(fetchUrlTool(1_200).timeoutMs === 1_200);
    await s.close();
  },
});
