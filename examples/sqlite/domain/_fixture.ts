// Test setup for domain/ tests: a real SQLite file in a temp folder, and a
// second one outside it (the canary) whose content must never come back.
// Imported only by *_test.ts files in this folder.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type Config, ConfigSchema } from "./config.ts";
import type { Sqlite } from "./sqlite.ts";

/** The temp folder's real path (what test permissions name). */
export const TMP: string = Deno.realPathSync(Deno.env.get("TMPDIR") ?? "/tmp");

/** The fixture's schema and rows: a trigger, a foreign-key cascade, a view, an odd name, big integers and blobs. */
export const FIXTURE_SQL = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  total INTEGER DEFAULT 0
);
CREATE INDEX orders_by_customer ON orders(customer_id);
CREATE TABLE log (msg TEXT);
CREATE TRIGGER customers_log AFTER INSERT ON customers BEGIN INSERT INTO log VALUES ('new customer'); END;
CREATE TABLE "odd name" (x);
CREATE TABLE blobs (id INTEGER PRIMARY KEY, big INTEGER, data BLOB, f REAL);
CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
INSERT INTO customers VALUES (1, 'Ada', 'ada@example.com'), (2, 'Grace', 'grace@example.com');
INSERT INTO orders VALUES (1, 1, 50), (2, 1, 150), (3, 2, 300);
INSERT INTO blobs VALUES (1, 9007199254740993, x'00ff10', 1e999), (2, 42, NULL, -1e999);
`;

/** A database and a canary for one test. */
export interface Fixture {
  /** Everything lives here. */
  base: string;
  /** The database file (in `base/data`). */
  db: string;
  /** Another SQLite file, outside `base/data`, holding {@linkcode Fixture.canary}. */
  canaryDb: string;
  /** The canary's secret value. */
  canary: string;
  /** A config for the database, with `overrides`. */
  config(overrides?: Partial<Record<keyof Config, unknown>>): Config;
  /** Removes everything (sync, so scoped tests can clean up at module level). */
  remove(): void;
}

/**
 * Makes the fixture synchronously, so a test file can build it at load time
 * and name its exact paths in a test's `permissions`.
 */
export function makeFixture(): Fixture {
  const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sqlite-domain-" }));
  Deno.mkdirSync(join(base, "data"));
  Deno.mkdirSync(join(base, "outside"));
  const db = join(base, "data", "app.db");
  const canaryDb = join(base, "outside", "canary.db");
  const canary = `CANARY-${crypto.randomUUID()}`;
  build(db, FIXTURE_SQL);
  build(canaryDb, `CREATE TABLE secrets (value TEXT); INSERT INTO secrets VALUES ('${canary}');`);
  return {
    base,
    db,
    canaryDb,
    canary,
    config: (overrides = {}) => ConfigSchema.parse({ database: db, ...overrides }),
    remove: () => Deno.removeSync(base, { recursive: true }),
  };
}

/**
 * A fixture for a whole test module, made at load time so that scoped
 * tests can name its exact paths, and removed when the module ends —
 * whichever of its tests ran, so `--filter` leaves nothing behind.
 */
export function moduleFixture(): Fixture {
  const fixture = makeFixture();
  globalThis.addEventListener("unload", () => fixture.remove());
  return fixture;
}

/**
 * A test body that gets the database of a fresh fixture, opened by `open`,
 * and closes and removes both afterwards, whatever the body throws.
 */
export function withFixtureDb(open: (path: string) => Sqlite, fn: (db: Sqlite) => void): () => void {
  return () => {
    const fixture = makeFixture();
    const db = open(fixture.db);
    try {
      fn(db);
    } finally {
      db.close();
      fixture.remove();
    }
  };
}

// Run by leaveHotJournal() in a process of its own: a fresh process spills as SQLite's defaults say, where one
// that has opened other connections (and set a heap cap) may keep every changed page in memory instead.
const HOLD_A_WRITE = `
import { DatabaseSync } from "node:sqlite";
const [db, table] = Deno.args;
const conn = new DatabaseSync(db);
conn.exec("PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1; CREATE TABLE " + table + " (n INTEGER, pad TEXT); " +
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) " +
  "INSERT INTO " + table + " SELECT x, printf('%.200c', 'p') FROM c");
conn.exec("BEGIN; UPDATE " + table + " SET n = -n");
console.log("held");
await Deno.stdin.read(new Uint8Array(1));
`;

/**
 * Leaves `db` as a writer killed before its commit leaves it: a process of
 * its own adds a table `table` of 2,000 rows and starts negating its `n`
 * (1 to 2,000) with a one-page cache, so that SQLite syncs the journal and
 * spills changed pages into the file, as a big write does; it is killed
 * (SIGKILL) while it holds them. After a rollback `n` sums to 2,001,000.
 * Needs `--allow-run` for deno.
 *
 * @throws {Error} When the journal left is not hot (SQLite kept the write in memory).
 */
export async function leaveHotJournal(db: string, table = "spill"): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", HOLD_A_WRITE, db, table],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("held\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    said += value;
  }
  child.kill("SIGKILL");
  await child.status;
  await lines.cancel();
  await child.stdin.close().catch(() => {});
  const first = Deno.readFileSync(`${db}-journal`)[0];
  if (!said.includes("held\n") || first === 0) throw new Error("Cannot leave a hot journal: the write kept it cold");
}

function build(path: string, sql: string): void {
  const db = new DatabaseSync(path);
  db.exec(sql);
  db.close();
}
