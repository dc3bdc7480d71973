// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1,127.0.0.2 --allow-env={child-env}
// End to end: the server as a real subprocess, started with exactly the flags
// it prints, driven by the official SDK client over its real stdio, against
// real HTTP servers on 127.0.0.1 and a forbidden canary on 127.0.0.2.
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { derivePermissions, printedPermissions } from "@forge/toolkit/permissions";
import {
  probe,
  runDeno,
  type RunDenoResult,
  type ServerProcess,
  spawnServer,
  startRecordingProxy,
} from "@forge/toolkit/testing";
import { definePolicy } from "@forge/toolkit/validate";
import { assertCanaryUntouched, testServersForFile } from "./testdata/test_servers.ts";

const SCRIPT = fileURLToPath(new URL("./main.ts", import.meta.url));
const REPO = dirname(dirname(dirname(SCRIPT)));
const SECRET = `secret-${crypto.randomUUID()}`;
const ENV = { HTTP_E2E_TOKEN: SECRET };

// The exact tasks deno.json carries for this example (checked against deno.json below).
const TASK_HTTP = "deno run --no-prompt --v8-flags=--max-semi-space-size=8,--no-lazy " +
  "--allow-read=examples/http/sample/config.json " +
  "--allow-net=api.github.com,en.wikipedia.org,example.com " +
  "'--deny-net=0.0.0.0/8,10.0.0.0/8,100.64.0.0/10,127.0.0.0/8,169.254.169.254/32,169.254.0.0/16,172.16.0.0/12," +
  "192.0.0.0/24,192.0.2.0/24,192.88.99.0/24,192.168.0.0/16,198.18.0.0/15,198.51.100.0/24,203.0.113.0/24,224.0.0.0/4," +
  "240.0.0.0/4,[::],[::1],[fd00:ec2::254]' " +
  "--allow-env=FORGE_TENANT_CONFIG,NO_PROXY,no_proxy examples/http/main.ts -config examples/http/sample/config.json";
const TASK_COMPILE = "deno run --allow-run --allow-read --allow-env scripts/compile.ts examples/http/main.ts " +
  "--config examples/http/sample/config.json --output dist/http";

const servers = testServersForFile();
const { main, other, canary, canaryBody } = servers;
const SHARED = { sanitizeOps: false, sanitizeResources: false };
/** What the running test's processes printed: checked for the canary when the test is done. */
let outputs: string[] = [];

type Result = { content: unknown[]; isError?: boolean; structuredContent?: unknown };
const textOf = (result: Result) => (result.content as { text: string }[]).map((block) => block.text).join("\n");

/** A config in its own 0700 folder, replaced atomically (temp file + rename) as operators should. */
async function configFile(config: Record<string, unknown>) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "http-e2e-" }));
  const path = join(dir, "http.json");
  const write = async (value: Record<string, unknown>) => {
    const temp = join(dir, `.http.json.${crypto.randomUUID()}`);
    await Deno.writeTextFile(temp, JSON.stringify(value), { mode: 0o600 });
    await Deno.rename(temp, path);
  };
  await write(config);
  return { dir, path, write, remove: () => Deno.remove(dir, { recursive: true }) };
}

function baseConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    allow_hosts: [`127.0.0.1:${servers.mainPort}`, `127.0.0.1:${servers.otherPort}`],
    allow_schemes: ["http"],
    allow_private_hosts: ["127.0.0.1"],
    timeout_ms: 500,
    max_bytes: 1000,
    max_redirects: 3,
    auth: [{ origins: [main], scheme: "Bearer", credentials: "${HTTP_E2E_TOKEN}" }],
    ...extra,
  };
}

async function deno(args: string[], env: Record<string, string> = {}): Promise<RunDenoResult> {
  const result = await runDeno({ args, env, cwd: REPO });
  outputs.push(result.stdout, result.stderr);
  return result;
}

async function start(path: string): Promise<ServerProcess> {
  const flags = await printedPermissions({ script: SCRIPT, config: path, env: ENV, cwd: REPO });
  return await spawnServer({ args: [...flags, SCRIPT, "-config", path], env: ENV, cwd: REPO });
}

async function stop(server: ServerProcess): Promise<void> {
  const status = await server.close();
  outputs.push(...server.lines, server.stderr());
  assert.equal(status.code, 0, server.stderr());
}

const fetchUrl = (server: ServerProcess, args: Record<string, unknown>) =>
  server.client.callTool({ name: "fetch_url", arguments: args }) as Promise<Result>;

/**
 * The server on baseConfig() that the tests which only call it share (none of them changes the config or the
 * environment): one printing of the flags and one start for them, instead of one of each per test. Started by the
 * first test that asks; the last test of this file that uses it closes it and checks all it printed.
 */
let shared: Promise<{ file: Awaited<ReturnType<typeof configFile>>; server: ServerProcess }> | undefined;
function sharedServer() {
  shared ??= (async () => {
    const file = await configFile(baseConfig());
    return { file, server: await start(file.path) };
  })();
  return shared;
}

/** What the shared server printed so far, for the checks a test makes when it is done. */
function printedSoFar(server: ServerProcess): void {
  outputs.push(...server.lines, server.stderr());
}

/** A test that, once done, checks that nothing reached the canary server and nothing printed its body. */
function test(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name,
    ...SHARED,
    async fn() {
      outputs = [];
      await fn();
      assertCanaryUntouched(servers);
      for (const text of outputs) assert.ok(!text.includes(canaryBody), "a process printed the canary's body");
    },
  });
}

test("--health prints ok and needs no permission at all", async () => {
  const out = await deno([SCRIPT, "--health"]);
  assert.deepEqual([out.code, out.stdout], [0, "ok\n"]);
});

test("--print-permissions needs only the config file and prints exactly the hosts with their ports", async () => {
  const file = await configFile(baseConfig({ audit_file: "audit.jsonl" }));
  const out = await deno(
    [`--allow-read=${file.path}`, "--allow-env=HTTP_E2E_TOKEN", SCRIPT, "-config", file.path, "--print-permissions"],
    ENV,
  );
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stderr, "");
  // An independent policy with only the private loopback host gives the --deny-net the flags must carry.
  const expectedDeny = derivePermissions(
    definePolicy({ net: { hosts: ["127.0.0.1"], privateHosts: ["127.0.0.1"], schemes: ["http"] } }),
  ).denyNet;
  assert.ok(!expectedDeny.includes("127.0.0.0/8") && expectedDeny.includes("10.0.0.0/8"));
  const ports = [servers.mainPort, servers.otherPort].map((p) => `127.0.0.1:${p}`).sort();
  assert.equal(
    out.stdout,
    [
      `--allow-read=${[file.path, join(file.dir, "audit.jsonl")].sort().join(",")}`,
      `--allow-write=${join(file.dir, "audit.jsonl")}`,
      `--allow-net=${ports.join(",")}`,
      `'--deny-net=${expectedDeny.join(",")}'`,
      // The server sets NO_PROXY and no_proxy at start, so fetch ignores a proxy of the environment.
      "--allow-env=FORGE_TENANT_CONFIG,HTTP_E2E_TOKEN,NO_PROXY,no_proxy",
    ].join(" ") + "\n",
  );
  assert.ok(!out.stdout.includes(SECRET));
  await file.remove();
});

test("the server refuses to start with -A, an unscoped --allow-net, or without its --deny-net (exit 2)", async () => {
  const file = await configFile(baseConfig());
  const flags = await printedPermissions({ script: SCRIPT, config: file.path, env: ENV, cwd: REPO });
  const refusing = /^http: refusing to serve: the process holds more permissions than its policy needs/;
  const all = await deno(["-A", SCRIPT, "-config", file.path], ENV);
  assert.equal(all.code, 2, all.stderr);
  assert.match(all.stderr, refusing);
  assert.equal(all.stdout, "");
  const unscoped = flags.map((flag) => (flag.startsWith("--allow-net=") ? "--allow-net" : flag));
  const net = await deno([...unscoped, SCRIPT, "-config", file.path], ENV);
  assert.equal(net.code, 2, net.stderr);
  assert.match(net.stderr, /unscoped --allow-net/);
  const withoutDeny = flags.filter((flag) => !flag.startsWith("--deny-net="));
  const open = await deno([...withoutDeny, SCRIPT, "-config", file.path], ENV);
  assert.equal(open.code, 2, open.stderr);
  assert.match(open.stderr, /--deny-net "10.0.0.0\/8" is not in force/);
  await file.remove();
});

test("the server refuses to start on a config that is invalid or uses an unset variable (exit 1)", async () => {
  const file = await configFile(baseConfig({ allow_private_hosts: ["10.9.9.9"] }));
  const bad = await deno([`--allow-read=${file.dir}`, "--allow-env", SCRIPT, "-config", file.path], ENV);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /allow_private_hosts\[0\]: must be an exact host that allow_hosts lists too/);
  await file.write(baseConfig());
  const unset = await deno([`--allow-read=${file.dir}`, "--allow-env=HTTP_E2E_TOKEN", SCRIPT, "-config", file.path]);
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /auth\[0\]\.credentials: uses \$\{HTTP_E2E_TOKEN\}, which is not set/);
  await file.remove();
});

test("fetch_url works over real stdio under the printed flags; refusals are isError; nothing leaks", async () => {
  const { server } = await sharedServer();
  const ok = await fetchUrl(server, { url: `${main}/chain?n=2`, headers: { Accept: "text/plain" } });
  assert.equal(ok.isError, undefined, textOf(ok));
  assert.deepEqual(ok.structuredContent, {
    url: `${main}/text`,
    status: 200,
    content_type: "text/plain; charset=utf-8",
    body: "hello, world",
    truncated: false,
    redirects: [`${main}/chain?n=1`, `${main}/text`],
    binary: false,
  });
  const missing = await fetchUrl(server, { url: `${other}/status?code=404` });
  assert.equal(missing.isError, undefined);
  assert.equal((missing.structuredContent as { status: number }).status, 404);
  const big = (await fetchUrl(server, { url: `${main}/big?bytes=5000&char=é` })).structuredContent as {
    body: string;
    truncated: boolean;
  };
  assert.deepEqual([big.body, big.truncated], ["é".repeat(500), true]);
  const png = (await fetchUrl(server, { url: `${main}/png` })).structuredContent as { binary: boolean; body: string };
  assert.deepEqual([png.binary, png.body.startsWith("[body not shown: binary content")], [true, true]);
  assert.equal(
    ((await fetchUrl(server, { url: `${main}/latin1` })).structuredContent as { body: string }).body,
    "café",
  );

  const refused: [Record<string, unknown>, RegExp][] = [
    [{ url: `${canary}/` }, /the host "127.0.0.2" is not allowed/],
    [{ url: `${main}/to?location=${encodeURIComponent(`${canary}/`)}` }, /127\.0\.0\.2:\d+\/", and its host is not/],
    [{ url: `${main}/to?location=${encodeURIComponent("http://10.0.0.1/")}` }, /0\.1\/", and its host is not allowed/],
    [{ url: `${main}/to?location=${encodeURIComponent(`http://2130706433:${servers.mainPort}/`)}` }, /in that form/],
    [{ url: `https://127.0.0.1:${servers.mainPort}/` }, /the scheme "https" is not allowed/],
    [{ url: "http://127.0.0.1:1/" }, /the port 1 is not allowed/],
    [{ url: `http://x@127.0.0.1:${servers.mainPort}/` }, /user name or password/],
    [{ url: `${main}/chain?n=4` }, /more than 3 redirects/],
    [{ url: `${main}/slow` }, /no complete response within 500 ms/],
    [{ url: `${main}/echo`, headers: { Host: "internal.example" } }, /Cannot send header "Host"/],
    [{ url: `${main}/echo`, headers: { Authorization: "Bearer x" } }, /credentials come only from the server's config/],
    [{ url: `${main}/echo`, headers: { "Transfer-Encoding": "chunked" } }, /framing headers/],
    [{ url: `${main}/echo`, headers: { "Proxy-Authorization": "x" } }, /proxy headers/],
  ];
  for (const [args, reason] of refused) {
    const result = await fetchUrl(server, args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(textOf(result), reason);
  }
  printedSoFar(server);
});

test("with HTTP_PROXY, HTTPS_PROXY and ALL_PROXY naming a proxy, the server under its printed flags fetches directly: the proxy sees nothing", async () => {
  const proxy = startRecordingProxy();
  const env = { ...ENV, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, ALL_PROXY: proxy.url, http_proxy: proxy.url };
  const file = await configFile(baseConfig());
  const flags = await printedPermissions({ script: SCRIPT, config: file.path, env, cwd: REPO });
  assert.ok(flags.includes("--allow-env=FORGE_TENANT_CONFIG,HTTP_E2E_TOKEN,NO_PROXY,no_proxy"), flags.join(" "));
  const server = await spawnServer({ args: [...flags, SCRIPT, "-config", file.path], env, cwd: REPO });
  const result = await fetchUrl(server, { url: `${main}/text?via=environment-proxy` });
  assert.equal(result.isError, undefined, textOf(result));
  assert.equal((result.structuredContent as { body: string }).body, "hello, world");
  assert.ok(servers.requests.some((r) => r.path === "/text?via=environment-proxy"), "the target saw the request");
  await stop(server);
  await proxy.close();
  assert.deepEqual(proxy.lines, [], "the proxy saw nothing");
  await file.remove();
});

test("credentials go only to their origin and are never echoed, in results or logs", async () => {
  const { server } = await sharedServer();
  const seen = servers.requests.length;
  const echoed = await fetchUrl(server, { url: `${main}/echo` });
  assert.equal(
    JSON.parse((echoed.structuredContent as { body: string }).body).headers.authorization,
    "Bearer ${HTTP_E2E_TOKEN}",
  );
  await fetchUrl(server, { url: `${other}/echo` });
  const redirected = await fetchUrl(server, { url: `${main}/to?location=${encodeURIComponent(`${other}/echo`)}` });
  assert.match(textOf(redirected), /outside the allow_hosts entry that allowed it/);
  const sent = servers.requests.slice(seen).map((r) => [r.origin, r.headers.authorization]);
  assert.deepEqual(sent, [[main, `Bearer ${SECRET}`], [other, undefined], [main, `Bearer ${SECRET}`]]);
  // No oracle: a red team's model read a credential back one character a fetch, from an echo never sent it, as the
  // one candidate start followed by "…" that came back hidden. Every candidate now comes back as sent.
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-";
  for (const known of ["", SECRET.slice(0, 12)]) {
    const query = [...alphabet].map((c) => `<${known}${c}…>`).join("");
    const echo = await fetchUrl(server, { url: `${other}/token-in?body=${encodeURIComponent(query)}` });
    assert.equal((echo.structuredContent as { body: string }).body, query);
  }
  // And once the server has ended: "the server the tests above share…" below.
  for (const text of [...server.lines, server.stderr()]) assert.ok(!text.includes(SECRET));
  printedSoFar(server);
});

test("over stdio: client-address and identity headers are refused and an invalid redirect Location is named as such", async () => {
  const { server } = await sharedServer();
  const seen = servers.requests.length;
  for (const name of ["True-Client-IP", "X-Client-IP", "CF-Connecting-IP"]) {
    const refused = await fetchUrl(server, { url: `${main}/echo`, headers: { [name]: "10.0.0.1" } });
    assert.equal(refused.isError, true, name);
    assert.match(textOf(refused), /headers that claim a client address are not sent/);
  }
  for (
    const name of ["X-Forwarded-User", "X-Auth-Request-Email", "Impersonate-Group", "X-WEBAUTH-ROLE", "X-Scope-OrgID"]
  ) {
    const refused = await fetchUrl(server, { url: `${main}/echo`, headers: { [name]: "admin" } });
    assert.equal(refused.isError, true, name);
    assert.match(textOf(refused), /headers that claim an identity are not sent/);
  }
  assert.equal(servers.requests.length, seen, "no refused call reached the server");
  const invalid = await fetchUrl(server, { url: `${main}/to?location=${encodeURIComponent("http://[::1")}` });
  assert.equal(invalid.isError, true);
  assert.match(textOf(invalid), /a redirect's Location "http:\/\/\[::1" is not a valid URL/);
  assert.doesNotMatch(textOf(invalid), /connection failed/);
  printedSoFar(server);
});

test("the server the tests above share ends with exit code 0, and printed neither the credential nor the canary", async () => {
  const { file, server } = await sharedServer();
  // stop() checks the exit code and hands what it printed to the canary check of test().
  await stop(server);
  for (const text of [...server.lines, server.stderr()]) assert.ok(!text.includes(SECRET));
  await file.remove();
});

test("a probe returns get: patterns, sends no request, and is audited like every call, without argument values", async () => {
  const file = await configFile(baseConfig());
  const server = await start(file.path);
  const seen = servers.requests.length;
  const answer = await probe(server.client, "fetch_url", {
    url: `${main}/echo?token=query-value`,
    headers: { "X-A": "header-value" },
  });
  assert.deepEqual(answer, { patterns: [`get:${main}/echo`], always: [`get:${main}/*`], isError: false });
  assert.equal(servers.requests.length, seen, "the probe fetched nothing");
  assert.equal((await probe(server.client, "fetch_url", { url: `${canary}/` })).isError, true);
  await fetchUrl(server, { url: `${main}/text?token=query-value`, headers: { "X-A": "header-value" } });
  await stop(server);
  const records = server.stderr().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
  assert.deepEqual(records.map((r) => [r.event, r.tool, r.outcome, r.patterns]), [
    ["probe", "fetch_url", "probe", [`get:${main}/echo`]],
    ["probe", "fetch_url", "isError", []],
    ["intent", "fetch_url", undefined, [`get:${main}/text`]],
    ["outcome", "fetch_url", "ok", undefined],
  ]);
  for (const value of ["query-value", "header-value", "hello, world", SECRET]) {
    assert.ok(!server.stderr().includes(value), value);
  }
  await file.remove();
});

test("live reload: a narrowed config refuses the very next call, a widened one is stopped by Deno's flags", async () => {
  const file = await configFile(baseConfig());
  const server = await start(file.path);
  assert.equal((await fetchUrl(server, { url: `${other}/text` })).isError, undefined);

  await file.write(baseConfig({ allow_hosts: [`127.0.0.1:${servers.mainPort}`] }));
  const narrowed = await fetchUrl(server, { url: `${other}/text` });
  assert.equal(narrowed.isError, true);
  assert.match(textOf(narrowed), new RegExp(`the port ${servers.otherPort} is not allowed`));
  assert.equal((await fetchUrl(server, { url: `${main}/text` })).isError, undefined);

  // Layer 1 now allows the canary host; the flags fixed at start do not.
  await file.write(baseConfig({
    allow_hosts: [`127.0.0.1:${servers.mainPort}`, `127.0.0.2:${servers.canaryPort}`],
    allow_private_hosts: ["127.0.0.1", "127.0.0.2"],
  }));
  const seen = servers.requests.length;
  const widened = await fetchUrl(server, { url: `${canary}/` });
  assert.equal(widened.isError, true);
  assert.match(
    textOf(widened),
    /outside what this process was started with; restart the server with the flags from --print-permissions/,
  );
  // A redirect there leaves the entry the call was allowed by: refused before either layer would connect.
  const redirected = await fetchUrl(server, { url: `${main}/to?location=${encodeURIComponent(`${canary}/`)}` });
  assert.match(textOf(redirected), /outside the allow_hosts entry that allowed it/);
  assert.equal(servers.requests.length, seen + 1, "only the redirecting request reached a server");

  await Deno.writeTextFile(file.path, "{ not json");
  assert.equal((await fetchUrl(server, { url: `${main}/text` })).isError, undefined, "the last good config stays");
  await stop(server);
  assert.match(server.stderr(), /http: keeping the last good config/);
  await file.remove();
});

test(`the "http" task runs the sample config with exactly the flags it prints`, async () => {
  const sample = join(REPO, "examples/http/sample/config.json");
  const printed = await printedPermissions({ script: SCRIPT, config: sample, cwd: REPO });
  const words = shellWords(TASK_HTTP);
  assert.deepEqual(
    words.slice(2, 4),
    ["--no-prompt", "--v8-flags=--max-semi-space-size=8,--no-lazy"],
    "as the launch lines run it",
  );
  const flags = words.slice(4, words.indexOf("examples/http/main.ts"));
  const resolved = flags.map((flag) =>
    flag.startsWith("--allow-read=") ? `--allow-read=${resolve(REPO, flag.slice(13))}` : flag
  );
  assert.deepEqual(resolved, printed);
  assert.deepEqual(words.slice(words.indexOf("examples/http/main.ts")), [
    "examples/http/main.ts",
    "-config",
    "examples/http/sample/config.json",
  ]);
});

const tasks = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))).tasks ?? {};
Deno.test({
  name: "deno.json's http and compile:http tasks are the ones these tests check",
  fn() {
    assert.equal(tasks.http, TASK_HTTP);
    assert.equal(tasks["compile:http"], TASK_COMPILE);
  },
});

test("compile:http --dry-run builds deno compile with the printed flags and the sample config embedded", async () => {
  const words = shellWords(TASK_COMPILE);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...words.slice(1), "--dry-run"],
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const sample = join(REPO, "examples/http/sample/config.json");
  const command = shellWords(stdout.trim());
  const printed = await printedPermissions({ script: SCRIPT, config: sample, cwd: REPO });
  assert.deepEqual(command, [
    "deno",
    "compile",
    "--no-prompt",
    "--v8-flags=--max-semi-space-size=8,--no-lazy",
    ...printed,
    "--include",
    sample,
    "--output",
    "dist/http",
    "examples/http/main.ts",
    "-config",
    sample,
  ]);
});

/** Splits a command line with single-quoted words, as `formatPermissionFlags` and the tasks write them. */
function shellWords(text: string): string[] {
  return [...text.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]);
}
