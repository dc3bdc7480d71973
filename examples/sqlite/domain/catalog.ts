import type { SQLOutputValue } from "node:sqlite";
import type { Sqlite } from "./sqlite.ts";
import { DEFAULT_LIMITS, PolicyError, queryReadOnly, quote } from "@forge/toolkit/validate";
import { Authorizer } from "./authorizer.ts";
import { withAuthorizer } from "./connection.ts";
import { toJsonValue } from "./values.ts";

/** One table or view. */
export interface TableSummary {
  /** Its name, as stored. */
  name: string;
  /** `table` or `view`. */
  type: string;
}

/** A table or view in detail. */
export interface TableDescription extends TableSummary {
  /** The statement that created it. */
  sql: string | null;
  /** Its columns, in order. */
  columns: { name: string; type: string; not_null: boolean; default: string | null; primary_key: number }[];
  /** Its indexes. */
  indexes: { name: string; unique: boolean; origin: string; partial: boolean }[];
  /** Its foreign keys, one entry per column pair. */
  foreign_keys: { column: string; table: string; to: string | null; on_update: string; on_delete: string }[];
  /** Whether a list (columns, indexes or foreign keys) was cut at {@linkcode MAX_CATALOG_ROWS} entries. */
  truncated: boolean;
}

/** The most tables listed, and the most columns, indexes or foreign-key entries one description lists. */
export const MAX_CATALOG_ROWS = 10_000;
/**
 * The most bytes of JSON one description may take, as a query's result: a
 * file's column can be named with megabytes, and its CREATE statement holds
 * the name again.
 */
export const MAX_DESCRIPTION_BYTES: number = DEFAULT_LIMITS.maxResultBytes;
const MAX_NAME_LENGTH = 256;

/**
 * Lists the database's tables and views, SQLite's own (`sqlite_*`) left out, by name.
 *
 * @param db A read-only connection.
 * @returns The tables and whether the list was cut at {@linkcode MAX_CATALOG_ROWS}.
 * @throws {PolicyError} When SQLite fails.
 */
export function listTables(db: Sqlite): { tables: TableSummary[]; truncated: boolean } {
  const found = read(
    db,
    "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' " +
      "ORDER BY name",
    [],
  );
  return {
    tables: found.rows.map((r) => ({ name: String(r.name), type: String(r.type) })),
    truncated: found.truncated,
  };
}

/**
 * Describes one table or view. The name is looked up in SQLite's schema
 * (ignoring ASCII case, as SQLite does) and then passed to the schema
 * PRAGMA functions as a bound parameter: it never becomes SQL text, so no
 * name needs quoting and none can inject.
 *
 * @param db A read-only connection.
 * @param name The table's name as the caller gave it.
 * @returns Its columns, indexes and foreign keys, each list cut at {@linkcode MAX_CATALOG_ROWS} entries (`truncated`
 * says one was).
 * @throws {PolicyError} When the name is malformed, no table or view has it, or its description's JSON would pass
 * {@linkcode MAX_DESCRIPTION_BYTES}.
 */
export function describeTable(db: Sqlite, name: string): TableDescription {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || hasControl(name)) {
    throw new PolicyError(
      "invalid-input",
      `Invalid argument "table": must be 1 to ${MAX_NAME_LENGTH} characters without control characters`,
    );
  }
  const count = (n: number) => n.toLocaleString("en-US");
  const tooLarge = (bytes?: number) =>
    new PolicyError(
      "too-large",
      `Cannot describe table ${quote(name)}: its description passes the ${count(MAX_DESCRIPTION_BYTES)} bytes of ` +
        `JSON a result may hold${bytes === undefined ? "" : ` (${count(bytes)})`}: its CREATE statement or column ` +
        "names are that long; read them in parts with run_query, e.g. SELECT cid, substr(name, 1, 100) AS name FROM " +
        "pragma_table_xinfo(?) with the table's name as the parameter",
    );
  const found = read(
    db,
    "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
    [name],
  );
  // A CREATE statement past the read's budget leaves no row: the table is there, too large to show.
  if (found.limit === "max_bytes") throw tooLarge();
  const match = found.rows[0];
  if (match === undefined) {
    throw new PolicyError(
      "not-found",
      `Cannot describe table ${quote(name)}: no such table or view (list_tables shows them)`,
    );
  }
  const table = String(match.name);
  const reads = [
    read(db, "SELECT * FROM pragma_table_xinfo(?) ORDER BY cid", [table]),
    read(db, "SELECT * FROM pragma_index_list(?) ORDER BY name", [table]),
    read(db, "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", [table]),
  ];
  // A list cut by its byte budget would be a description with columns missing.
  if (reads.some((found) => found.limit === "max_bytes")) throw tooLarge();
  const [columns, indexes, keys] = reads.map((found) => found.rows);
  const description: TableDescription = {
    name: table,
    type: String(match.type),
    sql: match.sql === null ? null : String(match.sql),
    columns: columns.map((c) => ({
      name: String(c.name),
      type: String(c.type),
      not_null: Number(c.notnull) === 1,
      default: c.dflt_value === null ? null : String(c.dflt_value),
      primary_key: Number(c.pk),
    })),
    indexes: indexes.map((i) => ({
      name: String(i.name),
      unique: Number(i.unique) === 1,
      origin: String(i.origin),
      partial: Number(i.partial) === 1,
    })),
    foreign_keys: keys.map((k) => ({
      column: String(k.from),
      table: String(k.table),
      to: k.to === null ? null : String(k.to),
      on_update: String(k.on_update),
      on_delete: String(k.on_delete),
    })),
    // A table can have any number of indexes and foreign keys: a cut list says so, as list_tables does.
    truncated: reads.some((found) => found.truncated),
  };
  const bytes = new TextEncoder().encode(JSON.stringify(description)).length;
  if (bytes > MAX_DESCRIPTION_BYTES) throw tooLarge(bytes);
  return description;
}

function read(db: Sqlite, sql: string, params: string[]) {
  const authorizer = new Authorizer({ mode: "read", allowRecursive: false });
  return withAuthorizer(db, authorizer, "read the schema", () => {
    let found: ReturnType<typeof queryReadOnly>;
    try {
      found = queryReadOnly(db, sql, { params, maxRows: MAX_CATALOG_ROWS });
    } catch (err) {
      // queryReadOnly words SQLite's failure as a query's ("Cannot run query: …"): withAuthorizer words it as this read.
      throw err instanceof PolicyError && err.cause instanceof Error ? err.cause : err;
    }
    const rows = found.rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, toJsonValue(v as SQLOutputValue)]))
    );
    return { rows, truncated: found.truncated, limit: found.limit };
  });
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
