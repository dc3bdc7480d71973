// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// End to end: the server as a real subprocess, started with exactly the flags
// it prints, driven by the official SDK client over its real stdio.
import assert from "node:assert/strict";
import { join } from "node:path";
import { probe, runDeno, type RunDenoResult } from "@forge/toolkit/testing";
import { printedTrees, serveUnderPrintedFlags, textOf } from "../served.ts";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "/usr/bin/git"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};

const tree = makeE2eTree;

/** A tree and the flags printed for its config, shared by the tests that only read them (removed at exit). */
const printedTree = printedTrees(SCRIPT, () => tree());

function denoRun(args: string[]): Promise<RunDenoResult> {
  return runDeno({ args, cwd: REPO });
}

Deno.test({
  name: "--print-permissions grants the config file, the repositories, and runs exactly git and kill",
  permissions: perms,
  async fn() {
    const { tree: t, flags } = await printedTree();
    assert.deepEqual(flags, [
      `--allow-read=${t.app},${t.docs},${t.config}`,
      "--allow-env=FORGE_TENANT_CONFIG",
      "--allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid",
    ]);
  },
});

Deno.test({
  name: "the git server refuses to serve with -A or an unscoped --allow-run (exit 2)",
  permissions: perms,
  async fn() {
    // The tree and flags of the test above: neither run writes to it.
    const { tree: t, flags } = await printedTree();
    const all = await denoRun(["-A", SCRIPT, "-config", t.config]);
    assert.equal(all.code, 2, all.stderr);
    const wide = flags.map((f) => f.startsWith("--allow-run=") ? "--allow-run" : f);
    const run = await denoRun([...wide, SCRIPT, "-config", t.config]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /unscoped --allow-run/);
  },
});

Deno.test({
  name:
    "every git tool works over real stdio under the printed flags; refusals are isError; commits are probed and audited",
  permissions: perms,
  async fn(t) {
    const dirs = await tree();
    const { server, call, ok, refused } = await serveUnderPrintedFlags(SCRIPT, dirs.config);
    try {
      await t.step("tools/list", async () => {
        const { tools } = await server.client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name), [
          "git_status",
          "git_log",
          "git_show",
          "git_diff",
          "git_grep",
          "git_blame",
          "git_commit",
        ]);
      });
      await t.step("read-only tools", async () => {
        await Deno.writeTextFile(join(dirs.app, "README.md"), "# changed\n");
        assert.match(await ok("git_status", { repo: "app" }), /^## main\n M README\.md$/m);
        assert.match(await ok("git_log", { repo: "app", max_count: 1 }), /greet\(\): end with an exclamation mark/);
        assert.match(await ok("git_log", { repo: "app", path: "README.md" }), /Add a README/);
        assert.match(await ok("git_show", { repo: "app", rev: "HEAD~1", path: "src/greet.ts" }), /Hello, \$\{name\}`/);
        assert.match(await ok("git_diff", { repo: "app" }), /^\+# changed$/m);
        assert.match(await ok("git_diff", { repo: "app", from: "HEAD~2", to: "HEAD" }), /src\/greet\.ts/);
        assert.match(await ok("git_grep", { repo: "app", pattern: "Hello", ref: "HEAD" }), /^HEAD:src\/greet\.ts:2:/m);
        assert.equal(await ok("git_grep", { repo: "app", pattern: "no such text" }), "");
        assert.match(await ok("git_blame", { repo: "app", path: "src/greet.ts" }), /Sample Author/);
      });
      await t.step("refusals", async () => {
        await refused("git_log", { repo: "app", ref: "--output=/tmp/x" }, /may not start with "-"/);
        await refused("git_show", { repo: "app", rev: "-p" }, /may not start with "-"/);
        await refused("git_blame", { repo: "app", path: "../../etc/passwd" }, /leaves the repository's work tree/);
        await refused("git_status", { repo: dirs.app }, /not a configured repository/);
        await refused("git_show", { repo: "app", rev: "no-such-branch" }, /names no object in repo "app"/);
        await refused("git_commit", { repo: "docs", message: "m", paths: ["README.md"] }, /read-only/);
      });
      await t.step("git_commit: probe first (nothing committed), then commit, audited", async () => {
        const args = { repo: "app", message: "Change the README", paths: ["README.md"] };
        const { patterns } = await probe(server.client, "git_commit", args);
        assert.deepEqual(patterns, ["commit:app"]);
        assert.doesNotMatch(await ok("git_log", { repo: "app", max_count: 1 }), /Change the README/);
        const done = await call("git_commit", args);
        const outcome = done.structuredContent as { repo: string; commit: string; paths: string[] } | undefined;
        assert.equal(outcome?.repo, "app", textOf(done));
        assert.match(outcome?.commit ?? "", /^[0-9a-f]{40}$/);
        assert.match(await ok("git_log", { repo: "app", max_count: 1 }), /Change the README/);
        const audit = server.stderr().split("\n").filter((line) => line.startsWith("{")).map((l) => JSON.parse(l));
        assert.ok(audit.some((r) => r.tool === "git_commit" && r.outcome === "ok"), server.stderr());
        assert.ok(audit.some((r) => r.tool === "git_commit" && r.outcome === "probe"));
        assert.ok(!server.stderr().includes("Change the README"), "argument values never reach the audit trail");
      });
    } finally {
      const status = await server.close();
      assert.equal(status.code, 0);
      for (const line of server.lines) JSON.parse(line);
      await dirs.end();
    }
  },
});
