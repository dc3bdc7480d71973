// Test setup for the tool tests: a real SQLite file, a Manager over a config
// the test can change, served in memory through the toolkit's real framer to
// the official SDK client. Imported only by *_test.ts files in this folder.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type Middleware, Server } from "@forge/toolkit";
import { connectInMemory, type InMemorySession } from "@forge/toolkit/testing";
import { type Config, ConfigSchema } from "../domain/config.ts";
import { Manager } from "../domain/manager.ts";
import { registerAll } from "./register.ts";

/** The temp folder's real path (what test permissions name). */
export const TMP: string = Deno.realPathSync(Deno.env.get("TMPDIR") ?? "/tmp");

/** A served sqlite server over a temp database. */
export interface Session extends InMemorySession {
  /** The server (its tool names show what is registered). */
  server: Server;
  /** The database file. */
  db: string;
  /** The canary value, held in another SQLite file outside the database's folder. */
  canary: string;
  /** Replaces the config the next call sees (`database` stays unless given). */
  set(overrides: Partial<Record<keyof Config, unknown>>): void;
  /** Counts the rows of a table, reading the file directly. */
  count(table: string): number;
  /** Closes the session and removes the files. */
  end(): Promise<void>;
}

/** Options of {@linkcode session}. */
export interface SessionOptions {
  /** The config at start (on top of the database). */
  config?: Partial<Record<keyof Config, unknown>>;
  /** Middleware for the served side. */
  middleware?: Middleware[];
}

/** Makes a database and a canary, a Manager over them, and connects the SDK client in memory. */
export async function session(options: SessionOptions = {}): Promise<Session> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "sqlite-tools-" }));
  await Deno.mkdir(join(base, "data"));
  await Deno.mkdir(join(base, "outside"));
  const db = join(base, "data", "shop.db");
  const canary = `CANARY-${crypto.randomUUID()}`;
  exec(
    db,
    `
    CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER, image BLOB);
    CREATE TABLE audit (msg TEXT);
    CREATE TRIGGER products_audit AFTER DELETE ON products BEGIN INSERT INTO audit VALUES ('deleted'); END;
    INSERT INTO products VALUES (1, 'pen', 250, x'89504e47'), (2, 'ink', 900, NULL), (3, 'pad', 9007199254740993, NULL);
  `,
  );
  exec(join(base, "outside", "canary.db"), `CREATE TABLE secrets (v); INSERT INTO secrets VALUES ('${canary}');`);
  let config = ConfigSchema.parse({ database: db, ...options.config });
  const mgr = new Manager(() => Promise.resolve(config), { initial: config, pollMs: 5 });
  const server = new Server({ name: "sqlite" });
  await registerAll(server, mgr);
  const connected = await connectInMemory(server, { serve: { middleware: options.middleware } });
  return {
    ...connected,
    server,
    db,
    canary,
    set: (overrides) => (config = ConfigSchema.parse({ database: db, ...overrides })),
    count(table) {
      const file = new DatabaseSync(db, { readOnly: true });
      const row = file.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
      file.close();
      return row.n;
    },
    async end() {
      await connected.close();
      await mgr.close();
      await Deno.remove(base, { recursive: true });
    },
  };
}

export { textOf } from "../../served.ts";

function exec(path: string, sql: string): void {
  const db = new DatabaseSync(path);
  db.exec(sql);
  db.close();
}
