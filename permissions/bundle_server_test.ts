// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env},NOTES_DIR
// The real `deno bundle` (it runs esbuild, which it fetches from the npm
// registry on first use and keeps in DENO_DIR), then the bundle started by the
// printed run line as a real subprocess over real stdio.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDeno, spawnServer } from "../testing/mod.ts";
import { bundleServer, type BundleServerResult } from "./bundle_server.ts";
import { printedPermissions } from "./printed_permissions.ts";
import { RUNTIME_FLAGS } from "./runtime_flags.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bundle_server_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));
const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [repo, tmp], write: [tmp], env: "inherit" };
const SHARED = { permissions: perms, sanitizeOps: false, sanitizeResources: false };

const hello = `${repo}examples/hello-tool/main.ts`;
const http = `${repo}examples/http/main.ts`;
const httpConfig = `${repo}examples/http/sample/config.json`;

/** Bundles each entry once for the tests that share it. */
const built = new Map<string, Promise<BundleServerResult>>();
function bundled(entry: string, config?: string): Promise<BundleServerResult> {
  if (!built.has(entry)) {
    const outdir = join(tmp, `${built.size}.bundle`);
    built.set(entry, bundleServer({ entry, config, outdir }));
  }
  return built.get(entry)!;
}

/** The run line's words after `deno run`, for the test helpers, which start `deno run --quiet`. */
function afterRun(result: BundleServerResult): string[] {
  assert.deepEqual(result.run.slice(0, 3), ["deno", "run", "--no-prompt"]);
  return result.run.slice(2);
}

/**
 * The files a module's static imports reach, itself included: `import … from "./x.js"`, `import "./x.js"` and
 * `export … from "./x.js"` statements, as esbuild writes them at the start of a line; `import()` is not followed.
 */
async function staticClosure(dir: string, entry: string): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const next = [entry];
  while (next.length > 0) {
    const file = next.pop()!;
    if (found.has(file)) continue;
    const text = await Deno.readTextFile(join(dir, file));
    // Static imports and re-exports, formatted or minified (`import{a as b}from"./c.js";`); never `import("…")`.
    const specifiers = [...text.matchAll(/(?:^|;)\s*(?:import|export)\s*(?:[^;"()]*?from\s*)?"([^"]+)"/gm)].map((m) =>
      m[1]
    );
    found.set(file, specifiers);
    next.push(...specifiers.filter((s) => s.startsWith("./")).map((s) => s.slice(2)));
  }
  return found;
}

Deno.test({
  ...SHARED,
  name: "a bundled hello-tool started by the printed run line answers initialize, tools/list and tools/call",
  async fn() {
    const result = await bundled(hello);
    assert.equal(result.error, undefined);
    assert.equal(result.built, true);
    assert.deepEqual(result.run, ["deno", "run", "--no-prompt", ...RUNTIME_FLAGS, join(tmp, "0.bundle/main.js")]);
    const server = await spawnServer({ args: afterRun(result) });
    try {
      assert.equal(server.client.getServerVersion()?.name, "hello");
      const { tools } = await server.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["hello"]);
      const answer = await server.client.callTool({ name: "hello", arguments: { name: "Ann" } });
      assert.deepEqual(answer.content, [{ type: "text", text: "Hello, Ann!" }]);
      assert.notEqual(answer.isError, true);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  ...SHARED,
  name: "a bundled hello-tool answers --health with ok, and refuses to serve (exit 2) with one grant more than printed",
  async fn() {
    const args = afterRun(await bundled(hello));
    const health = await runDeno({ args: [...args, "--health"] });
    assert.equal(health.code, 0, health.stderr);
    assert.equal(health.stdout, "ok\n");
    // It needs no permission, so a scoped grant is revoked whole; an unscoped one is refused.
    const excess = await runDeno({ args: ["--allow-env", ...args] });
    assert.equal(excess.code, 2, excess.stderr);
    assert.match(excess.stderr, /refusing to serve: .*more permissions than its policy needs \(unscoped --allow-env\)/);
    assert.equal(excess.stdout, "");
  },
});

Deno.test({
  ...SHARED,
  name: "a bundled hello-tool keeps node: modules out of its entry's static imports (node:crypto stays lazy)",
  async fn() {
    const { run } = await bundled(hello);
    const dir = join(tmp, "0.bundle");
    assert.equal(run.at(-1), join(dir, "main.js"));
    const closure = await staticClosure(dir, "main.js");
    assert.ok(closure.size > 1, `the entry imports chunks statically: ${[...closure.keys()]}`);
    const eager = [...closure].flatMap(([file, specifiers]) =>
      specifiers.filter((s) => s.startsWith("node:")).map((s) => `${file}: ${s}`)
    );
    assert.deepEqual(eager, []);
    // The scan sees node: imports where they are: node:crypto is in the bundle, in a chunk only import() reaches.
    const all = await Promise.all(
      [...Deno.readDirSync(dir)].map(async ({ name }) => [name, await Deno.readTextFile(join(dir, name))]),
    );
    const crypto = all.filter(([, text]) => /(?:^|;)\s*import\s*[^;"()]*?from\s*"node:crypto"/m.test(text)).map((
      [name],
    ) => name);
    assert.equal(crypto.length, 1, "one chunk imports node:crypto");
    assert.ok(!closure.has(crypto[0]), `${crypto[0]} is reached only by import()`);
  },
});

Deno.test({
  ...SHARED,
  name: "a bundled config server prints the source's flags, keeps layer 1 and refuses one grant more (exit 2)",
  async fn() {
    const result = await bundled(http, httpConfig);
    assert.equal(result.error, undefined);
    const source = await printedPermissions({ script: http, config: httpConfig });
    assert.ok(source.length >= 3, source.join(" "));
    const script = join(tmp, "1.bundle/main.js");
    assert.deepEqual(result.run, [
      "deno",
      "run",
      "--no-prompt",
      ...RUNTIME_FLAGS,
      ...source,
      script,
      "-config",
      httpConfig,
    ]);
    assert.deepEqual(await printedPermissions({ script, config: httpConfig }), source);

    const server = await spawnServer({ args: afterRun(result) });
    try {
      // Layer 1: refused by the policy code before any connection (http is not an allowed scheme).
      const refused = await server.client.callTool({ name: "fetch_url", arguments: { url: "http://example.com/" } });
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /the scheme \\"http\\" is not allowed/);
    } finally {
      await server.close();
    }
    // A kind the server reads in part: a grant of /etc beside its files is seen (one of write, which it never uses,
    // would be revoked whole rather than refused).
    const excess = await runDeno({ args: [afterRun(result)[0], "--allow-read=/etc", ...afterRun(result).slice(1)] });
    assert.equal(excess.code, 2, excess.stderr);
    assert.match(excess.stderr, /more permissions than its policy needs \(read "\/etc"[;)]/);
  },
});

Deno.test({
  ...SHARED,
  name: "bundleServer() with dryRun works out both commands for a config server: scoped flags, absolute paths",
  async fn() {
    const entry = `${repo}template/main.ts`;
    const config = `${repo}template/config/config.example.json`;
    const outdir = join(tmp, "never");
    Deno.env.set("NOTES_DIR", `${repo}template`);
    try {
      const result = await bundleServer({ entry, config, outdir, dryRun: true });
      assert.equal(result.built, false);
      assert.equal(result.error, undefined);
      assert.deepEqual(result.command, ["deno", "bundle", "--code-splitting", "--minify", "--outdir", outdir, entry]);
      assert.deepEqual(result.run, [
        "deno",
        "run",
        "--no-prompt",
        ...RUNTIME_FLAGS,
        `--allow-read=${repo}template,${config}`,
        `--allow-write=${repo}template`,
        "--allow-env=FORGE_TENANT_CONFIG,NOTES_DIR",
        join(outdir, "main.js"),
        "-config",
        config,
      ]);
      assert.equal(result.commandLine, result.command.join(" "), "no word needs quoting");
      assert.equal(result.runLine, result.run.join(" "), "no word needs quoting");
      await assert.rejects(Deno.stat(outdir), Deno.errors.NotFound, "a dry run writes nothing");
    } finally {
      Deno.env.delete("NOTES_DIR");
    }
  },
});

Deno.test({
  ...SHARED,
  name: "bundleServer() defaults the output to dist/<entry's folder>.bundle, resolved, in the run line too",
  async fn() {
    const result = await bundleServer({ entry: hello, dryRun: true });
    const outdir = join(Deno.cwd(), "dist/hello-tool.bundle");
    assert.deepEqual(result.command.slice(-3), ["--outdir", outdir, hello]);
    assert.deepEqual(result.run, ["deno", "run", "--no-prompt", ...RUNTIME_FLAGS, join(outdir, "main.js")]);
  },
});

Deno.test({
  ...SHARED,
  name: "bundleServer() refuses a server that prints an unscoped flag, in one line, and bundles nothing",
  async fn() {
    const outdir = join(tmp, "unscoped");
    await assert.rejects(
      bundleServer({ entry: `${repo}permissions/testdata/unscoped_flags.ts`, outdir }),
      (err) =>
        err instanceof TypeError && err.message === 'Cannot bundle: "--allow-read" is not a scoped permission flag',
    );
    await assert.rejects(Deno.stat(outdir), Deno.errors.NotFound);
  },
});

Deno.test({
  ...SHARED,
  name: "bundleServer() refuses a server that cannot print its permissions (a ${VAR} of its config is unset)",
  async fn() {
    Deno.env.delete("NOTES_DIR");
    await assert.rejects(
      bundleServer({
        entry: `${repo}template/main.ts`,
        config: `${repo}template/config/config.example.json`,
        outdir: join(tmp, "unset"),
      }),
      /^Error: Cannot read the permissions of .*template\/main\.ts: .*\$\{NOTES_DIR\}, which is not set/s,
    );
  },
});

Deno.test({
  ...SHARED,
  name: "bundleServer() reports a failed deno bundle as one line without the banner or a backtrace",
  async fn() {
    const file = join(tmp, "a-file");
    await Deno.writeTextFile(file, "");
    const result = await bundleServer({ entry: hello, outdir: join(file, "out") });
    assert.equal(result.built, false);
    assert.ok(result.error !== undefined);
    assert.match(result.error, /^Cannot bundle ".*examples\/hello-tool\/main\.ts": \S/);
    assert.doesNotMatch(result.error, /\n|experimental|backtrace|error: /i);
    assert.deepEqual(result.command.slice(-3), ["--outdir", join(file, "out"), hello]);
  },
});
