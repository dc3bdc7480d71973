// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Live reload against a real subprocess: the config file is replaced (temp
// file + rename) and the very next call sees it. Narrowing takes effect at
// once; widening beyond the flags fixed at start is refused with a restart hint.
import assert from "node:assert/strict";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { spawnServer } from "@forge/toolkit/testing";
import { textOf } from "../served.ts";
import { REPO, reusedTree, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: "inherit", write: "inherit", env: "inherit" };

/** The tree every test here serves, made at load time; each test rebuilds its database. */
const SHARED = await reusedTree();

/** Starts the server over the tree, its database rebuilt from the sample, and its config `extra` over the defaults. */
async function start(extra: Record<string, unknown>) {
  const tree = SHARED.tree;
  const flags = await SHARED.reset(extra);
  const server = await spawnServer({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO });
  const call = (name: string, args: Record<string, unknown>) => server.client.callTool({ name, arguments: args });
  return { tree, server, call };
}

Deno.test({
  name: "reload narrows at the next call: max_rows, and writable true → false makes execute refuse",
  permissions: perms,
  async fn() {
    const { tree, server, call } = await start({ writable: true });
    const before = await call("run_query", { sql: "SELECT id FROM orders" });
    assert.equal((before.structuredContent as { truncated: boolean }).truncated, false);
    await tree.writeConfig({ database: tree.db, max_rows: 1, writable: false });
    const cut = await call("run_query", { sql: "SELECT id FROM orders" });
    assert.deepEqual(cut.structuredContent, {
      columns: ["id"],
      rows: [{ id: 1 }],
      row_count: 1,
      truncated: true,
      limit: "max_rows",
    });
    const refused = await call("execute", { sql: "DELETE FROM orders" });
    assert.equal(refused.isError, true);
    assert.equal(textOf(refused), 'Cannot execute: writing is turned off in the config ("writable": false)');
    assert.equal(tree.count("orders"), 4);
    await tree.writeConfig({ database: tree.db, writable: true });
    const again = await call("execute", { sql: "DELETE FROM orders WHERE id = 4" });
    assert.deepEqual(again.structuredContent, { changes: 1, last_insert_rowid: null });
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "reload widening past the start-up flags: execute appears (list_changed), and asks for a restart",
  permissions: perms,
  async fn() {
    const { tree, server, call } = await start({});
    const changed = new Promise<void>((resolve) => {
      (server.client as unknown as Client).setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    await tree.writeConfig({ database: tree.db, writable: true });
    await changed;
    assert.ok((await server.client.listTools()).tools.some((tool) => tool.name === "execute"));
    const result = await call("execute", { sql: "DELETE FROM orders" });
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /^Cannot execute: writing the database is outside what this process was started with \(it was started read-only\); restart the server with the flags from --print-permissions$/,
    );
    assert.equal(tree.count("orders"), 4, "Deno refused the write");
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name:
    "reload of max_memory_mb reaches the next query either way: a sort refused at 16 MiB is served at 256, then refused",
  permissions: perms,
  async fn() {
    // 10,000 rows of ~2 KB sorted whole: about 20 MB, past the 16 MiB cap and no more, so that the sort that is
    // served ends far before its deadline on a busy machine: what is proven is the cap, and query_timeout_ms is at its
    // ceiling already. (40 MB took ~1 s of work on a quiet machine, and past the 9 s deadline beside eight busy loops
    // on 2 cores; this one ~0.3 s.) SQLite cannot raise a process's heap cap, so the sort is served only by a process
    // started after the reload.
    const sort = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) " +
      "SELECT a.n AS x, b.n AS y, printf('%.2000c', 'p') AS pad FROM c a, c b ORDER BY random()";
    const config = { allow_recursive: true, query_timeout_ms: 9_000 };
    const { tree, server, call } = await start({ ...config, max_memory_mb: 16 });
    const refused = await call("run_query", { sql: sort });
    assert.equal(refused.isError, true);
    assert.equal(textOf(refused), "Cannot run query: out of memory");
    const next = await call("run_query", { sql: "SELECT count(*) AS n FROM orders" });
    assert.deepEqual((next.structuredContent as { rows: unknown[] }).rows, [{ n: 4 }], "the next query is served");
    await tree.writeConfig({ database: tree.db, ...config, max_memory_mb: 256 });
    const served = await call("run_query", { sql: sort });
    assert.equal(served.isError, undefined, textOf(served));
    assert.deepEqual((served.structuredContent as { limit: string }).limit, "max_rows");
    await tree.writeConfig({ database: tree.db, ...config, max_memory_mb: 16 });
    assert.equal(textOf(await call("run_query", { sql: sort })), "Cannot run query: out of memory");
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name:
    "reload to another database file is refused until restart, and so is a link swapped in at the database's path; the canary never appears",
  permissions: { ...perms, run: [Deno.execPath(), "sh"] },
  async fn() {
    const { tree, server, call } = await start({});
    await tree.writeConfig({ database: tree.canaryDb });
    for (const [name, args] of [["list_tables", {}], ["run_query", { sql: "SELECT * FROM secrets" }]] as const) {
      const result = await call(name, args);
      assert.equal(result.isError, true);
      assert.match(
        textOf(result),
        /the config now names a different database file than this process was started for; restart/,
      );
    }
    await tree.writeConfig({ database: tree.db });
    assert.equal((await call("list_tables", {})).isError, undefined, "back to the first file: served again");
    // Whoever can write the database's folder swaps a link in at its path (Deno checks the path, SQLite follows
    // the link); a new heap cap then ends every idle process, so the next calls are served by new ones.
    await Deno.rename(tree.db, `${tree.db}.old`);
    const ln = await new Deno.Command("sh", { args: ["-c", 'ln -s "$1" "$2"', "sh", tree.canaryDb, tree.db] }).output();
    assert.ok(ln.success);
    await tree.writeConfig({ database: tree.db, max_memory_mb: 128 });
    for (const [name, args] of [["run_query", { sql: "SELECT * FROM secrets" }], ["list_tables", {}]] as const) {
      const result = await call(name, args);
      assert.equal(result.isError, true, textOf(result));
      assert.match(
        textOf(result),
        /^Cannot open the database: its path no longer leads to the file this server started/,
      );
    }
    await server.close();
    assert.match(server.stderr(), /the database process refuses .*shop\.db: it is a link/);
    assert.ok(!(server.lines.join("\n") + server.stderr()).includes(tree.canary));
  },
});

Deno.test({
  name: "a reload that does not validate keeps the last good config, and says so once on stderr",
  permissions: perms,
  async fn() {
    const { tree, server, call } = await start({});
    await tree.writeConfig({ database: tree.db, max_rows: 0 });
    const result = await call("run_query", { sql: "SELECT id FROM orders" });
    assert.equal((result.structuredContent as { row_count: number }).row_count, 4);
    await server.close();
    assert.match(server.stderr(), /sqlite: keeping the last good config: .*max_rows/);
  },
});
