// The price of a query before it runs: SQLite's own plan (EXPLAIN QUERY
// PLAN, which compiles and runs nothing) read as nested loops, each loop
// priced in table rows. The rows are counted on the query thread (counting
// a big table takes time); this file only says what to multiply.
import type { Sqlite } from "./_sqlite.ts";
import { sqlIdentifier, sqlNames, type SqlToken } from "@forge/toolkit/validate";

/**
 * One loop's rows: a number, or the tables whose largest row count it is
 * (`[]` means every table of the database, and at least
 * {@linkcode VIRTUAL_ROWS}: the loop could not be tied to a table).
 */
export type LoopRows = number | string[];

/** What the query thread prices: each nest's loops multiply, the nests add up. */
export interface QueryCost {
  /** Loop nests of two or more loops (a single scan is linear in the file and left to the deadline). */
  nests: LoopRows[][];
}

/** Rows assumed for a lookup on an index by equality, as SQLite assumes without statistics. */
export const EQUALITY_ROWS = 10;
/** Rows assumed for a table-valued function such as `json_each`, at least. */
export const VIRTUAL_ROWS = 1000;

// Words that may follow a table name in a FROM clause and are not its alias.
const NOT_ALIAS = new Set([
  "ON",
  "USING",
  "WHERE",
  "JOIN",
  "LEFT",
  "RIGHT",
  "FULL",
  "INNER",
  "CROSS",
  "NATURAL",
  "OUTER",
  "GROUP",
  "ORDER",
  "LIMIT",
  "HAVING",
  "WINDOW",
  "UNION",
  "EXCEPT",
  "INTERSECT",
  "INDEXED",
  "NOT",
]);

interface PlanRow {
  id: number | bigint;
  parent: number | bigint;
  detail: string;
}

/**
 * The loop nests of a read, from `EXPLAIN QUERY PLAN` on `db` (under
 * whatever authorizer is set). A loop named in the plan by a table or by an
 * alias the statement gives a table counts that table's rows (every table it
 * could be, when a name is reused); any other name, a CTE, a subquery or a
 * name the plan text makes ambiguous counts the largest table's rows. A
 * lookup by rowid counts 1, one by index equality {@linkcode EQUALITY_ROWS},
 * a range the whole table. A correlated subquery's loops multiply the loops
 * around it.
 *
 * @param db The connection.
 * @param sql The statement (a SELECT or WITH; not PRAGMA or EXPLAIN).
 * @param tokens Its tokens, for aliases.
 * @returns The nests to price.
 */
export function queryCost(db: Sqlite, sql: string, tokens: readonly SqlToken[]): QueryCost {
  const tables = new Set(
    (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[])
      .map((row) => row.name.toLowerCase()),
  );
  const aliases = aliasesOf(tokens, tables);
  const rows = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as unknown as PlanRow[])
    .map((row) => ({ id: Number(row.id), parent: Number(row.parent), detail: String(row.detail) }));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const isLoop = (detail: string) => detail.startsWith("SCAN ") || detail.startsWith("SEARCH ");
  const loopsAt = (level: number) => rows.filter((row) => row.parent === level && isLoop(row.detail));
  const price = (detail: string, alone: boolean): LoopRows => loopRows(detail, alone, aliases);
  const outer = (level: number): LoopRows[] => {
    const node = byId.get(level);
    if (node === undefined || !node.detail.startsWith("CORRELATED ")) return [];
    const around = loopsAt(node.parent);
    return [...around.map((row) => price(row.detail, around.length === 1)), ...outer(node.parent)];
  };
  const nests: LoopRows[][] = [];
  for (const level of new Set(rows.map((row) => row.parent))) {
    const loops = loopsAt(level);
    if (loops.length === 0) continue;
    const nest = [...loops.map((row) => price(row.detail, loops.length === 1)), ...outer(level)];
    if (nest.length >= 2) nests.push(nest);
  }
  return { nests };
}

/** Alias (lower case) → the tables it names; each table names itself too. */
function aliasesOf(tokens: readonly SqlToken[], tables: ReadonlySet<string>): Map<string, Set<string>> {
  const aliases = new Map<string, Set<string>>();
  const add = (alias: string, table: string) => {
    const key = alias.toLowerCase();
    aliases.set(key, (aliases.get(key) ?? new Set()).add(table));
  };
  for (const table of tables) add(table, table);
  const names = sqlNames(tokens);
  names.forEach((name, i) => {
    const table = name?.toLowerCase();
    if (table === undefined || !tables.has(table)) return;
    let next = tokens[i + 1];
    if (next?.kind === "word" && next.text.toUpperCase() === "AS") next = tokens[i + 2];
    else if (next?.kind === "word" && NOT_ALIAS.has(next.text.toUpperCase())) return;
    const alias = sqlIdentifier(next);
    if (alias !== undefined) add(alias, table);
  });
  return aliases;
}

/** One loop's rows from its plan line, e.g. `SCAN a` or `SEARCH u USING INDEX uk (k=?)`. */
function loopRows(detail: string, alone: boolean, aliases: ReadonlyMap<string, Set<string>>): LoopRows {
  if (detail === "SCAN CONSTANT ROW") return alone ? 1 : [];
  const search = detail.startsWith("SEARCH ");
  const rest = detail.slice(search ? 7 : 5);
  // A name is the user's text and may contain anything; SQLite's own words follow it, so cut at the last of them.
  const using = rest.lastIndexOf(" USING ");
  const virtual = rest.lastIndexOf(" VIRTUAL TABLE");
  const end = Math.max(using, virtual);
  const name = (end === -1 ? rest : rest.slice(0, end)).toLowerCase();
  const tables = aliases.get(name);
  const whole: string[] = tables === undefined ? [] : [...tables];
  // A table-valued function's rows have nothing to do with any table: priced as the largest one, or VIRTUAL_ROWS.
  if (virtual > using) return [];
  if (!search || using === -1) return whole;
  const how = rest.slice(using);
  if (/ USING (INTEGER PRIMARY KEY|PRIMARY KEY) \(rowid=\?\)$/.test(how)) return 1;
  const constraints = how.match(/\(([^()]*)\)$/)?.[1] ?? "";
  if (constraints !== "" && !/[<>]/.test(constraints)) return EQUALITY_ROWS;
  return whole;
}
