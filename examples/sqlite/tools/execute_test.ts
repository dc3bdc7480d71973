// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { Middleware } from "@forge/toolkit";
import { auditTrail } from "@forge/toolkit/middleware";
import { probe } from "@forge/toolkit/testing";
import { session, textOf, TMP } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: [Deno.execPath()] };

Deno.test({
  name: "execute: a probe names every table the write reaches (trigger included) and changes nothing",
  permissions: perms,
  async fn() {
    const s = await session({ config: { writable: true } });
    const { patterns, isError } = await probe(s.client, "execute", {
      sql: "DELETE FROM products WHERE id = ?",
      params: [1],
    });
    assert.equal(isError, false);
    assert.deepEqual(patterns, ["sql:delete:products", "sql:insert:audit"]);
    assert.equal(s.count("products"), 3, "the probe did not delete");
    assert.equal(s.count("audit"), 0);
    const refused = await probe(s.client, "execute", { sql: "ATTACH DATABASE 'x' AS x" });
    assert.equal(refused.isError, true);
    await s.end();
  },
});

Deno.test({
  name: "execute runs the write with bound values and is audited without its argument values",
  permissions: perms,
  async fn() {
    const lines: string[] = [];
    const s = await session({
      config: { writable: true },
      middleware: [auditTrail({ server: "sqlite", sink: (line) => lines.push(line) })],
    });
    const secret = "Robert'); DROP TABLE products; --";
    const result = await s.client.callTool({
      name: "execute",
      arguments: { sql: "INSERT INTO products (name, price) VALUES (?, ?)", params: [secret, 100] },
    });
    assert.deepEqual(result.structuredContent, { changes: 1, last_insert_rowid: 4 });
    assert.equal(s.count("products"), 4);
    const read = await s.client.callTool({ name: "run_query", arguments: { sql: "SELECT 1 AS x" } });
    assert.equal(read.isError, undefined);
    assert.equal(lines.length, 2, "only the side-effecting call is audited: its intent, then its outcome");
    const [intent, outcome] = lines.map((line) => JSON.parse(line));
    assert.deepEqual([intent.event, intent.tool, intent.patterns], ["intent", "execute", ["sql:insert:products"]]);
    assert.deepEqual([outcome.event, outcome.intent, outcome.outcome], ["outcome", intent.seq, "ok"]);
    assert.ok(!lines.join("\n").includes("Robert"), "argument values never reach the audit trail");
    await s.end();
  },
});

Deno.test({
  name: "execute refuses a write beyond the allowed classes, with the reason",
  permissions: perms,
  async fn() {
    const s = await session({ config: { writable: true } });
    const cases: [string, RegExp][] = [
      ["DELETE FROM products; DROP TABLE audit", /exactly one statement is allowed, found 2/],
      ["VACUUM INTO 'copy.db'", /VACUUM/],
      ["PRAGMA writable_schema = 1", /PRAGMA is not allowed/],
      ["SELECT * FROM products", /only reads: use run_query/],
      ["INSERT INTO products (name) VALUES ('x') RETURNING id", /RETURNING is not supported/],
      ["INSERT INTO products (id, name) VALUES (1, 'dup')", /UNIQUE constraint failed: products.id/],
    ];
    for (const [sql, reason] of cases) {
      const result = await s.client.callTool({ name: "execute", arguments: { sql } });
      assert.equal(result.isError, true, sql);
      assert.match(textOf(result), reason, sql);
    }
    assert.equal(s.count("products"), 3);
    await s.end();
  },
});

Deno.test({
  name:
    "execute is held to the patterns its call was approved and audited under: a trigger added after they were worked out makes it refuse, changing nothing",
  permissions: perms,
  async fn() {
    const lines: string[] = [];
    let db = "";
    // Runs after the call's patterns are worked out (and audited), before its handler: another program changes the schema.
    const between: Middleware = async (_ctx, next) => {
      const other = new DatabaseSync(db);
      other.exec("CREATE TRIGGER wipe AFTER INSERT ON products BEGIN DELETE FROM audit; END;");
      other.close();
      return await next();
    };
    const s = await session({
      config: { writable: true },
      middleware: [auditTrail({ server: "sqlite", sink: (line) => lines.push(line) }), between],
    });
    db = s.db;
    const result = await s.client.callTool({
      name: "execute",
      arguments: { sql: "INSERT INTO products (name, price) VALUES ('cap', 1)" },
    });
    assert.equal(result.isError, true);
    assert.equal(
      textOf(result),
      "Cannot execute: the statement would now also act as sql:delete:audit, which this call's patterns " +
        "(sql:insert:products) do not name: the database's schema changed since they were worked out; nothing was " +
        "changed, ask again",
    );
    assert.deepEqual(JSON.parse(lines[0]).patterns, ["sql:insert:products"], "what the audit trail wrote as intent");
    assert.equal(s.count("products"), 3);
    await s.end();
  },
});

Deno.test({
  name:
    "execute: a write to a full-text table is refused at the probe as at the call, with why, and a write that searches one runs",
  permissions: perms,
  async fn() {
    const s = await session({ config: { writable: true } });
    const file = new DatabaseSync(s.db);
    file.exec(`CREATE VIRTUAL TABLE products_fts USING fts5(name, content='products', content_rowid='id');
      INSERT INTO products_fts (products_fts) VALUES ('rebuild');
      CREATE TRIGGER products_fts_sync AFTER INSERT ON products BEGIN
        INSERT INTO products_fts (rowid, name) VALUES (new.id, new.name);
      END;`);
    file.close();
    const bytes = await Deno.readFile(s.db);
    // The probe used to approve `sql:insert:products_fts` for each, and the call failed with "this PRAGMA is not
    // allowed": FTS5 writes its shadow tables, which no pattern named.
    for (
      const sql of [
        "INSERT INTO products_fts (products_fts, rank) VALUES ('rank', 'bm25(10)')",
        "INSERT INTO products_fts (products_fts) VALUES ('optimize')",
        "INSERT INTO products (name) VALUES ('nib')",
      ]
    ) {
      const probed = await probe(s.client, "execute", { sql });
      assert.equal(probed.isError, true, sql);
      const result = await s.client.callTool({ name: "execute", arguments: { sql } });
      assert.equal(result.isError, true, sql);
      assert.match(textOf(result), /would change "products_fts", a virtual table \(full-text search/, sql);
    }
    assert.deepEqual(await Deno.readFile(s.db), bytes, "nothing was written");
    const sql = "DELETE FROM products WHERE id IN (SELECT rowid FROM products_fts WHERE products_fts MATCH ?)";
    const { patterns, isError } = await probe(s.client, "execute", { sql, params: ["ink"] });
    assert.equal(isError, false);
    assert.deepEqual(patterns, ["sql:delete:products", "sql:insert:audit"]);
    const result = await s.client.callTool({ name: "execute", arguments: { sql, params: ["ink"] } });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(s.count("products"), 2);
    await s.end();
  },
});
