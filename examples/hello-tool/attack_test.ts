// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// The attack kit against the hello server, started with exactly the flags it
// prints (none: it needs no permission), in both protocol eras.
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";

const SCRIPT = fileURLToPath(new URL("./main.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));

Deno.test("the hello server survives the attack kit under its printed flags", async () => {
  const flags = await printedPermissions({ script: SCRIPT, cwd: REPO });
  const report = await attack(subprocessTarget({ args: [...flags, SCRIPT], cwd: REPO, name: "hello" }));
  assertNoFindings(report);
});
