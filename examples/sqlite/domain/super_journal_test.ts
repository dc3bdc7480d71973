// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
// A journal planted beside a writable server's database to name another file
// (a super-journal): rolling it back, SQLite would read that file and delete
// it, outside every Deno grant. Found by a red team (the victim file was gone
// after one `execute`).
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { PROC_PROGRAMS } from "../proc.ts";
import { DatabaseProcesses } from "./database_processes.ts";
import { journalOf, journalProblem } from "./super_journal.ts";
import { TMP } from "./_fixture.ts";

const perms: Deno.PermissionOptions = {
  read: [TMP],
  write: [TMP],
  env: ["TMPDIR"],
  run: [Deno.execPath(), ...PROC_PROGRAMS],
};
const MAGIC = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

/** A database of two rows in a fresh folder, and a file outside it that a planted journal can name. */
function setUp(): { dir: string; db: string; victim: string } {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ dir: TMP }));
  Deno.mkdirSync(join(dir, "data"));
  Deno.mkdirSync(join(dir, "victim"));
  const db = join(dir, "data", "shop.db");
  const conn = new DatabaseSync(db);
  conn.exec("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2)");
  conn.close();
  const victim = join(dir, "victim", "important.txt");
  Deno.writeTextFileSync(victim, "precious\n");
  return { dir, db, victim };
}

/** A hot journal (first byte set, no valid header) that ends with a super-journal record naming `target`. */
function plantSuperJournal(db: string, target: string): void {
  const name = new TextEncoder().encode(target);
  const checksum = name.reduce((sum, byte) => (sum + byte) >>> 0, 0);
  Deno.writeFileSync(
    journalOf(db),
    new Uint8Array([1, ...be32(262_145), ...name, ...be32(name.length), ...be32(checksum), ...MAGIC]),
  );
}

Deno.test({
  name:
    "journalProblem() finds a journal that names a super-journal or is not a plain file, and passes none or a plain one",
  permissions: perms,
  async fn() {
    const { dir, db, victim } = setUp();
    try {
      assert.equal(journalProblem(db), undefined, "no journal");
      // A real hot journal, as a killed write leaves it: SQLite must be free to roll it back.
      const live = new DatabaseSync(db);
      live.exec("PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1; BEGIN; UPDATE t SET n = -n");
      const plain = Deno.readFileSync(journalOf(db));
      live.exec("ROLLBACK");
      live.close();
      Deno.writeFileSync(journalOf(db), plain);
      assert.ok(plain.length >= 16);
      assert.equal(journalProblem(db), undefined, "a journal this server could have left");
      Deno.writeFileSync(journalOf(db), new Uint8Array(5));
      assert.equal(journalProblem(db), undefined, "shorter than a record");
      plantSuperJournal(db, victim);
      assert.match(journalProblem(db)!, /names a super-journal, a file SQLite would read and delete/);
      Deno.removeSync(journalOf(db));
      // Deno makes a symlink only under unscoped grants: sh makes it.
      const ln = await new Deno.Command("sh", { args: ["-c", 'ln -s "$1" "$2"', "sh", victim, journalOf(db)] })
        .output();
      assert.ok(ln.success);
      assert.match(journalProblem(db)!, /is not a plain file/);
      Deno.removeSync(journalOf(db));
      Deno.mkdirSync(journalOf(db));
      assert.match(journalProblem(db)!, /is not a plain file/);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a writable server's database process refuses a planted journal that names another file, which stays",
  permissions: perms,
  async fn() {
    const { dir, db, victim } = setUp();
    try {
      plantSuperJournal(db, victim);
      const pool = new DatabaseProcesses(db, { writable: true });
      try {
        await assert.rejects(
          pool.run({ kind: "list" }, { timeoutMs: 30_000 }),
          /Cannot open the database for writing: the database's journal was not left by this server/,
        );
      } finally {
        await pool.close();
      }
      assert.equal(Deno.readTextFileSync(victim), "precious\n", "the file the journal names is still there");
      assert.ok(Deno.statSync(journalOf(db)).isFile, "the journal is left for the operator");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a journal planted after the writer opened is refused before the next write (SQLite rolls back at every transaction), and the file it names stays",
  permissions: perms,
  async fn() {
    const { dir, db, victim } = setUp();
    try {
      const pool = new DatabaseProcesses(db, { writable: true });
      const insert = (n: number) => ({
        kind: "execute" as const,
        sql: `INSERT INTO t (n) VALUES (${n})`,
        params: [],
        limits: { maxSqlLength: 1_000, allowRecursive: false },
      });
      try {
        assert.deepEqual(await pool.run(insert(3), { timeoutMs: 30_000 }), { changes: 1, last_insert_rowid: 3 });
        plantSuperJournal(db, victim);
        await assert.rejects(
          pool.run(insert(4), { timeoutMs: 30_000 }),
          /Cannot execute: the database's journal was not left by this server/,
        );
      } finally {
        await pool.close();
      }
      assert.equal(Deno.readTextFileSync(victim), "precious\n", "the file the journal names is still there");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a writable database reached through a link is refused: SQLite keeps its journal beside the real path",
  permissions: perms,
  async fn() {
    const { dir, db } = setUp();
    try {
      const link = join(dir, "link.db");
      const ln = await new Deno.Command("sh", { args: ["-c", 'ln -s "$1" "$2"', "sh", db, link] }).output();
      assert.ok(ln.success);
      assert.match(journalProblem(link)!, /reached through a link \(its real path is .*shop\.db\)/);
      assert.equal(journalProblem(db), undefined);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
