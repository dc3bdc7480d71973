// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// End to end: the server as a real subprocess, started with exactly the flags
// it prints, driven by the official SDK client over its real stdio, on a real
// SQLite file, with a canary database beside it that must never leak.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { probe } from "@forge/toolkit/testing";
import {
  assertHealthNeedsNoPermission,
  assertRefusesSharedConfig,
  type PrintedTree,
  printedTrees,
  type Served,
  serveUnderFlags,
  serveUnderPrintedFlags,
} from "../served.ts";
import { databaseProcessCommand, denoRun, type E2eTree, makeE2eTree, SCRIPT } from "./_e2e.ts";
import { commandLine, descendants, environment, PROC_PROGRAMS } from "./proc.ts";

const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: "inherit", write: "inherit", env: "inherit" };

/**
 * The tree for `extra` that tests of this file share, and the flags printed for it, built by the first test that
 * needs it: the tests that share one only read it (the one that writes its database runs last), so one printing and
 * one tree serve them all. Removed at unload.
 */
const printedFor = printedTrees(SCRIPT, (extra: Record<string, unknown> = {}) => makeE2eTree(extra));
type Printed = PrintedTree<E2eTree>;

/** Starts the server on `tree`'s config under `flags` (printed for it), with the calls the tests make. */
function serve({ tree, flags }: Printed): Promise<Served> {
  return serveUnderFlags(SCRIPT, tree.config, flags);
}

Deno.test({
  name: "--health prints ok and needs no permission at all",
  permissions: perms,
  async fn() {
    await assertHealthNeedsNoPermission(SCRIPT);
  },
});

Deno.test({
  name: "--print-permissions: read-only reads the config file and the database, writes nothing, runs only this deno",
  permissions: perms,
  async fn() {
    const { tree, flags } = await printedFor();
    assert.deepEqual(flags, [
      `--allow-read=${tree.config},${tree.db}`,
      "--allow-env=FORGE_TENANT_CONFIG",
      `--allow-run=${Deno.execPath()}`,
    ]);
  },
});

Deno.test({
  name:
    "--print-permissions: writable adds write on the database file (not on -journal or -wal), read on its journal (checked before a write), and the audit file",
  permissions: perms,
  async fn() {
    const { tree, flags } = await printedFor({ writable: true, audit_file: "../audit.jsonl" });
    assert.deepEqual(flags, [
      `--allow-read=${[join(tree.base, "audit.jsonl"), tree.config, tree.db, `${tree.db}-journal`].sort().join(",")}`,
      `--allow-write=${join(tree.base, "audit.jsonl")},${tree.db}`,
      "--allow-env=FORGE_TENANT_CONFIG",
      `--allow-run=${Deno.execPath()}`,
    ]);
  },
});

Deno.test({
  name: "--print-permissions shows a database path that came from the environment by its value",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree({ database: "${SHOP_DB}" });
    const out = await denoRun(
      [
        `--allow-read=${tree.config}`,
        "--allow-env=SHOP_DB",
        SCRIPT,
        "-config",
        tree.config,
        "--print-permissions",
      ],
      { SHOP_DB: tree.db },
    );
    assert.equal(out.code, 0, out.stderr);
    assert.equal(
      out.stdout,
      `--allow-read=${[tree.config, tree.db].sort().join(",")} --allow-env=FORGE_TENANT_CONFIG,SHOP_DB ` +
        `--allow-run=${Deno.execPath()}\n`,
    );
    await tree.remove();
  },
});

Deno.test({
  name:
    "the server refuses to serve with -A, or with unscoped write a read-only config does not need (exit 2); a scoped write grant is revoked whole",
  permissions: perms,
  async fn() {
    const { tree, flags } = await printedFor();
    const all = await denoRun(["-A", SCRIPT, "-config", tree.config]);
    assert.equal(all.code, 2);
    assert.match(all.stderr, /^sqlite: refusing to serve: the process holds more permissions than its policy needs/);
    const extra = await denoRun([...flags, "--allow-write", SCRIPT, "-config", tree.config]);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /unscoped --allow-write/);
    assert.equal(extra.stdout, "");
    // Write is a kind a read-only config needs none of: revoked at start, so the server serves (and exits at the end of
    // its input); that the grant is then gone is permissions/revoke_unneeded_test.ts's.
    const scoped = await denoRun([...flags, `--allow-write=${tree.db}`, SCRIPT, "-config", tree.config]);
    assert.equal(scoped.code, 0, scoped.stderr);
    assert.doesNotMatch(scoped.stderr, /refusing/);
  },
});

Deno.test({
  name: "the server refuses a config others can write (exit 1)",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    await assertRefusesSharedConfig(SCRIPT, tree.config);
    await tree.remove();
  },
});

Deno.test({
  name: "read-only under the printed flags: every tool works over real stdio, refusals are isError, nothing leaks",
  permissions: perms,
  async fn(t) {
    const shared = await printedFor();
    const { tree } = shared;
    const { server, call, refused } = await serve(shared);

    await t.step("tools/list: the three read-only tools", async () => {
      assert.deepEqual((await server.client.listTools()).tools.map((tool) => tool.name), [
        "list_tables",
        "describe_table",
        "run_query",
      ]);
    });
    await t.step("list_tables, describe_table, run_query", async () => {
      const tables = (await call("list_tables", {})).structuredContent as { tables: { name: string }[] };
      assert.deepEqual(tables.tables.map((table) => table.name), ["customers", "order_totals", "orders", "products"]);
      const orders = (await call("describe_table", { table: "orders" })).structuredContent as {
        foreign_keys: { table: string; on_delete: string }[];
      };
      assert.deepEqual(orders.foreign_keys.map((k) => `${k.table} ${k.on_delete}`), [
        "products NO ACTION",
        "customers CASCADE",
      ]);
      const totals = await call("run_query", {
        sql: "SELECT customer, sum(total_cents) AS cents FROM order_totals WHERE customer LIKE :who GROUP BY customer",
        params: { who: "Ada%" },
      });
      assert.deepEqual((totals.structuredContent as { rows: unknown[] }).rows, [{
        customer: "Ada Lovelace",
        cents: 3850,
      }]);
    });
    await t.step("refusals: writes, several statements, unknown tables, bad params, recursion", async () => {
      await refused("run_query", { sql: "DELETE FROM orders" }, /only SELECT/);
      await refused("run_query", { sql: "SELECT 1; DELETE FROM orders" }, /exactly one statement/);
      await refused(
        "run_query",
        { sql: "SELECT * FROM orders WHERE id = ?", params: "1" },
        /Invalid argument "params"/,
      );
      await refused("describe_table", { table: "nope" }, /Cannot describe table "nope": no such table/);
      await refused("run_query", {
        sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
      }, /allow_recursive/);
      await assert.rejects(call("execute", { sql: "DELETE FROM orders" }), /Unknown tool/);
      assert.equal(tree.count("orders"), 4);
    });
    await t.step("the canary: ATTACH, paths and file functions never reach the other database", async () => {
      await refused("run_query", { sql: `ATTACH DATABASE '${tree.canaryDb}' AS c` }, /only SELECT/);
      await refused("run_query", { sql: `SELECT * FROM '${tree.canaryDb}'` }, /no such table/);
      await refused("run_query", { sql: `SELECT readfile('${tree.canaryDb}')` }, /"readfile" is not allowed/);
      await refused("run_query", { sql: "SELECT * FROM pragma_database_list" }, /not a read-only schema PRAGMA/);
      await refused("run_query", { sql: 'SELECT * FROM "pragma_database_list"' }, /not a read-only schema PRAGMA/);
      await refused("run_query", { sql: "SELECT * FROM secrets" }, /no such table: secrets/);
      await refused("describe_table", { table: tree.canaryDb }, /no such table or view/);
    });
    const status = await server.close();
    assert.equal(status.code, 0);
    for (const line of server.lines) JSON.parse(line);
    const everything = server.lines.join("\n") + server.stderr();
    assert.ok(!everything.includes(tree.canary), "the canary never appears");
    // The canary's path appears only where the caller typed it; the server's own paths never do.
    const replies = server.lines.join("\n");
    assert.ok(!replies.includes(tree.db) && !replies.includes(dirname(tree.config)), "no host path of the server's");
  },
});

Deno.test({
  name: "each database process may read the database file and nothing else, with an environment of its own",
  permissions: { ...perms, run: [Deno.execPath(), ...PROC_PROGRAMS] },
  async fn() {
    const shared = await printedFor();
    const { tree } = shared;
    const { server, ok } = await serve(shared);
    await ok("list_tables", {});
    const pids = await descendants(server.process.pid);
    assert.equal(pids.length, 2, "one process that served, one spare");
    for (const pid of pids) {
      assert.deepEqual(
        await commandLine(pid),
        databaseProcessCommand(join(dirname(SCRIPT), "database_process.ts"), tree.db),
      );
      assert.deepEqual(await environment(pid), ["NO_COLOR=1"]);
    }
    await server.close();
  },
});

Deno.test({
  name: "schema PRAGMAs read as the README says: pragma_table_info('t') and PRAGMA table_info(t) both answer",
  permissions: perms,
  async fn() {
    const { server, call } = await serve(await printedFor());
    const names = async (sql: string) => {
      const result = await call("run_query", { sql });
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      return (result.structuredContent as { rows: { name: string }[] }).rows.map((row) => row.name);
    };
    const columns = ["id", "name", "email"];
    assert.deepEqual(await names("SELECT name FROM pragma_table_info('customers')"), columns);
    assert.deepEqual(await names("SELECT p.name FROM customers c, pragma_table_info('customers') p LIMIT 3"), columns);
    assert.deepEqual(await names("PRAGMA table_info(customers)"), columns);
    assert.deepEqual(await names("SELECT name FROM pragma_index_list('customers')"), ["sqlite_autoindex_customers_1"]);
    await server.close();
  },
});

Deno.test({
  name: "writable under the printed flags: probe names the tables and changes nothing; execute writes; audited",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree({ writable: true });
    const { server } = await serveUnderPrintedFlags(SCRIPT, tree.config);
    const sql = "DELETE FROM customers WHERE email = ?";
    const params = ["ada@example.com"];
    const { patterns } = await probe(server.client, "execute", { sql, params });
    assert.deepEqual(patterns, ["sql:delete:customers", "sql:delete:orders"]);
    assert.deepEqual([tree.count("customers"), tree.count("orders")], [3, 4], "the probe changed nothing");
    const done = await server.client.callTool({ name: "execute", arguments: { sql, params } });
    assert.deepEqual(done.structuredContent, { changes: 1, last_insert_rowid: null });
    assert.deepEqual([tree.count("customers"), tree.count("orders")], [2, 2], "the cascade ran, as the probe said");
    const attach = await server.client.callTool({
      name: "execute",
      arguments: { sql: `ATTACH DATABASE '${tree.canaryDb}' AS c` },
    });
    assert.equal(attach.isError, true);
    await server.close();
    const audit = server.stderr().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    assert.deepEqual(audit.map((r) => [r.event, r.outcome, r.patterns]), [
      ["probe", "probe", ["sql:delete:customers", "sql:delete:orders"]],
      ["intent", undefined, ["sql:delete:customers", "sql:delete:orders"]],
      ["outcome", "ok", undefined],
      ["intent", undefined, []],
      ["outcome", "isError", undefined],
    ]);
    assert.ok(!server.stderr().includes("ada@example.com"), "argument values never reach the audit trail");
    assert.ok(!server.stderr().includes(tree.canary));
    await tree.remove();
  },
});

Deno.test({
  name: "with audit_file the audit trail is appended there, not to stderr",
  permissions: perms,
  async fn() {
    const shared = await printedFor({ writable: true, audit_file: "../audit.jsonl" });
    const { tree } = shared;
    const { server } = await serve(shared);
    await server.client.callTool({ name: "execute", arguments: { sql: "UPDATE products SET price_cents = 1" } });
    await server.close();
    const lines = (await Deno.readTextFile(join(tree.base, "audit.jsonl"))).trim().split("\n");
    assert.deepEqual(lines.map((line) => JSON.parse(line).patterns), [["sql:update:products"], undefined]);
    assert.ok(!server.stderr().includes('"tool":"execute"'));
  },
});
