// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { openDatabase } from "./connection.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { type QueryOptions, runQuery } from "./query.ts";
import { openSqlite, type Sqlite } from "./sqlite.ts";
import { DatabaseSizes, MAX_VIEW_SQL_BYTES } from "./database_sizes.ts";
import { join } from "node:path";
import { ConfigSchema } from "./config.ts";
import type { SqlParams } from "./values.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const OPTIONS: QueryOptions = { maxRows: 100, maxSqlLength: 10_000, allowRecursive: false };

function withDb(fn: (db: Sqlite, canary: string) => void): () => void {
  return () => {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    try {
      fn(db, fixture.canary);
    } finally {
      db.close();
      fixture.remove();
    }
  };
}

Deno.test({
  name: "runQuery() returns columns and rows as JSON, with parameters bound by position or name",
  permissions: perms,
  fn: withDb((db) => {
    const byPosition = runQuery(db, "SELECT id, total FROM orders WHERE total > ? ORDER BY id", {
      ...OPTIONS,
      params: [100],
    });
    assert.deepEqual(byPosition, {
      columns: ["id", "total"],
      rows: [{ id: 2, total: 150 }, { id: 3, total: 300 }],
      row_count: 2,
      truncated: false,
    });
    const byName = runQuery(db, "SELECT name FROM customers WHERE id = :id", { ...OPTIONS, params: { id: 2 } });
    assert.deepEqual(byName.rows, [{ name: "Grace" }]);
    const empty = runQuery(db, "SELECT name FROM customers WHERE id = 99", OPTIONS);
    assert.deepEqual(empty, { columns: ["name"], rows: [], row_count: 0, truncated: false });
  }),
});

Deno.test({
  name: "runQuery() serialises big integers as strings, blobs as base64 and infinite floats as text",
  permissions: perms,
  fn: withDb((db) => {
    const { rows } = runQuery(db, "SELECT * FROM blobs ORDER BY id", OPTIONS);
    assert.deepEqual(rows, [
      { id: 1, big: "9007199254740993", data: { $base64: "AP8Q" }, f: "Infinity" },
      { id: 2, big: 42, data: null, f: "-Infinity" },
    ]);
  }),
});

Deno.test({
  name: "runQuery() stops stepping at max_rows: an endless recursive query still returns, marked truncated",
  permissions: perms,
  fn: withDb((db) => {
    const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c";
    const result = runQuery(db, endless, { ...OPTIONS, maxRows: 3, allowRecursive: true });
    assert.deepEqual(result.rows, [{ x: 1 }, { x: 2 }, { x: 3 }]);
    assert.equal(result.truncated, true);
    assert.equal(result.limit, "max_rows");
  }),
});

Deno.test({
  name: "runQuery() cuts rows past the byte cap and says which limit cut them",
  permissions: perms,
  fn: withDb((db) => {
    // The column names' JSON (13 bytes) counts too: 13 + 22 for Ada's row, 24 more for Grace's.
    const result = runQuery(db, "SELECT id, name FROM customers ORDER BY id", { ...OPTIONS, maxBytes: 50 });
    assert.deepEqual(result.rows, [{ id: 1, name: "Ada" }]);
    assert.equal(result.truncated, true);
    assert.equal(result.limit, "max_bytes");
  }),
});

Deno.test({
  name: "runQuery() binds a hostile value as data: it is matched, never run",
  permissions: perms,
  fn: withDb((db) => {
    const hostile = "x'; DROP TABLE customers; --";
    const result = runQuery(db, "SELECT count(*) AS n FROM customers WHERE name = ?", {
      ...OPTIONS,
      params: [hostile],
    });
    assert.deepEqual(result.rows, [{ n: 0 }]);
    assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM customers", OPTIONS).rows, [{ n: 2 }]);
  }),
});

Deno.test({
  name: "runQuery() refuses writes, ATTACH, file functions, path-revealing PRAGMAs, recursion and duplicate columns",
  permissions: perms,
  fn: withDb((db, canary) => {
    const refused: [string, RegExp][] = [
      ["DELETE FROM customers", /only SELECT/],
      ["SELECT 1; DELETE FROM customers", /exactly one statement/],
      ["ATTACH DATABASE 'x.db' AS x", /only SELECT/],
      ["SELECT readfile('/etc/passwd')", /"readfile" is not allowed/],
      ["SELECT * FROM pragma_database_list", /not a read-only schema PRAGMA/],
      ["PRAGMA database_list", /not a read-only schema PRAGMA/],
      ["WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", /allow_recursive/],
      ["SELECT 1 AS a, 2 AS a", /column "a" appears twice/],
      ["SELECT * FROM no_such_table", /no such table: no_such_table/],
      ["SELECT * FROM secrets", /no such table: secrets/],
      ["SELECT zeroblob(2000000)", /string or blob too big/],
      [`SELECT '${"x".repeat(10_000)}'`, /longer than 10000 characters/],
    ];
    for (const [sql, reason] of refused) {
      assert.throws(() => runQuery(db, sql, OPTIONS), (err: Error) => {
        assert.ok(err instanceof PolicyError, sql);
        assert.match(err.message, /^Cannot run query: /, sql);
        assert.match(err.message, reason, sql);
        assert.ok(!err.message.includes(canary) && !err.message.includes(TMP), err.message);
        return true;
      });
    }
    assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM customers", OPTIONS).rows, [{ n: 2 }]);
  }),
});

Deno.test({
  name: "runQuery(): quoted spellings of file functions and pragma_database_list are refused",
  permissions: perms,
  fn: withDb((db) => {
    // The SQL guard unquotes names before it judges them; the authorizer (tested alone in
    // authorizer_test.ts) sees the names SQLite resolved, however they were written.
    const quoted: [string, RegExp][] = [
      ['SELECT * FROM "pragma_database_list"', /"pragma_database_list" is not a read-only schema PRAGMA/],
      ["SELECT * FROM [pragma_database_list]", /"pragma_database_list" is not a read-only schema PRAGMA/],
      ["SELECT file FROM pragma_table_xinfo('orders') JOIN `pragma_database_list`", /not a read-only schema PRAGMA/],
      ["SELECT \"load_extension\"('x')", /"load_extension" is not allowed/],
    ];
    for (const [sql, reason] of quoted) {
      assert.throws(() => runQuery(db, sql, OPTIONS), (err: Error) => {
        assert.match(err.message, reason, sql);
        assert.ok(!err.message.includes(TMP), "no host path");
        return true;
      });
    }
  }),
});

Deno.test({
  name: "runQuery() reports a parameter SQLite cannot bind as a refusal",
  permissions: perms,
  fn: withDb((db) => {
    assert.throws(
      () => runQuery(db, "SELECT :a AS a", { ...OPTIONS, params: { b: 1 } }),
      /Cannot run query: Unknown named parameter 'b'/,
    );
  }),
});

Deno.test({
  name: "runQuery() turns a failure mid-query into a refusal instead of a short result",
  permissions: perms,
  fn: withDb((db) => {
    // node:sqlite's iterate() swallows these in Deno 2.9.6; queryReadOnly's second read reports them.
    const failing: [string, string][] = [
      ["SELECT 1 AS a UNION ALL SELECT json_extract('{broken', '$')", "Cannot run query: malformed JSON"],
      ["SELECT 1 AS a UNION ALL SELECT zeroblob(2000000)", "Cannot run query: string or blob too big"],
    ];
    for (const [sql, message] of failing) {
      assert.throws(() => runQuery(db, sql, OPTIONS), (err: Error) => {
        assert.ok(err instanceof PolicyError, sql);
        assert.equal(err.message, message);
        return true;
      });
    }
  }),
});

Deno.test({
  name: "runQuery() with max_scan_rows prices the plan before it runs: dear nests are refused, json_each by its bound",
  permissions: perms,
  fn: withDb((db) => {
    const priced = { ...OPTIONS, maxScanRows: 1_000 };
    // 3 orders × 3 orders × 2 customers = 18 rows: cheap.
    assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM orders a, orders b, customers", priced).rows, [{ n: 18 }]);
    assert.throws(
      () => runQuery(db, "SELECT count(*) AS n FROM orders a, json_each(?) j", { ...priced, params: ["[1]"] }),
      /^PolicyError: Cannot run query: its plan would visit about 3,145,728 rows \(3 × 1,048,576\)/,
    );
    // Alone, json_each is one scan, linear in its input.
    assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM json_each(?)", { ...priced, params: ["[1,2]"] }).rows, [{
      n: 2,
    }]);
    // A lookup an IN list drives is a loop in a loop, priced even alone: 3 orders' ids × SQLite's 10 per lookup.
    assert.throws(
      () =>
        runQuery(db, "SELECT count(*) AS n FROM orders WHERE customer_id IN (SELECT id FROM orders)", {
          ...priced,
          maxScanRows: 20,
        }),
      /^PolicyError: Cannot run query: its plan would visit about 30 rows \(30\)/,
    );
  }),
});

Deno.test({
  name: "runQuery() reads schema PRAGMAs in both spellings, the table-valued one in a join too",
  permissions: perms,
  fn: withDb((db) => {
    const priced = { ...OPTIONS, maxScanRows: 100_000 };
    const names = (sql: string) => runQuery(db, sql, priced).rows.map((row) => row.name);
    assert.deepEqual(names("SELECT name FROM pragma_table_info('customers')"), ["id", "name", "email"]);
    assert.deepEqual(names("PRAGMA table_info(customers)"), ["id", "name", "email"]);
    assert.deepEqual(names("SELECT p.name FROM customers c, pragma_table_info('log') p"), ["msg", "msg"]);
  }),
});

Deno.test({
  name:
    'runQuery() prices a non-ASCII table by its own rows: "Ä" and an empty "ä" are two tables, as SQLite holds them',
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = openSqlite(fixture.db, {});
    // SQLite folds ASCII letters only: "Ä" and "ä" can both exist, and "Ö" exists without "ö".
    writer.exec(`CREATE TABLE "Ä" (x); CREATE TABLE "ä" (x); CREATE TABLE "Ö" (x);
      INSERT INTO "Ä" SELECT value FROM json_each('[${Array.from({ length: 2_000 }, (_, i) => i).join(",")}]');
      INSERT INTO "Ö" VALUES (1), (2);`);
    writer.close();
    const db = openDatabase(fixture.db, false);
    try {
      const priced = { ...OPTIONS, maxScanRows: 100_000 };
      assert.throws(
        () => runQuery(db, 'SELECT count(*) AS n FROM "Ä" p, "Ä" q', priced),
        /^PolicyError: Cannot run query: its plan would visit about 4,000,000 rows \(2,000 × 2,000\)/,
      );
      assert.deepEqual(runQuery(db, 'SELECT count(*) AS n FROM "ä" p, "ä" q', priced).rows, [{ n: 0 }]);
      assert.deepEqual(runQuery(db, 'SELECT x FROM "Ö" ORDER BY x', priced).rows, [{ x: 1 }, { x: 2 }]);
      assert.deepEqual(runQuery(db, 'SELECT count(*) AS n FROM "Ö" a, "Ö" b', priced).rows, [{ n: 4 }]);
    } finally {
      db.close();
      fixture.remove();
    }
  },
});

Deno.test({
  name: "runQuery() prices by the views the statement reads, and a view past the SQL bound as the largest source",
  permissions: perms,
  fn() {
    const db = openSqlite(":memory:", {});
    // `lone` names an alias `small` for `big`; `padded` does too, behind more SQL than one price reads.
    db.exec(`CREATE TABLE small (n INTEGER); CREATE TABLE big (n INTEGER);
      INSERT INTO big SELECT value FROM json_each(json_array(${
      "0,".repeat(999)
    }0)); INSERT INTO small SELECT n FROM big LIMIT 10;
      CREATE VIEW lone AS SELECT small.n FROM big AS small;
      CREATE VIEW padded AS SELECT small.n FROM big AS small /* ${"x".repeat(MAX_VIEW_SQL_BYTES)} */;`);
    const options = { ...OPTIONS, maxScanRows: 500 };
    try {
      // A view the statement does not read lends it no alias: 10 × 10 rows.
      assert.equal(runQuery(db, "SELECT count(*) AS n FROM small, small AS b", options).rows[0].n, 100);
      // The view's own alias `small` reads `big`: 1,000 × 10 rows (counted up to max_scan_rows + 1). Past the bound
      // its SQL is not read, and every loop is priced as the largest source (at least UNKNOWN_ROWS).
      for (const [view, factors] of [["lone", "(501 × 10)"], ["padded", "(1,000 × 1,000)"]]) {
        assert.throws(
          () => runQuery(db, `SELECT count(*) AS n FROM ${view}, small AS s`, options),
          (err) => err instanceof PolicyError && err.message.includes(factors),
          view,
        );
      }
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "runQuery() prices a query on a small table without counting any other table, nor a table it scans alone",
  permissions: perms,
  fn() {
    const db = openSqlite(":memory:", {});
    db.exec(`CREATE TABLE tiny (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO tiny VALUES (1, 'a');
      CREATE TABLE other (n INTEGER); INSERT INTO other SELECT value FROM json_each('[1,2,3,4,5]');`);
    // The counts pricing runs, among the statements the connection prepares.
    const counted: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = (sql: string) => {
      if (/^SELECT count\(\*\) AS n FROM (\(SELECT 1 FROM main\.|sqlite_schema$)/.test(sql)) counted.push(sql);
      return prepare(sql);
    };
    const sizes = new DatabaseSizes(db);
    const options = { ...OPTIONS, maxScanRows: 1_000, sizes };
    try {
      assert.deepEqual(runQuery(db, "SELECT id FROM tiny", options).rows, [{ id: 1 }]);
      assert.ok(!counted.some((sql) => sql.includes('"other"')), "a table the statement does not read is not counted");
      assert.deepEqual(runQuery(db, "SELECT n FROM other LIMIT 2", options).rows, [{ n: 1 }, { n: 2 }]);
      assert.equal(counted.length, 0, "a nest of one loop is left to the deadline, uncounted");
      assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM tiny a, tiny b", options).rows, [{ n: 1 }]);
      assert.deepEqual(counted, ['SELECT count(*) AS n FROM (SELECT 1 FROM main."tiny" LIMIT 1001)']);
      // A loop tied to nothing (SQLite's schema table) costs the largest of what the statement reads: its entries.
      assert.throws(
        () =>
          runQuery(db, "SELECT count(*) AS n FROM sqlite_schema a, sqlite_schema b", { ...options, maxScanRows: 1 }),
        /\(1,000 × 1,000\)/,
      );
      assert.deepEqual(counted.slice(1), ["SELECT count(*) AS n FROM sqlite_schema"]);
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "runQuery() prices a table past the query's counting budget at max_scan_rows + 1, reading no more than it",
  permissions: perms,
  fn() {
    const db = openSqlite(":memory:", {});
    db.exec(`CREATE TABLE small (n INTEGER); CREATE TABLE big (n INTEGER);
      INSERT INTO small VALUES (1), (2); INSERT INTO big SELECT value FROM json_each('[1,2,3,4,5,6,7,8,9,10]');`);
    const sizes = new DatabaseSizes(db);
    const options = { ...OPTIONS, maxScanRows: 1_000, maxCountRows: 5, sizes };
    try {
      assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM small a, small b", options).rows, [{ n: 4 }]);
      assert.throws(
        () => runQuery(db, "SELECT count(*) AS n FROM big, small", options),
        /rows \(1,001 × 2\), more than max_scan_rows/,
      );
      // With room to count it, the same join is priced by its rows.
      assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM big, small", { ...options, maxCountRows: 10 }).rows, [
        { n: 20 },
      ]);
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "runQuery(): a price never shows what an FTS5 table's content view reads, nor counts such a table",
  permissions: perms,
  fn() {
    // The content view's rows depend on the database's path: counting the FTS5 table through it ran that SQL with
    // no authorizer, and the count showed in the refusal's price. Two files at paths of different lengths must price
    // the same.
    const base = Deno.makeTempDirSync({ dir: TMP, prefix: "sqlite-fts-count-" });
    const answers = ["a.db", "a-longer-name.db"].map((name) => {
      const path = join(base, name);
      const writer = openSqlite(path, {});
      writer.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO big (name) SELECT 'n' FROM json_each(json_array(${Array(300).fill(0).join(",")}));
        CREATE VIEW c1 AS SELECT id, name FROM big
          WHERE id <= length((SELECT file FROM pragma_database_list WHERE name = 'main'));
        CREATE VIRTUAL TABLE p1 USING fts5(name, content='c1', content_rowid='id');`);
      writer.close();
      const db = openDatabase(path, false);
      const sizes = new DatabaseSizes(db);
      try {
        const ask = (sql: string, maxScanRows = 1_000) => {
          try {
            return JSON.stringify(runQuery(db, sql, { ...OPTIONS, maxScanRows, sizes }));
          } catch (err) {
            return (err as Error).message;
          }
        };
        return [
          ask("SELECT 1 FROM p1 a, p1 b, big c, big d"),
          ask("SELECT count(*) AS n FROM p1 a, big b"),
          ask("SELECT count(*) AS n FROM p1 a, big b", 1e15),
          ask("SELECT count(*) AS n FROM p1"),
        ];
      } finally {
        db.close();
      }
    });
    Deno.removeSync(base, { recursive: true });
    assert.deepEqual(answers[0], answers[1]);
    const [dear, pair, allowed, alone] = answers[0];
    assert.match(dear, /^Cannot run query: its plan would visit about .* rows \(1,048,576 × 1,048,576 × 300 × 300\)/);
    assert.match(pair, /\(1,048,576 × 300\)/);
    // Let through, reading the table is refused: FTS5 reads its content view under the query's authorizer.
    for (const answer of [allowed, alone]) {
      assert.equal(answer, 'Cannot run query: "pragma_database_list" is not a schema PRAGMA');
    }
  },
});

Deno.test({
  name: "runQuery() counts the column names' JSON against max bytes: names past it are refused, naming what to do",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = openSqlite(fixture.db, {});
    // 200,000 characters that JSON writes as 6 bytes each; and a name and a value that fit apart, not together.
    writer.exec(`CREATE TABLE wide ("${"\x01".repeat(200_000)}"); INSERT INTO wide VALUES (1);
      CREATE TABLE half ("${"n".repeat(600_000)}"); INSERT INTO half VALUES ('${"v".repeat(300_000)}');`);
    writer.close();
    const db = openDatabase(fixture.db, false);
    try {
      assert.throws(() => runQuery(db, "SELECT * FROM wide", OPTIONS), (err: Error) => {
        assert.ok(err instanceof PolicyError, String(err));
        assert.equal(err.code, "too-large");
        assert.equal(
          err.message,
          "Cannot run query: its column names take 1,200,004 bytes of JSON, more than the 1,048,576 a result may " +
            "hold; select fewer columns, or give long names short aliases (AS a)",
        );
        return true;
      });
      const cut = runQuery(db, "SELECT * FROM half", OPTIONS);
      assert.deepEqual([cut.columns[0].length, cut.rows, cut.truncated, cut.limit], [600_000, [], true, "max_bytes"]);
      assert.deepEqual(runQuery(db, "SELECT count(*) AS n FROM wide", OPTIONS).rows, [{ n: 1 }]);
    } finally {
      db.close();
      fixture.remove();
    }
  },
});

Deno.test({
  name: "runQuery() searches FTS5, FTS4 and FTS3 tables, and what their modules read is judged as the query's reads",
  permissions: perms,
  fn() {
    const base = Deno.makeTempDirSync({ dir: TMP, prefix: "sqlite-fts-" });
    const path = join(base, "fts.db");
    const writer = openSqlite(path, {});
    writer.exec(`CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
      INSERT INTO docs (body) VALUES ('the quick brown fox'), ('a lazy dog'), ('quick thinking');
      CREATE VIRTUAL TABLE docs_fts USING fts5(body);
      INSERT INTO docs_fts (rowid, body) SELECT id, body FROM docs;
      CREATE VIRTUAL TABLE docs_ext USING fts5(body, content='docs', content_rowid='id');
      INSERT INTO docs_ext (docs_ext) VALUES ('rebuild');
      CREATE VIRTUAL TABLE docs4 USING fts4(body);
      INSERT INTO docs4 (docid, body) SELECT id, body FROM docs;
      CREATE VIRTUAL TABLE docs3 USING fts3(body);
      INSERT INTO docs3 (docid, body) SELECT id, body FROM docs;
      CREATE VIEW leak AS SELECT 1 AS id, file AS body FROM pragma_database_list;
      CREATE VIRTUAL TABLE via_view USING fts5(body, content='leak', content_rowid='id');
      INSERT INTO via_view (rowid, body) VALUES (1, 'quick');
      CREATE VIRTUAL TABLE via_pragma USING fts5(file, content='pragma_database_list', content_rowid='seq');
      INSERT INTO via_pragma (rowid, file) VALUES (0, 'quick');
      CREATE VIRTUAL TABLE via_view4 USING fts4(content='leak', body);
      INSERT INTO via_view4 (docid, body) VALUES (1, 'quick');`);
    writer.close();
    const db = openDatabase(path, false);
    // Priced as the server prices them, at the default max_scan_rows.
    const options = { ...OPTIONS, maxScanRows: ConfigSchema.parse({}).max_scan_rows, sizes: new DatabaseSizes(db) };
    const ask = (sql: string, params: SqlParams = ["quick"]) => {
      try {
        return runQuery(db, sql, { ...options, params }).rows;
      } catch (err) {
        return (err as Error).message;
      }
    };
    const quick = [{ id: 1, body: "the quick brown fox" }, { id: 3, body: "quick thinking" }];
    try {
      // FTS4 runs its PRAGMA when the connection first opens the table (so first here): once refused, that refusal
      // stood for whatever failed next.
      assert.equal(
        ask("SELECT docid FROM docs4 WHERE docs4 MATCH ?", ["quick OR"]),
        "Cannot run query: malformed MATCH expression: [quick OR]",
      );
      assert.deepEqual(ask("SELECT rowid AS id, body FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rowid"), quick);
      assert.deepEqual(ask("SELECT rowid AS id, body FROM docs_ext WHERE docs_ext MATCH ? ORDER BY rowid"), quick);
      assert.deepEqual(
        ask("SELECT docs.id, docs.body FROM docs_ext JOIN docs ON docs.id = docs_ext.rowid WHERE docs_ext MATCH ?"),
        quick,
      );
      assert.deepEqual(ask("SELECT highlight(docs_fts, 0, '[', ']') AS h FROM docs_fts(?) ORDER BY rank LIMIT 1"), [
        { h: "[quick] thinking" },
      ]);
      assert.deepEqual(ask("SELECT docid AS id, body FROM docs4 WHERE docs4 MATCH ? ORDER BY docid"), quick);
      assert.deepEqual(ask("SELECT docid AS id, body FROM docs3 WHERE docs3 MATCH ? ORDER BY docid"), quick);
      // The module's reads of a content table go through the query's authorizer: what a query may not read, an
      // FTS table's content may not either.
      const refused = 'Cannot run query: "pragma_database_list" is not a schema PRAGMA';
      assert.equal(ask("SELECT * FROM via_view WHERE via_view MATCH ?"), refused);
      assert.equal(ask("SELECT * FROM via_view", []), refused);
      assert.equal(ask("SELECT * FROM via_pragma WHERE via_pragma MATCH ?"), refused);
      assert.equal(ask("SELECT * FROM via_view4 WHERE via_view4 MATCH ?"), refused);
      // The PRAGMAs the modules run stay refused to the query itself.
      assert.equal(
        ask("SELECT * FROM pragma_data_version", []),
        'Cannot run query: "pragma_data_version" is not a read-only schema PRAGMA',
      );
      // After the refusals the tables still answer.
      assert.deepEqual(ask("SELECT rowid AS id, body FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rowid"), quick);
    } finally {
      db.close();
      Deno.removeSync(base, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "runQuery() prices an FTS5 or FTS4 table whose content is a view at no less than that view: a join of billions is refused, not left to the deadline (a red team's count(*) was priced 1,048,576)",
  permissions: perms,
  fn() {
    const base = Deno.makeTempDirSync({ dir: TMP, prefix: "sqlite-fts-view-" });
    const path = join(base, "fts.db");
    const writer = openSqlite(path, {});
    writer.exec(`CREATE TABLE big (x INTEGER PRIMARY KEY);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO big SELECT i FROM n;
      CREATE VIEW cv AS SELECT a.x * 4000000 + b.x * 2000 + c.x AS id, 'hello world' AS body FROM big a, big b, big c;
      CREATE VIEW small AS SELECT x AS id, 'hello' AS body FROM big;
      CREATE VIRTUAL TABLE f USING fts5(body, content='cv', content_rowid='id');
      CREATE VIRTUAL TABLE "F 2" USING fts5(body, CO="cv", content_rowid='id');
      CREATE VIRTUAL TABLE f4 USING fts4(content="cv", body);
      CREATE VIRTUAL TABLE chained USING fts5(body, content='f', content_rowid='rowid');
      CREATE VIEW over_f AS SELECT * FROM f;
      CREATE VIRTUAL TABLE fine USING fts5(body, content='small', content_rowid='id');`);
    writer.close();
    const db = openDatabase(path, false);
    const options = { ...OPTIONS, maxScanRows: ConfigSchema.parse({}).max_scan_rows, sizes: new DatabaseSizes(db) };
    const ask = (sql: string) => {
      try {
        return JSON.stringify(runQuery(db, sql, options).rows);
      } catch (err) {
        return (err as Error).message;
      }
    };
    try {
      for (
        const sql of [
          "SELECT count(*) FROM f",
          "SELECT rowid FROM f WHERE f MATCH 'hello'",
          'SELECT count(*) FROM "F 2"',
          "SELECT count(*) FROM f4",
          "SELECT count(*) FROM chained",
          "SELECT count(*) FROM over_f",
        ]
      ) {
        assert.match(
          ask(sql),
          /^Cannot run query: its plan would visit about 8,000,000,000 rows \(2,000 × 2,000 × 2,000\)/,
          sql,
        );
      }
      // A content view priced within the bound runs.
      assert.equal(ask("SELECT count(*) AS n FROM fine"), '[{"n":2000}]');
    } finally {
      db.close();
      Deno.removeSync(base, { recursive: true });
    }
  },
});
