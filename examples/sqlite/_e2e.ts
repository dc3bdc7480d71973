// Setup for the end-to-end tests: a database built from the sample's
// shop.sql in a temp folder, a canary database outside it, and a config file
// written the safe way (mode 0600 in a 0700 folder of its own, replaced by
// rename). Imported only by *_test.ts files in this folder.
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { runDeno, type RunDenoResult } from "@forge/toolkit/testing";

/** The server's entry point. */
export const SCRIPT: string = fileURLToPath(new URL("./main.ts", import.meta.url));
/** The checkout (where deno.json maps the toolkit's names). */
export const REPO: string = dirname(dirname(dirname(SCRIPT)));
/** The sample's SQL. */
export const SAMPLE_SQL: string = fileURLToPath(new URL("./sample/shop.sql", import.meta.url));

/**
 * The config keys that change none of the flags the server prints: limits. Checked by running
 * `--print-permissions` for each (byte-identical output); `writable`, `database` and `audit_file` do change them.
 */
const LIMIT_KEYS: readonly string[] = ["max_rows", "query_timeout_ms", "allow_recursive", "max_memory_mb"];

/** A tree a test file makes once and serves again and again, its database and config set afresh at each start. */
export interface ReusedTree {
  /** The tree (removed when the file's tests end). */
  readonly tree: E2eTree;
  /**
   * Rebuilds the database from the sample, then runs `sql` on it; writes the config `extra` over the defaults; and
   * returns the flags the server prints for that config. They are printed again only for a config that differs in
   * more than its limits (read-only and writable): they name the config file and the database, the same paths at
   * every start.
   */
  reset(extra: Record<string, unknown>, sql?: string): Promise<string[]>;
}

/** Makes a {@linkcode ReusedTree}: one tree and one printing of flags per kind of config, for a test file. */
export async function reusedTree(): Promise<ReusedTree> {
  const tree = await makeE2eTree();
  globalThis.addEventListener("unload", () => Deno.removeSync(tree.base, { recursive: true }));
  const printed = new Map<string, Promise<string[]>>();
  return {
    tree,
    async reset(extra, sql) {
      await Deno.remove(dirname(tree.db), { recursive: true });
      await Deno.mkdir(dirname(tree.db));
      exec(tree.db, await Deno.readTextFile(SAMPLE_SQL), ...(sql === undefined ? [] : [sql]));
      const config = defaultConfig(tree.db, extra);
      await tree.writeConfig(config);
      const key = JSON.stringify(Object.entries(config).filter(([k]) => !LIMIT_KEYS.includes(k)).sort());
      let flags = printed.get(key);
      if (flags === undefined) {
        printed.set(key, flags = printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO }));
      }
      return flags;
    },
  };
}

/** A tree for one end-to-end test. */
export interface E2eTree {
  /** Everything lives here. */
  base: string;
  /** The config file (its folder holds nothing else). */
  config: string;
  /** The database, built from sample/shop.sql. */
  db: string;
  /** Another SQLite file, outside every flag, holding the canary. */
  canaryDb: string;
  /** The canary's value. */
  canary: string;
  /** Replaces the config atomically (temp file + rename), as operators should. */
  writeConfig(config: Record<string, unknown>): Promise<void>;
  /** Counts the rows of a table, reading the file directly. */
  count(table: string): number;
  /** Removes everything. */
  remove(): Promise<void>;
}

/**
 * Makes the tree: config/sqlite.json naming data/shop.db, and
 * outside/canary.db. `extra` is merged into the config.
 */
export async function makeE2eTree(extra: Record<string, unknown> = {}): Promise<E2eTree> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "sqlite-e2e-" }));
  const [configDir, data, outside] = ["config", "data", "outside"].map((d) => join(base, d));
  await Deno.mkdir(configDir, { mode: 0o700 });
  await Deno.mkdir(data);
  await Deno.mkdir(outside);
  const db = join(data, "shop.db");
  const canaryDb = join(outside, "canary.db");
  const canary = `CANARY-${crypto.randomUUID()}`;
  exec(db, await Deno.readTextFile(SAMPLE_SQL));
  exec(canaryDb, `CREATE TABLE secrets (value TEXT); INSERT INTO secrets VALUES ('${canary}');`);
  const config = join(configDir, "sqlite.json");
  const writeConfig = async (value: Record<string, unknown>) => {
    const temp = join(configDir, `.sqlite.json.${crypto.randomUUID()}`);
    await Deno.writeTextFile(temp, JSON.stringify(value, null, 2), { mode: 0o600 });
    await Deno.rename(temp, config);
  };
  await writeConfig(defaultConfig(db, extra));
  return {
    base,
    config,
    db,
    canaryDb,
    canary,
    writeConfig,
    count(table) {
      const file = new DatabaseSync(db, { readOnly: true });
      const row = file.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
      file.close();
      return row.n;
    },
    remove: () => Deno.remove(base, { recursive: true }),
  };
}

/**
 * The command line a database process must run with: `script` started with
 * read access to the database file `db` and nothing else, told which file
 * `db` was (its device and inode) when the server started (spelled out here,
 * not built by the code under test).
 */
export function databaseProcessCommand(script: string, db: string): string[] {
  const { dev, ino } = Deno.lstatSync(db);
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    "--no-lock",
    "--cached-only",
    `--allow-read=${db}`,
    script,
    "--database-process",
    db,
    "--max-memory-mb=256",
    `--database-id=${dev}:${ino}`,
  ];
}

/** Runs `deno run --quiet --no-prompt <args>` from the checkout with a clean environment. */
export function denoRun(args: string[], env?: Record<string, string>): Promise<RunDenoResult> {
  return runDeno({ args, env, cwd: REPO });
}

/** The config of a tree whose database is `db`: the defaults, and `extra` over them. */
function defaultConfig(db: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { database: db, max_rows: 50, ...extra };
}

function exec(path: string, ...sqls: string[]): void {
  const db = new DatabaseSync(path);
  for (const sql of sqls) db.exec(sql);
  db.close();
}
