// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { printedPermissions } from "@forge/toolkit/permissions";
import { runDeno, type RunDenoResult, spawnServer } from "@forge/toolkit/testing";

const fixture = new URL("./testdata/config_server.ts", import.meta.url).pathname;

async function tree(config: Record<string, unknown>) {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const root = join(dir, "root");
  const cfgDir = join(dir, "config");
  await Deno.mkdir(root);
  await Deno.mkdir(cfgDir, { mode: 0o700 });
  const file = join(cfgDir, "fixture.json");
  await Deno.writeTextFile(file, JSON.stringify(config));
  return { dir, root, cfgDir, file, remove: () => Deno.remove(dir, { recursive: true }) };
}

function deno(args: string[], env: Record<string, string> = {}): Promise<RunDenoResult> {
  return runDeno({ args, env });
}

Deno.test("runWithConfig() serves with the config's exact flags, audits a pattern call and closes the Manager", async () => {
  const t = await tree({ root: "${ROOT}" });
  const audit = join(t.dir, "audit.jsonl");
  await Deno.writeTextFile(t.file, JSON.stringify({ root: "${ROOT}", audit_file: audit }));
  // A tenant folder without this server's file: -config is used, and the tenant file is looked for at every start.
  const tenants = join(t.dir, "tenants");
  await Deno.mkdir(tenants, { mode: 0o700 });
  const env = { ROOT: t.root, FORGE_TENANT_CONFIG: tenants };
  const flags = await printedPermissions({ script: fixture, config: t.file, env });
  const read = `--allow-read=${[audit, t.root, t.file, join(tenants, "fixture.json")].sort().join(",")}`;
  assert.deepEqual(flags, [read, `--allow-write=${audit}`, "--allow-env=FORGE_TENANT_CONFIG,ROOT"]);
  const server = await spawnServer({ args: [...flags, fixture, "-config", t.file], env });
  const root = await server.client.callTool({ name: "root", arguments: {} });
  assert.deepEqual(root.content, [{ type: "text", text: t.root }]);
  await server.client.callTool({ name: "mark", arguments: {} });
  assert.equal((await server.close()).code, 0);
  assert.match(server.stderr(), /fixture: manager closed/);
  assert.match(
    await Deno.readTextFile(audit),
    /"tool":"mark".*"outcome":"ok"/,
    "the audit trail was wired and flushed",
  );
  await t.remove();
});

Deno.test("runWithConfig() keeps the last good config when a reload drops or moves the audit file, and says to restart", async () => {
  const t = await tree({});
  const [audit, other, later] = ["audit.jsonl", "other.jsonl", "later"].map((name) => join(t.dir, name));
  await Deno.mkdir(later);
  // Atomically, as operators should: the server never reads half a file.
  const configure = async (config: Record<string, unknown>) => {
    await Deno.writeTextFile(`${t.file}.new`, JSON.stringify(config), { mode: 0o600 });
    await Deno.rename(`${t.file}.new`, t.file);
  };
  await configure({ root: t.root, audit_file: audit });
  const flags = [
    `--allow-read=${audit},${t.file},${t.root}`,
    `--allow-write=${audit}`,
    "--allow-env=FORGE_TENANT_CONFIG",
  ];
  const server = await spawnServer({ args: [...flags, fixture, "-config", t.file] });
  const root = async () =>
    ((await server.client.callTool({ name: "root", arguments: {} })).content as { text: string }[])[0].text;
  assert.equal(await root(), t.root);
  const refusals = [
    [{ root: later }, `from "${audit}" to stderr, which needs a restart`],
    [{ root: later, audit_file: other }, `from "${audit}" to "${other}", which needs a restart`],
  ] as const;
  for (const [config, line] of refusals) {
    await configure(config);
    assert.equal(await root(), t.root, "the config the trail started with stays");
    await server.waitForStderr(line);
  }
  // The server's own refuseReload: a version it refuses is not used either.
  await configure({ root: later, audit_file: audit, fixed: "other" });
  assert.equal(await root(), t.root, "the version the server refused is not used");
  await server.waitForStderr(
    `keeping the last good config: Cannot load config "${t.file}": it changes fixed, which needs a restart`,
  );
  // Relative to the working directory, the same file: this version is used.
  await configure({ root: later, audit_file: relative(Deno.cwd(), audit) });
  assert.equal(await root(), later);
  await server.client.callTool({ name: "mark", arguments: {} });
  assert.equal((await server.close()).code, 0);
  assert.match(await Deno.readTextFile(audit), /"tool":"mark"/, "the trail still writes where it started");
  await t.remove();
});

Deno.test("runWithConfig() ends with exit 1 and one stderr line when the config cannot be resolved or loaded", async () => {
  const t = await tree({});
  const missing = join(t.cfgDir, "nope.json");
  const crowded = join(t.cfgDir, "crowded.json");
  await Deno.writeTextFile(crowded, JSON.stringify({ fixed: [...Array(19).keys()] }));
  const cases = [
    {
      args: [`--allow-read=${t.cfgDir}`, fixture, "-config", missing],
      error: /^fixture: Cannot load config .*does not exist\n$/,
    },
    {
      args: [fixture, "-config", t.file, "-config", t.file],
      error: /^fixture: Cannot resolve config: .*more than once\n$/,
    },
    {
      // The server's configLimits reach the loader: 21 values is one past its maxValues.
      args: [`--allow-read=${t.cfgDir}`, fixture, "-config", crowded],
      error: /^fixture: Cannot load config .*: it holds more than 20 values \(maxValues\) at line 1, column \d+\n$/,
    },
    {
      args: [`--allow-read=${t.cfgDir}`, fixture, "-config", t.file, "--print-host-config", "emacs"],
      error: /^fixture: Cannot print host config: "emacs" is not one of claude, vscode/,
    },
  ];
  for (const { args, error } of cases) {
    const out = await deno(args);
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, error);
    assert.equal(out.stdout, "");
  }
  await t.remove();
});

Deno.test("--print-permissions skips the config folder's safety check and builds no Manager; serving keeps the check", async () => {
  const t = await tree({ root: "/srv/data" });
  await Deno.chmod(t.cfgDir, 0o777);
  const printed = await deno([`--allow-read=${t.cfgDir}`, fixture, "-config", t.file, "--print-permissions"]);
  // Printing reads the folder (it may) but neither checks nor logs: printing grants nothing.
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(printed.stdout, `--allow-read=/srv/data,${t.file} --allow-env=FORGE_TENANT_CONFIG\n`);
  assert.equal(printed.stderr, "", "no Manager was built, so none was closed");
  // Serving checks the folder's mode whenever it may read the folder.
  const served = await deno([
    `--allow-read=/srv/data,${t.cfgDir}`,
    fixture,
    "-config",
    t.file,
    "--allow-excess-permissions",
  ]);
  assert.equal(served.code, 1);
  assert.match(served.stderr, /^fixture: Cannot load config .*writable/);
  await t.remove();
});

Deno.test("--print-permissions prints the values of the config's ${VAR}s, so the line starts the server as captured", async () => {
  const t = await tree({});
  // "config" is also a folder name in the config file's path: a printed line that hid values would garble it.
  await Deno.writeTextFile(t.file, JSON.stringify({ root: "${ROOT}", token: "${TOKEN}" }));
  const env = { ROOT: t.root, TOKEN: "config" };
  const out = await deno(
    [`--allow-read=${t.file}`, "--allow-env=ROOT,TOKEN", fixture, "-config", t.file, "--print-permissions"],
    env,
  );
  assert.equal(out.code, 0, out.stderr);
  assert.equal(
    out.stdout,
    `--allow-read=${[t.root, t.file].sort().join(",")} --allow-env=FORGE_TENANT_CONFIG,ROOT,TOKEN\n`,
  );
  // As `flags=$(… --print-permissions)` then `deno run $flags …` would use it.
  const server = await spawnServer({ args: [...out.stdout.trim().split(" "), fixture, "-config", t.file], env });
  assert.deepEqual((await server.client.callTool({ name: "root", arguments: {} })).content, [
    { type: "text", text: t.root },
  ]);
  assert.equal((await server.close()).code, 0);
  await t.remove();
});

Deno.test("--print-permissions refuses in one line naming the variable when it is unset or the printing run may not read it", async () => {
  const t = await tree({ root: "${ROOT}" });
  const print = ["-config", t.file, "--print-permissions"];
  const cases: { args: string[]; env: Record<string, string>; says: string }[] = [
    {
      args: [`--allow-read=${t.file}`, fixture, ...print],
      env: { ROOT: t.root },
      says: "root: uses ${ROOT}, which this process may not read (grant --allow-env=ROOT)",
    },
    {
      args: [`--allow-read=${t.file}`, "--allow-env=ROOT", fixture, ...print],
      env: {},
      says: "root: uses ${ROOT}, which is not set",
    },
  ];
  for (const { args, env, says } of cases) {
    const out = await deno(args, env);
    assert.equal(out.code, 1, out.stderr);
    assert.equal(out.stdout, "", "no flag is printed");
    assert.equal(out.stderr.trimEnd().split("\n").length, 1, out.stderr);
    assert.ok(out.stderr.startsWith("fixture: Cannot load config") && out.stderr.includes(says), out.stderr);
  }
  await t.remove();
});

Deno.test("runWithConfig() hides a variable's value in the one line of a policy that refused it, serving or printing", async () => {
  const t = await tree({ root: "${ROOT}" });
  // A comma cannot be granted as a flag: definePolicy() refuses the root and quotes it.
  const env = { ROOT: `${t.root}/s3cret-part,of-it` };
  for (const extra of [[], ["--print-permissions"]]) {
    const out = await deno([`--allow-read=${t.cfgDir}`, "--allow-env=ROOT", fixture, "-config", t.file, ...extra], env);
    assert.equal(out.code, 1, out.stderr);
    assert.equal(
      out.stderr,
      'fixture: Cannot define policy: readRoots path "${ROOT}" contains a NUL byte or a comma\n',
    );
  }
  await t.remove();
});

Deno.test("--print-host-config claude prints an entry that starts the server as pasted, and never a secret", async () => {
  const t = await tree({ root: "${ROOT}", token: "${TOKEN}" });
  const env = { ROOT: t.root, TOKEN: "s3cret-value" };
  const out = await deno(
    [`--allow-read=${t.cfgDir}`, "--allow-env=ROOT,TOKEN", fixture, "-config", t.file, "--print-host-config", "claude"],
    env,
  );
  assert.equal(out.code, 0, out.stderr);
  assert.ok(!out.stdout.includes("s3cret-value"), "a secret's value is never printed");
  const entry = JSON.parse(out.stdout).mcpServers.fixture;
  // A Deno that lives in npx's cache (as a `deno` installed through npx does) is named through npx.
  const throughNpx = /[\\/]_npx[\\/]/.test(Deno.execPath());
  assert.equal(entry.command, throughNpx ? "npx" : Deno.execPath());
  const args: string[] = throughNpx ? entry.args.slice(2) : entry.args;
  assert.deepEqual(args, [
    "run",
    "--quiet",
    "--no-prompt",
    "--v8-flags=--max-semi-space-size=8,--no-lazy",
    `--allow-read=${[t.root, t.file].sort().join(",")}`,
    "--allow-env=FORGE_TENANT_CONFIG,ROOT,TOKEN",
    fixture,
    "-config",
    t.file,
  ]);
  assert.deepEqual(entry.env, { ROOT: t.root, TOKEN: "<the value of TOKEN>" });
  // The operator fills in the placeholder; everything else is used as printed.
  const server = await spawnServer({ args: args.slice(1), env: { ...entry.env, TOKEN: "s3cret-value" } });
  const root = await server.client.callTool({ name: "root", arguments: {} });
  assert.deepEqual(root.content, [{ type: "text", text: t.root }]);
  assert.equal((await server.close()).code, 0);
  await t.remove();
});

Deno.test("--print-host-config=vscode --npx prints a VS Code entry that runs the pinned Deno through npx", async () => {
  const t = await tree({ root: "/srv/data" });
  const out = await deno([
    `--allow-read=${t.cfgDir}`,
    fixture,
    `--config=${t.file}`,
    "--print-host-config=vscode",
    "--npx",
  ]);
  assert.equal(out.code, 0, out.stderr);
  const entry = JSON.parse(out.stdout).servers.fixture;
  assert.equal(entry.type, "stdio");
  assert.equal(entry.command, "npx");
  assert.deepEqual(entry.args.slice(0, 3), ["-y", `deno@${Deno.version.deno}`, "run"]);
  assert.deepEqual(entry.env, {});
  await t.remove();
});

Deno.test("--print-host-config refuses a file grant of the root as --print-permissions does, printing nothing", async () => {
  // Before, `"audit_file": "/"` printed a host entry with `--allow-read=/,… --allow-write=/`.
  const t = await tree({ root: "/srv/data", audit_file: "/" });
  const out = await deno([`--allow-read=${t.cfgDir}`, fixture, "-config", t.file, "--print-host-config", "claude"]);
  assert.equal(out.code, 1, out.stderr);
  assert.equal(out.stdout, "");
  assert.match(out.stderr, /^fixture: Cannot print host config: its policy grants "\/" as a file \(writeFiles\)/);
  await t.remove();
});
