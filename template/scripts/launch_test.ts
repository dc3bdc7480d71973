// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=PATH
// The tasks take the server's flags from the server itself, for the config in
// use: a config that starts using a new variable needs no edit of deno.json.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServer } from "@forge/toolkit/testing";
import { shellQuote as sh } from "@forge/toolkit/permissions";

const project = fileURLToPath(new URL("..", import.meta.url));
const LAUNCHER = ["--allow-read", "--allow-env", "--allow-run", "scripts/launch.ts"];

/** A config of its own folder that also uses ${DOCS_DIR}, which config.example.json does not. */
async function docsConfig() {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const [notes, docs, configDir] = ["notes", "docs", "config"].map((name) => join(dir, name));
  for (const folder of [notes, docs, configDir]) await Deno.mkdir(folder, { mode: 0o700 });
  const config = join(configDir, "docs.json");
  await Deno.writeTextFile(
    config,
    JSON.stringify({ notes_dir: "${NOTES_DIR}", audit_file: "${DOCS_DIR}/audit.jsonl" }),
  );
  return { dir, notes, docs, configDir, config, env: { NOTES_DIR: notes, DOCS_DIR: docs } };
}

async function task(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", ...args],
    cwd: project,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("deno task permissions prints the flags of the config in use, ${DOCS_DIR} included, by their values", async () => {
  const t = await docsConfig();
  const out = await task(["permissions", `--config=${t.config}`], t.env);
  assert.equal(out.code, 0, out.stderr);
  const [read, write, env] = out.stdout.replaceAll("'", "").trim().split(" ");
  const audit = join(t.docs, "audit.jsonl");
  assert.deepEqual(read.slice("--allow-read=".length).split(",").sort(), [audit, t.notes, t.config].sort());
  assert.equal(write, `--allow-write=${[audit, t.notes].sort().join(",")}`);
  assert.equal(env, "--allow-env=DOCS_DIR,FORGE_TENANT_CONFIG,NOTES_DIR");
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("deno task start serves over real stdio with the flags the server printed, and audits into ${DOCS_DIR}", async () => {
  const t = await docsConfig();
  const server = await spawnServer({ args: [...LAUNCHER, "start", `--config=${t.config}`], env: t.env, cwd: project });
  await server.client.callTool({ name: "write_note", arguments: { name: "plan", content: "ship it" } });
  assert.equal(await Deno.readTextFile(join(t.notes, "plan.md")), "ship it");
  // The launcher's one child is the server, started with RUNTIME_FLAGS before its permission flags.
  // Read through cat: Deno lets no permission short of --allow-all read /proc.
  const cat = async (path: string) =>
    new TextDecoder().decode((await new Deno.Command("cat", { args: [path], stderr: "inherit" }).output()).stdout);
  const pid = server.process.pid;
  const children = (await cat(`/proc/${pid}/task/${pid}/children`)).trim().split(" ");
  assert.equal(children.length, 1, "one child");
  const argv = (await cat(`/proc/${children[0]}/cmdline`)).split("\0");
  assert.deepEqual(argv.slice(1, 5), ["run", "--quiet", "--no-prompt", "--v8-flags=--max-semi-space-size=8,--no-lazy"]);
  assert.match(argv[5], /^--allow-/);
  assert.deepEqual(argv.slice(-4, -1), [join(project, "main.ts"), "-config", t.config]);
  assert.equal((await server.close()).code, 0);
  assert.match(await Deno.readTextFile(join(t.docs, "audit.jsonl")), /"tool":"write_note"/);
  assert.ok(server.lines.every((line) => JSON.parse(line).jsonrpc === "2.0"), "stdout carries JSON-RPC only");
  await Deno.remove(t.dir, { recursive: true });
});

/** The argv of the launcher's one child (the server under `start`), read through cat: Deno lets no permission short of
 * --allow-all read /proc. */
async function childArgv(pid: number): Promise<string[]> {
  const cat = async (path: string) =>
    new TextDecoder().decode((await new Deno.Command("cat", { args: [path], stderr: "inherit" }).output()).stdout);
  const children = (await cat(`/proc/${pid}/task/${pid}/children`)).trim().split(" ");
  assert.equal(children.length, 1, "one child");
  return (await cat(`/proc/${children[0]}/cmdline`)).split("\0");
}

Deno.test("deno task permissions prints the flags deno task start runs with, when FORGE_TENANT_CONFIG names a tenant file too", async () => {
  // The tenant's own file wins over --config (configreload's order): printed and run alike, never one of each.
  const t = await docsConfig();
  const [tenants, wide] = [join(t.dir, "tenants"), join(t.dir, "wide")];
  await Deno.mkdir(tenants, { mode: 0o700 });
  await Deno.mkdir(wide, { mode: 0o700 });
  await Deno.writeTextFile(join(tenants, "my-server.json"), JSON.stringify({ notes_dir: wide }), { mode: 0o600 });
  const env = { ...t.env, FORGE_TENANT_CONFIG: tenants };
  const printed = await task(["permissions", `--config=${t.config}`], env);
  assert.equal(printed.code, 0, printed.stderr);
  const server = await spawnServer({ args: [...LAUNCHER, "start", `--config=${t.config}`], env, cwd: project });
  const argv = await childArgv(server.process.pid);
  const flags = argv.slice(
    argv.indexOf("--v8-flags=--max-semi-space-size=8,--no-lazy") + 1,
    argv.indexOf(join(project, "main.ts")),
  );
  assert.equal(printed.stdout.trim(), flags.map(sh).join(" "));
  assert.ok(flags.includes(`--allow-write=${wide}`), flags.join(" "));
  assert.equal((await server.close()).code, 0);
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("deno task inspect hands the Inspector the server's variables in a file only this user may read, never in argv", async () => {
  // npx is found through PATH: a script first on it records its argv and the session file's modes, then runs npx.
  const t = await docsConfig();
  const bin = join(t.dir, "bin");
  await Deno.mkdir(bin);
  const record = join(t.dir, "npx-argv");
  await Deno.writeTextFile(
    join(bin, "npx"),
    `#!/bin/sh
printf '%s\\0' "$@" > '${record}'
previous=
for arg in "$@"; do
  if [ "$previous" = --config ]; then stat -c '%a' "$(dirname "$arg")" "$arg" > '${record}.modes'; fi
  previous=$arg
done
PATH="\${PATH#*:}" exec npx "$@"
`,
    { mode: 0o700 },
  );
  const env = { ...t.env, PATH: `${bin}:${Deno.env.get("PATH")}` };
  const out = await task(["inspect", `--config=${t.config}`, "--cli", "--method", "tools/list"], env);
  assert.equal(out.code, 0, out.stderr);
  // The server started, so it had NOTES_DIR and DOCS_DIR.
  assert.ok(JSON.parse(out.stdout).tools.some((tool: { name: string }) => tool.name === "write_note"), out.stdout);
  const argv = (await Deno.readTextFile(record)).split("\0").slice(0, -1);
  assert.deepEqual(argv.slice(0, 3), ["-y", "@modelcontextprotocol/inspector@2.12.0", "--cli"], "the mode flag first");
  for (const value of Object.values(t.env)) {
    assert.ok(argv.every((arg) => !arg.includes(value)), `${value} in argv: ${argv.join(" ")}`);
  }
  assert.deepEqual((await Deno.readTextFile(`${record}.modes`)).trim().split("\n"), ["700", "600"]);
  const session = argv[argv.indexOf("--config") + 1];
  await assert.rejects(Deno.stat(session), Deno.errors.NotFound, "removed once the Inspector exits");
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("deno task start with a variable unset stops with one line naming it, before serving", async () => {
  const t = await docsConfig();
  const out = await task(["start", `--config=${t.config}`], { NOTES_DIR: t.notes });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /audit_file: uses \$\{DOCS_DIR\}, which is not set/);
  assert.doesNotMatch(out.stderr, /^\s+at /m, "no stack trace");
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("deno task host-config vscode prints an entry with resolved flags and the variables' names", async () => {
  const t = await docsConfig();
  const out = await task(["host-config", "vscode", `--config=${t.config}`], t.env);
  assert.equal(out.code, 0, out.stderr);
  const entry = JSON.parse(out.stdout).servers["my-server"];
  assert.equal(entry.type, "stdio");
  assert.ok(entry.args.includes(`--allow-write=${t.docs}/audit.jsonl,${t.notes}`), entry.args.join(" "));
  assert.deepEqual(Object.keys(entry.env).sort(), ["DOCS_DIR", "NOTES_DIR"]);
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("the launcher refuses an unknown task with one line and exit 64", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...LAUNCHER, "serve"],
    cwd: project,
    stderr: "piped",
  }).output();
  assert.equal(out.code, 64);
  assert.match(new TextDecoder().decode(out.stderr), /^Cannot launch: "serve" is not one of start, dev, inspect/);
});

Deno.test("the launcher refuses a config path with a comma, which a permission flag would split, with one line and exit 64", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...LAUNCHER, "permissions", "--config=/tmp/a,/etc/b.json"],
    cwd: project,
    stderr: "piped",
  }).output();
  assert.equal(out.code, 64);
  assert.equal(
    new TextDecoder().decode(out.stderr),
    'Cannot launch: the config path "/tmp/a,/etc/b.json" contains a NUL byte or a comma\n',
  );
});

Deno.test("deno task compile --dry-run builds deno compile from the flags the server printed, config embedded", async () => {
  const t = await docsConfig();
  const out = await task(["compile", `--config=${t.config}`, "--dry-run"], t.env);
  assert.equal(out.code, 0, out.stderr);
  const line = out.stdout.trim();
  assert.match(line, /^deno compile --no-prompt --v8-flags=--max-semi-space-size=8,--no-lazy --allow-/);
  assert.ok(line.includes(`--allow-env=DOCS_DIR,FORGE_TENANT_CONFIG,NOTES_DIR`), line);
  assert.ok(line.includes(`--include ${t.config}`), line);
  assert.ok(line.endsWith(`${sh(`${project}main.ts`)} -config ${t.config}`), line);
  assert.ok(line.includes(`--output ${sh(`${project}dist/my-server`)}`), line);
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("deno task compile refuses in one line when a ${VAR} of the config is unset", async () => {
  const t = await docsConfig();
  const out = await task(["compile", `--config=${t.config}`, "--dry-run"], { NOTES_DIR: t.notes });
  assert.equal(out.code, 1);
  assert.match(out.stderr.trim(), /\$\{DOCS_DIR\}, which is not set$/);
  assert.doesNotMatch(out.stderr, /\n\s+at /);
  await Deno.remove(t.dir, { recursive: true });
});

Deno.test("deno task bundle --dry-run prints deno bundle, then the run line with the printed flags and the config", async () => {
  const t = await docsConfig();
  const out = await task(["bundle", `--config=${t.config}`, "--dry-run"], t.env);
  assert.equal(out.code, 0, out.stderr);
  const [bundle, run, ...more] = out.stdout.trim().split("\n");
  assert.deepEqual(more, []);
  assert.equal(
    bundle,
    `deno bundle --code-splitting --minify --outdir ${sh(`${project}dist/my-server.bundle`)} ${
      sh(`${project}main.ts`)
    }`,
  );
  assert.match(
    run,
    /^deno run --no-prompt --v8-flags=--max-semi-space-size=8,--no-lazy --allow-read=\S+ --allow-write=\S+ /,
  );
  assert.ok(run.includes(" --allow-env=DOCS_DIR,FORGE_TENANT_CONFIG,NOTES_DIR "), run);
  assert.ok(run.endsWith(` ${sh(`${project}dist/my-server.bundle/main.js`)} -config ${t.config}`), run);
  await assert.rejects(Deno.stat(join(project, "dist/my-server.bundle")), Deno.errors.NotFound, "nothing written");
  await Deno.remove(t.dir, { recursive: true });
});
