// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// The attack kit against the sqlite server, started with exactly the flags it
// prints, in both protocol eras: read-only, where the database file must not
// change at all, and writable, where only execute may change it, and never
// from a probe. The kit's canary database and folder lie outside both.
import { printedPermissions } from "@forge/toolkit/permissions";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const VALID = {
  run_query: { sql: "SELECT name, price_cents FROM products WHERE id = ?", params: [1] },
  describe_table: { table: "products" },
  execute: { sql: "UPDATE products SET price_cents = price_cents WHERE id = ?", params: [1] },
};

for (const writable of [false, true]) {
  Deno.test(`the ${writable ? "writable" : "read-only"} sqlite server survives the attack kit under its printed flags`, async () => {
    const tree = await makeE2eTree({ writable });
    const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
    const target = subprocessTarget({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO, name: "sqlite" });
    // Writable, only execute is new: the other tools and the protocol ran against the read-only server already.
    const only = writable ? { tools: ["execute"], protocol: false } : {};
    const report = await attack(target, { watch: [tree.base], valid: VALID, ...only });
    assertNoFindings(report);
    await tree.remove();
  });
}
