// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// The attack kit against the git server, started with exactly the flags it
// prints, in both protocol eras. Both repositories get a hostile
// .git/config (core.fsmonitor, core.hooksPath, diff.external, a pager…)
// whose programs leave a file in the kit's canary folder if git runs them;
// the read tools work on the read-only repository, where nothing may change;
// git_commit changes only the writable one.
import { printedPermissions } from "@forge/toolkit/permissions";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

Deno.test("the git server survives the attack kit under its printed flags, in repositories with a hostile config", async () => {
  const tree = await makeE2eTree();
  const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
  const target = subprocessTarget({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO, name: "git" });
  const docs = { repo: "docs" };
  const report = await attack(target, {
    watch: [tree.base],
    repositories: [tree.app, tree.docs],
    writable: [tree.app],
    // Each call runs git: a share of the argument cases per run keeps the gate fast; the seed varies it.
    maxCasesPerTool: 24,
    valid: {
      git_status: docs,
      git_log: { ...docs, max_count: 2 },
      git_show: { ...docs, rev: "HEAD" },
      git_diff: { ...docs, from: "HEAD~1" },
      git_grep: { ...docs, pattern: "greet" },
      git_blame: { ...docs, path: "README.md" },
      git_commit: { repo: "app", message: "forge attack", paths: ["README.md"] },
    },
  });
  assertNoFindings(report);
  await tree.end();
});
