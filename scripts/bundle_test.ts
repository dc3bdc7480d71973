// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env
import assert from "node:assert/strict";
import { runTaskScript } from "./testdata/run_task_script.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bundle_task_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));
const perms: Deno.PermissionOptions = { run: true, read: [repo, tmp], write: [tmp], env: true };

const bundle = (args: string[]) => runTaskScript("bundle.ts", args);

Deno.test({
  name: "deno task bundle:hello-tool is the bundle task on the hello example",
  permissions: perms,
  async fn() {
    const { tasks } = JSON.parse(await Deno.readTextFile(join(repo, "deno.json")));
    assert.equal(tasks.bundle, "deno run --allow-run --allow-read --allow-env scripts/bundle.ts");
    assert.equal(tasks["bundle:hello-tool"], `${tasks.bundle} examples/hello-tool/main.ts`);
  },
});

Deno.test({
  name: "deno task bundle --dry-run prints the deno bundle command, then the run line, and writes nothing",
  permissions: perms,
  async fn() {
    const outdir = join(tmp, "dry");
    const out = await bundle(["examples/hello-tool/main.ts", "--outdir", outdir, "--dry-run"]);
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(out.stdout.trim().split("\n"), [
      `deno bundle --code-splitting --minify --outdir ${outdir} examples/hello-tool/main.ts`,
      `deno run --no-prompt --v8-flags=--max-semi-space-size=8,--no-lazy ${outdir}/main.js`,
    ]);
    await assert.rejects(Deno.stat(outdir), Deno.errors.NotFound);
  },
});

Deno.test({
  name: "deno task bundle writes the bundle, whose printed run line answers --health",
  permissions: perms,
  async fn() {
    const outdir = join(tmp, "built");
    const out = await bundle(["examples/hello-tool/main.ts", "--outdir", outdir]);
    assert.equal(out.code, 0, out.stderr);
    const [, runLine] = out.stdout.trim().split("\n");
    const words = runLine.split(" ");
    assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
    const health = await new Deno.Command(Deno.execPath(), { args: [...words.slice(1), "--health"] }).output();
    assert.equal(new TextDecoder().decode(health.stdout), "ok\n");
  },
});

Deno.test({
  name: "deno task bundle says in one line why it cannot bundle, with no stack trace, and exits 1",
  permissions: perms,
  async fn() {
    await Deno.writeTextFile(join(tmp, "a-file"), "");
    const failed = await bundle(["examples/hello-tool/main.ts", "--outdir", join(tmp, "a-file/out")]);
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout.trim().split("\n").length, 1, "the bundle command, and no run line");
    assert.match(failed.stderr, /^bundle: Cannot bundle "examples\/hello-tool\/main\.ts": .+\n$/);

    const unset = await bundle(["template/main.ts", "--config", "template/config/config.example.json", "--dry-run"]);
    assert.equal(unset.code, 1);
    assert.equal(unset.stdout, "");
    assert.match(
      unset.stderr,
      /^bundle: Cannot read the permissions of template\/main\.ts: .*\$\{NOTES_DIR\}, which is not set[^\n]*\n$/,
    );
    assert.doesNotMatch(unset.stderr, /\n\s+at /);
  },
});
