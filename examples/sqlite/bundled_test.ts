// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// The sqlite server from a bundle (`deno task bundle`): its database
// processes cannot start database_process.ts, which is not in the bundle, so
// they start the bundle's own entry with --database-process, read access to
// the database and nothing else.
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundleServer, printedPermissions, RUNTIME_FLAGS } from "@forge/toolkit/permissions";
import { spawnServer } from "@forge/toolkit/testing";
import { databaseProcessCommand, makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";
import { commandLine, descendants, PROC_PROGRAMS } from "./proc.ts";

Deno.test({
  name:
    "a bundled sqlite server answers queries from database processes that run the bundle's entry, reading the db only",
  permissions: { run: [Deno.execPath(), ...PROC_PROGRAMS], read: "inherit", write: "inherit", env: "inherit" },
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const tree = await makeE2eTree();
    const outdir = join(tree.base, "bundle");
    try {
      const bundled = await bundleServer({ entry: SCRIPT, config: tree.config, outdir });
      assert.equal(bundled.error, undefined);
      const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
      const script = join(outdir, "main.js");
      assert.deepEqual(bundled.run, [
        "deno",
        "run",
        "--no-prompt",
        ...RUNTIME_FLAGS,
        ...flags,
        script,
        "-config",
        tree.config,
      ]);

      const server = await spawnServer({ args: bundled.run.slice(2), cwd: REPO });
      try {
        const result = await server.client.callTool({
          name: "run_query",
          arguments: { sql: "SELECT count(*) AS n FROM products" },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        assert.deepEqual((result.structuredContent as { rows: unknown[] }).rows, [{ n: tree.count("products") }]);
        const pids = await descendants(server.process.pid);
        assert.equal(pids.length, 2, "one process that served, one spare");
        for (const pid of pids) {
          assert.deepEqual(await commandLine(pid), databaseProcessCommand(script, tree.db));
        }
      } finally {
        await server.close();
      }
    } finally {
      await tree.remove();
    }
  },
});
