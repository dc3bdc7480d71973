// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// The deno.json tasks of this example (checked by ../tasks_check.ts); of its
// own, the sample server started by the task answers from the sample
// database, and sample/shop.db is what sample/shop.sql builds.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { spawnServer } from "@forge/toolkit/testing";
import { assertCompileDryRun, assertTaskGrantsPrinted, REPO, TASK_PERMISSIONS, taskArgs } from "../tasks_check.ts";
import { SAMPLE_SQL } from "./_e2e.ts";

const SAMPLE_DB = join(REPO, "examples", "sqlite", "sample", "shop.db");

Deno.test({
  name: "the sqlite task grants exactly what --print-permissions prints for the sample config",
  permissions: TASK_PERMISSIONS,
  async fn() {
    await assertTaskGrantsPrinted("sqlite");
  },
});

Deno.test({
  name: "the sqlite task starts the sample server read-only, which passes its own least-privilege check and serves",
  permissions: TASK_PERMISSIONS,
  async fn() {
    const server = await spawnServer({ args: await taskArgs("sqlite"), cwd: REPO });
    assert.deepEqual((await server.client.listTools()).tools.map((t) => t.name), [
      "list_tables",
      "describe_table",
      "run_query",
    ]);
    const top = await server.client.callTool({
      name: "run_query",
      arguments: {
        sql: "SELECT customer, total_cents FROM order_totals ORDER BY total_cents DESC LIMIT ?",
        params: [1],
      },
    });
    assert.deepEqual((top.structuredContent as { rows: unknown[] }).rows, [{
      customer: "Edsger Dijkstra",
      total_cents: 4500,
    }]);
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "compile:sqlite --dry-run builds deno compile from the printed flags, embeds the config and names dist/sqlite",
  permissions: TASK_PERMISSIONS,
  async fn() {
    await assertCompileDryRun("sqlite");
  },
});

Deno.test({
  name: "sample/shop.db holds exactly what sample/shop.sql builds",
  permissions: { read: [REPO] },
  async fn() {
    const built = new DatabaseSync(":memory:");
    built.exec(await Deno.readTextFile(SAMPLE_SQL));
    const sample = new DatabaseSync(SAMPLE_DB, { readOnly: true });
    const dump = (db: DatabaseSync) => {
      const schema = db.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all();
      const tables = schema.filter((row) => row.type === "table").map((row) => String(row.name));
      return JSON.stringify([schema, ...tables.map((t) => db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all())]);
    };
    assert.equal(dump(sample), dump(built));
    sample.close();
    built.close();
    assert.throws(() => new DatabaseSync(SAMPLE_DB), Deno.errors.NotCapable, "the test cannot write the sample");
  },
});
