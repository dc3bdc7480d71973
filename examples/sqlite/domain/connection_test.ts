// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
// test-process: it fills SQLite's heap to its cap, which holds for the whole process: the files run beside it would run out
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { Authorizer } from "./authorizer.ts";
import { MAX_VALUE_BYTES, MEMORY_CAP_MB, openDatabase, sqliteProblem, withAuthorizer } from "./connection.ts";
import { makeFixture, moduleFixture, TMP } from "./_fixture.ts";
import type { Sqlite } from "./sqlite.ts";
import { DatabaseSync } from "node:sqlite";

const MiB = 2 ** 20;
const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
// Built at load time so the scoped tests below can name its exact paths.
const scoped = moduleFixture();

Deno.test({
  name: "openDatabase(path, false) gives a connection SQLite itself keeps read-only, with no ATTACH",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    assert.throws(() => db.exec("DELETE FROM customers"), /attempt to write a readonly database/);
    assert.throws(() => db.exec(`ATTACH DATABASE '${fixture.canaryDb}' AS c`), /too many attached databases - max 0/);
    assert.equal(db.limits.attach, 0);
    assert.equal(db.limits.length, MAX_VALUE_BYTES);
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "openDatabase() caps SQLite's heap for the process: a row of 400 columns of 1 MiB fails instead of growing it",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const columns = Array.from({ length: 400 }, (_, i) => `printf('%.*c', 1048000, 'x') AS c${i}`);
    const sizes = columns.map((_, i) => `length(c${i})`).join(" + ");
    // The LIMIT keeps the inner query whole: SQLite builds its rows with every column at once.
    const wide = db.prepare(`SELECT ${sizes} AS n FROM (SELECT ${columns.join(", ")} FROM orders LIMIT 2)`);
    assert.throws(() => wide.all(), /out of memory/);
    assert.equal(Number(db.prepare("PRAGMA hard_heap_limit").get()?.hard_heap_limit), MEMORY_CAP_MB.default * MiB);
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name:
    "openDatabase() sets the heap cap it is given, and cannot raise a process's cap: a later, larger one is ignored",
  permissions: perms,
  fn() {
    // The cap is SQLite's, for the whole test process, so this test only asks for the default and more:
    // a smaller cap would stay for every later test (database_processes_test.ts tests one in its own processes).
    const fixture = makeFixture();
    const capOf = (db: ReturnType<typeof openDatabase>) =>
      Number(db.prepare("PRAGMA hard_heap_limit").get()?.hard_heap_limit);
    const first = openDatabase(fixture.db, false, { maxMemoryMb: MEMORY_CAP_MB.default });
    assert.equal(capOf(first), MEMORY_CAP_MB.default * MiB);
    const larger = openDatabase(fixture.db, false, { maxMemoryMb: MEMORY_CAP_MB.max });
    assert.equal(capOf(larger), MEMORY_CAP_MB.default * MiB, "a process keeps the smallest cap it was given");
    first.close();
    larger.close();
    fixture.remove();
  },
});

Deno.test({
  name: "openDatabase() refuses a heap cap that is not a whole number of MiB from 16 to 4096, before it opens anything",
  permissions: { read: [scoped.db] },
  fn() {
    for (const maxMemoryMb of [0, 15, 4_097, 32.5, Number.NaN, Infinity]) {
      assert.throws(() => openDatabase(scoped.db, false, { maxMemoryMb }), {
        name: "RangeError",
        message: `Cannot open the database: a heap cap of ${maxMemoryMb} MiB is not a whole number from 16 to 4096`,
      });
    }
  },
});

Deno.test({
  name: "openDatabase() keeps temporary storage in memory: a sort past SQLite's heap cap fails, it does not spill",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    assert.equal(Number(db.prepare("PRAGMA temp_store").get()?.temp_store), 2, "MEMORY");
    // 2,000 × 2,000 rows of ~120 bytes, sorted: about 480 MB, which SQLite would otherwise write to a temp file.
    const big = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2000) " +
      "SELECT a.n AS x, b.n AS y, printf('%.100c', 'p') AS pad FROM c a, c b ORDER BY random()";
    assert.throws(() => db.prepare(big).all(), /out of memory/);
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "openDatabase() with only read access: reading works, read-write is refused with the restart hint",
  permissions: { read: [scoped.db] },
  fn() {
    const reader = openDatabase(scoped.db, false);
    assert.equal((reader.prepare("SELECT count(*) AS n FROM customers").get() as { n: bigint }).n, 2n);
    reader.close();
    assert.throws(() => openDatabase(scoped.db, true), (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.code, "no-permission");
      assert.match(err.message, /^Cannot execute: writing the database is outside what this process was started with/);
      assert.match(err.message, /restart the server with the flags from --print-permissions$/);
      assert.ok(!err.message.includes(scoped.db), "no host path");
      return true;
    });
  },
});

Deno.test({
  name: "openDatabase() without read access to the file is refused with the restart hint",
  permissions: { read: [scoped.canaryDb] },
  fn() {
    assert.throws(
      () => openDatabase(scoped.db, false),
      /^PolicyError: Cannot open the database: reading it is outside/,
    );
  },
});

Deno.test({
  name: "withAuthorizer() turns a refusal into the authorizer's reason and clears the authorizer afterwards",
  permissions: perms,
  fn() {
    const db = openDatabase(scoped.db, false);
    const authorizer = new Authorizer({ mode: "read", allowRecursive: false });
    assert.throws(
      () => withAuthorizer(db, authorizer, "run query", () => db.prepare("SELECT load_extension('x')")),
      /^PolicyError: Cannot run query: "load_extension" is not allowed$/,
    );
    assert.throws(
      () =>
        withAuthorizer(
          db,
          new Authorizer({ mode: "read", allowRecursive: false }),
          "run query",
          () => db.prepare("SELEC"),
        ),
      /^PolicyError: Cannot run query: near "SELEC": syntax error$/,
    );
    // Outside withAuthorizer nothing judges: recursion compiles again.
    db.prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2) SELECT x FROM c");
    db.close();
  },
});

Deno.test({
  name: 'withAuthorizer() says the schema holds a statement past the length limit, where SQLite says only "string or ' +
    "blob too big\", and leaves a value past it in SQLite's words",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = new DatabaseSync(fixture.db);
    // SQLite loads the schema under the connection's length limit before a statement reads the database: one byte
    // past it fails them all.
    const [head, tail] = ["CREATE VIEW long_view AS SELECT '", "' AS x"];
    writer.exec(`${head}${"x".repeat(MAX_VALUE_BYTES + 1 - head.length - tail.length)}${tail}`);
    assert.equal(writer.prepare("SELECT max(octet_length(sql)) AS n FROM sqlite_schema").get()?.n, MAX_VALUE_BYTES + 1);
    writer.close();
    const schema = "the database's schema holds a statement longer than 1,048,576 bytes (SQLite's length limit " +
      "here), so SQLite cannot load the schema and no statement that reads the database can run; shorten or drop " +
      "that CREATE statement with another tool (sqlite3 as the file's owner)";
    const db = openDatabase(fixture.db, false);
    const healthy = openDatabase(scoped.db, false);
    const run = (on: Sqlite, sql: string) => {
      try {
        withAuthorizer(
          on,
          new Authorizer({ mode: "read", allowRecursive: false }),
          "run query",
          () => on.prepare(sql).all(),
        );
        return "ran";
      } catch (err) {
        assert.ok(err instanceof PolicyError);
        return err.message;
      }
    };
    try {
      for (const sql of ["SELECT * FROM customers", "SELECT zeroblob(2000000)"]) {
        assert.equal(run(db, sql), `Cannot run query: ${schema}`, sql);
      }
      // Again: SQLite keeps no schema it could not load.
      assert.equal(run(db, "SELECT name FROM sqlite_schema"), `Cannot run query: ${schema}`);
      assert.equal(run(healthy, "SELECT zeroblob(2000000)"), "Cannot run query: string or blob too big");
      assert.equal(sqliteProblem(healthy, new Error("no code")), "no code");
    } finally {
      db.close();
      healthy.close();
      fixture.remove();
    }
  },
});
