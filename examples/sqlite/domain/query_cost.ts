// The price of a query before it runs: SQLite's own plan (EXPLAIN QUERY
// PLAN, which compiles and runs nothing) read as nested loops, each loop
// priced by the most rows its source can hold. A price only refuses early;
// the call's deadline, which kills the database process, is what bounds a
// query the price lets through.
import type { Sqlite } from "./sqlite.ts";
import { MAX_VALUE_BYTES } from "./connection.ts";
import type { Sizes } from "./database_sizes.ts";
import { SCHEMA_TABLES } from "./authorizer.ts";
import { PolicyError } from "@forge/toolkit/validate";
import {
  sqlIdentifier,
  sqlKeyword,
  sqlLowerCase,
  sqlNames,
  type SqlToken,
  tokenizeSql,
} from "@forge/toolkit/validate/sql-tokens";

/** One line of `EXPLAIN QUERY PLAN`. */
export interface PlanRow {
  /** The line's id. */
  id: number;
  /** The id of the line it sits under (0 at the top). */
  parent: number;
  /** SQLite's text, e.g. `SCAN t` or `SEARCH u USING INDEX uk (k=?)`. */
  detail: string;
}

/** Options of {@linkcode queryCost}. */
export interface QueryCostOptions {
  /**
   * The SQL of the views the statement reads, for the aliases inside them; `undefined` for one left unread, which
   * prices every loop at least as the largest source.
   * @default {[]}
   */
  views?: readonly (string | undefined)[];
  /**
   * The tables and views the statement reads (see `Authorizer.reads`): a loop can only run over those, so a name
   * that could be another table is not priced as it, and a loop tied to nothing costs the largest of these. Every
   * table when absent.
   * @default {undefined}
   */
  reads?: Iterable<string>;
}

/** Rows assumed for a lookup on an index by equality, as SQLite assumes without statistics. */
export const EQUALITY_ROWS = 10;
/**
 * The most rows `json_each` or `json_tree` can produce: one per byte of its
 * input (a JSONB element takes at least one), and no value may pass
 * SQLite's length limit ({@linkcode MAX_VALUE_BYTES}).
 */
export const JSON_ROWS: number = MAX_VALUE_BYTES;
/** The most columns a table can have in this SQLite: what `pragma_table_info` can return for one table. */
export const MAX_COLUMNS = 2000;
/** The least a loop tied to no source is priced at. */
export const UNKNOWN_ROWS = 1000;

// Words that may follow a name in a FROM clause and are not its alias.
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
const JSON_FUNCTIONS = new Set(["json_each", "json_tree", "jsonb_each", "jsonb_tree"]);
const MULTI_INDEX_OR = "MULTI-INDEX OR";
/** A lookup by rowid, as a plan line ends. */
const ROWID_LOOKUP = / USING (INTEGER PRIMARY KEY|PRIMARY KEY) \(rowid=\?\)$/;

/**
 * SQLite's plan of a statement, compiled under whatever authorizer `db` has.
 *
 * @param db The connection.
 * @param sql A SELECT or WITH statement.
 * @returns The plan's lines.
 */
export function explainQueryPlan(db: Sqlite, sql: string): PlanRow[] {
  return db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all()
    .map((row) => ({ id: Number(row.id), parent: Number(row.parent), detail: String(row.detail) }));
}

/**
 * The loop nests of a plan, each loop priced in rows: a table by its row count
 * (a virtual table, never counted, as a virtual loop tied to nothing);
 * a table-valued function by the most its input can give
 * (`json_each`/`json_tree`: {@linkcode JSON_ROWS}; `pragma_*`: the schema's
 * size; `dbstat`: the file's pages); a CTE or subquery by the loops that build
 * it (their product, the parts of a UNION added up); a lookup by rowid 1 and
 * one by index equality {@linkcode EQUALITY_ROWS}, each times the items of the
 * longest literal `IN (…)` list (up to its source's rows) to the power of its
 * `=?` columns (at most the number of literal lists), and times the product of
 * the bounds of the IN lists the plan names as feeding it; a range the whole
 * source. A name is every source the statement (or a view it reads) gives it, and is
 * priced as the dearest of them, so that no alias can talk a price down; a name
 * tied to nothing is the largest table the statement reads (SQLite's schema
 * table, read, counts as one; a virtual one: the largest of every bound
 * above). A correlated subquery's loops multiply the loops around it, and
 * those around each correlated subquery further out that holds it (through a
 * co-routine, a compound's part or a MATERIALIZE; not through a subquery SQLite
 * runs once). A MULTI-INDEX OR is one loop: its parts' lookups added up. Every
 * loop costs at least 1 (a loop over an empty table still runs the loops around
 * it), and a RIGHT JOIN's pass over its unmatched rows is a nest of its own.
 * Nests of a single loop are left out, left to the deadline, unless an IN list
 * drives that loop's lookup (the list is a loop around it).
 *
 * @param plan From {@linkcode explainQueryPlan}.
 * @param tokens The statement's tokens, for its aliases.
 * @param sizes What the sources hold; only the tables a price needs are counted, and only for nests of two loops
 * or more, or of a lookup an IN list drives.
 * @param options The views and tables the statement reads.
 * @returns The nests: the loops of each multiply, the nests add up.
 */
export function queryCost(
  plan: readonly PlanRow[],
  tokens: readonly SqlToken[],
  sizes: Sizes,
  options: QueryCostOptions = {},
): number[][] {
  const views = options.views ?? [];
  const byId = new Map(plan.map((row) => [row.id, row]));
  const childrenById = Map.groupBy(plan.toSorted((a, b) => a.id - b.id), (row) => row.parent);
  const childrenOf = (id: number): PlanRow[] => childrenById.get(id) ?? [];
  // A MULTI-INDEX OR is one loop: each of its `INDEX n` parts runs its lookup once per row of the loops around it.
  const isLoop = (detail: string) =>
    detail.startsWith("SCAN ") || detail.startsWith("SEARCH ") || detail === MULTI_INDEX_OR;
  const loopsAt = (level: number) => childrenOf(level).filter((row) => isLoop(row.detail));
  const isOrPart = (row: PlanRow | undefined) =>
    row !== undefined && /^INDEX \d+$/.test(row.detail) && byId.get(row.parent)?.detail === MULTI_INDEX_OR;
  const built = new Map<string, number[]>();
  for (const row of plan) {
    const materialized = /^(?:MATERIALIZE|CO-ROUTINE) (.*)$/.exec(row.detail)?.[1];
    const name = materialized === undefined ? undefined : sqlLowerCase(materialized);
    if (name !== undefined) built.set(name, [...built.get(name) ?? [], row.id]);
  }
  const fn = new Set([...JSON_FUNCTIONS, "dbstat"]);
  const sources = new Set([...sizes.tables, ...built.keys(), ...fn]);
  const aliases = aliasesOf(tokens, sources);
  // A view left unread (too long) or that the tokenizer does not take: its inner names may read as any source, or as
  // SQLite's own words, so every loop costs at least the largest source.
  let unknownView = false;
  let { longest: listItems, lists: literalLists } = inLists(tokens);
  for (const view of views) {
    try {
      if (view === undefined) throw new RangeError("Cannot price a view: its SQL was not read");
      const viewTokens = tokenizeSql(view);
      const inView = inLists(viewTokens);
      listItems = Math.max(listItems, inView.longest);
      literalLists += inView.lists;
      for (const [alias, names] of aliasesOf(viewTokens, sources)) {
        aliases.set(alias, new Set([...aliases.get(alias) ?? [], ...names]));
      }
    } catch {
      unknownView = true;
    }
  }
  // SQLite writes `SCAN CONSTANT ROW` for a SELECT with no FROM; a name reads the same (`t AS "CONSTANT ROW"`) only
  // where the statement, a view or a table spells it.
  const constantRowNamed = unknownView ||
    [...tokens.map((token) => token.text), ...views, ...sizes.tables]
      .some((text) => text?.toLowerCase().includes("constant row"));
  // A loop runs over rows the statement reads: a table it does not read is no loop's source, and is not counted.
  const read = options.reads === undefined ? undefined : new Set([...options.reads].map(sqlLowerCase));
  const isTable = (name: string) => sizes.tables.has(name) && (read === undefined || read.has(name));
  const schemaBound = () => Math.max(MAX_COLUMNS, sizes.schemaEntries() + 2);
  // What any table-valued source can produce: a virtual table is priced so, never counted (its module may run SQL
  // the file defines to count it).
  const virtualRows = () => Math.max(JSON_ROWS, schemaBound(), sizes.pages());
  const tableRows = (table: string) => sizes.countable(table) ? sizes.rows(table) : virtualRows();
  let largestRows: number | undefined;
  const largest = () =>
    largestRows ??= Math.max(
      UNKNOWN_ROWS,
      ...[...read ?? sizes.tables].filter(isTable).map(tableRows),
      read === undefined || [...read].some((name) => SCHEMA_TABLES.has(name)) ? sizes.schemaEntries() : 0,
    );
  // A virtual loop tied to nothing, or a virtual table: the dearest of any source.
  const virtualBound = () => Math.max(virtualRows(), largest());
  // Each bound is worked out once: CTEs built from CTEs would otherwise be priced again for every name that reads them.
  const bounds = new Map<number, number>();
  const building = new Set<number>();
  const boundOf = (id: number): number => {
    const known = bounds.get(id);
    if (known !== undefined) return known;
    if (building.has(id)) return largest();
    building.add(id);
    try {
      const bound = computeBound(id);
      bounds.set(id, bound);
      return bound;
    } finally {
      building.delete(id);
    }
  };
  const computeBound = (id: number): number => {
    const children = childrenOf(id);
    // A compound's parts (LEFT-MOST SUBQUERY, UNION ALL, …; LEFT and RIGHT when SQLite merges sorted parts,
    // `MERGE (UNION)`) add up; each part's loops multiply.
    const sum = (rows: PlanRow[]) => rows.reduce((total, row) => total + boundOf(row.id), 0);
    const isCompound = (detail = "") => detail.startsWith("COMPOUND ") || detail.startsWith("MERGE (");
    if (isCompound(byId.get(id)?.detail)) return sum(children);
    const compound = children.filter((row) => isCompound(row.detail));
    if (compound.length > 0) return sum(compound);
    const product = (nest: Price[]) => nest.reduce((total, loop) => total * loop(), 1);
    return product(pricedLoopsAt(id)) + rightJoinsAt(id).reduce((total, pass) => total + product(pass), 0);
  };
  // Every source a name can read as (see `parse`), priced as the dearest.
  const sourceRows = (readings: readonly string[], virtual: boolean): number => {
    const names = new Set<string>();
    for (const name of readings) {
      for (const source of [name, name.slice(name.lastIndexOf(".") + 1), ...aliases.get(name) ?? []]) {
        names.add(source);
      }
    }
    const found: number[] = [];
    for (const source of names) {
      if (isTable(source)) found.push(sizes.countable(source) ? sizes.rows(source) : virtualBound());
      if (JSON_FUNCTIONS.has(source)) found.push(JSON_ROWS);
      if (source.startsWith("pragma_")) found.push(schemaBound());
      if (source === "dbstat") found.push(sizes.pages());
      for (const id of built.get(source) ?? []) found.push(boundOf(id));
    }
    // `VALUES (1), (2)` is `SCAN 2-ROW VALUES CLAUSE`, which can hold more rows than any table; an alias can read
    // like it too, and a name tied to nothing still costs the largest table.
    const values = Math.max(0, ...readings.map((name) => Number(/^(\d+)-row values clause$/.exec(name)?.[1] ?? 0)));
    if (found.length > 0 && !unknownView) return Math.max(values, ...found);
    const unknown = virtual ? virtualBound() : largest();
    return Math.max(values, unknown, ...found);
  };
  // A SCAN or SEARCH line is `<name>[ EXISTS][ USING …| VIRTUAL TABLE …][ LEFT-JOIN]`, where the name is the user's
  // text and may read like SQLite's own words (`t AS "u LEFT-JOIN"`): cut at the last USING or VIRTUAL TABLE, which
  // only SQLite writes after a name, and read what is left both with and without the words SQLite may add, so that
  // both readings are priced and the dearer counts.
  const parse = (detail: string) => {
    const search = detail.startsWith("SEARCH ");
    const rest = detail.slice(search ? 7 : 5);
    const using = rest.lastIndexOf(" USING ");
    const virtual = rest.lastIndexOf(" VIRTUAL TABLE");
    const end = Math.max(using, virtual);
    const name = sqlLowerCase(end === -1 ? rest : rest.slice(0, end));
    const readings = [name];
    for (const words of end === -1 ? [" left-join", " exists"] : [" exists"]) {
      const last = readings.at(-1)!;
      if (last.endsWith(words)) readings.push(last.slice(0, -words.length));
    }
    // What follows USING is SQLite's alone: its LEFT-JOIN is cut for the lookup's constraints to be read.
    const how = using > virtual ? rest.slice(using).replace(/ LEFT-JOIN$/, "") : "";
    return { search, how, virtual: virtual > using, readings };
  };
  // A loop over an empty source still runs the loops around it, and after it too when it is an outer join's: every
  // loop costs at least one step per row of the loops around it.
  const price = (row: PlanRow): number => Math.max(1, priceOf(row));
  // SQLite may drive any equality lookup with literal IN lists, and its plan need not say which (no
  // FOR IN-OPERATOR line for `rowid IN (1, 2, 3)`, nor for `a IN (1, 2) AND b IN (3, 4)` on an index of (a, b)): a
  // lookup with k `=?` columns runs once per combination of k lists, each priced as the longest list in the statement
  // or its views (any number of any length in a view left unread), up to the rows of its source; k is at most the
  // number of literal lists. 0 for a lookup no literal list can drive.
  const mostItems = unknownView ? Infinity : listItems;
  const literalKeys = (detail: string): number => {
    if (mostItems <= 1) return 0;
    const { search, how } = parse(detail);
    if (!search || how === "") return 0;
    if (ROWID_LOOKUP.test(how)) return 1;
    const constraints = constraintsOf(how);
    if (!equalitiesOnly(constraints)) return 0;
    return Math.min(equalities(constraints), unknownView ? Infinity : literalLists);
  };
  const priceOf = (row: PlanRow): number => {
    const detail = row.detail;
    if (detail === MULTI_INDEX_OR) return childrenOf(row.id).reduce((total, part) => total + boundOf(part.id), 0);
    if (detail === "SCAN CONSTANT ROW" && !constantRowNamed) return 1;
    const { search, how, virtual, readings } = parse(detail);
    if (search && how !== "") {
      const keys = literalKeys(detail);
      const items = () => keys === 0 ? 1 : Math.max(1, Math.min(mostItems, sourceRows(readings, virtual))) ** keys;
      if (ROWID_LOOKUP.test(how)) return items();
      if (equalitiesOnly(constraintsOf(how))) return EQUALITY_ROWS * items();
    }
    return sourceRows(readings, virtual);
  };
  // An IN list that drives a lookup: SQLite names it after the SEARCH it feeds (`USING ROWID SEARCH ON TABLE big
  // FOR IN-OPERATOR`, `LIST SUBQUERY 1`), or before it inside a MULTI-INDEX OR's part, which holds one lookup; the
  // lookup runs once per item of the list, not once, and once per combination of the lists when several feed it
  // (`a IN (…) AND b IN (…)` on an index of (a, b)): their bounds multiply. No cap by the table's rows: each
  // combination is a probe, found or not.
  const feedsAt = (level: number): Map<number, PlanRow[]> => {
    const feeds = new Map<number, PlanRow[]>();
    const rows = childrenOf(level);
    const orPart = isOrPart(byId.get(level));
    let last: PlanRow | undefined;
    for (const row of rows) {
      if (isLoop(row.detail)) {
        last = row;
        continue;
      }
      const fed = orPart ? rows.find((row) => row.detail.startsWith("SEARCH ")) : last;
      if (fed === undefined || !fed.detail.startsWith("SEARCH ") || !/=\?/.test(fed.detail)) continue;
      if (!/ FOR IN-OPERATOR$|^(?:CORRELATED )?LIST SUBQUERY \d+$/.test(row.detail)) continue;
      feeds.set(fed.id, [...feeds.get(fed.id) ?? [], row]);
    }
    return feeds;
  };
  const listBound = (row: PlanRow): number => {
    const table = /^USING (?:ROWID SEARCH|INDEX .+) ON TABLE (.+) FOR IN-OPERATOR$/.exec(row.detail)?.[1];
    if (table !== undefined) return sourceRows([sqlLowerCase(table)], false);
    return / FOR IN-OPERATOR$/.test(row.detail) ? largest() : boundOf(row.id);
  };
  // Each loop's price is worked out when a nest needs it: a nest of one loop no list drives is never priced, nor its
  // table counted.
  const pricedLoopsAt = (level: number): Price[] => {
    const feeds = once(() => feedsAt(level));
    return loopsAt(level).map((row) =>
      once(() => {
        // A lookup takes one list per `=?` column at most: a list on another column is a filter on the rows found
        // (`id IN (…) AND a IN (…)` looked up by rowid), so only the largest that many multiply.
        const bounds = (feeds().get(row.id) ?? []).map((list) => Math.max(1, listBound(list))).sort((a, b) => b - a);
        return bounds.slice(0, lookupKeys(row.detail)).reduce((total, bound) => total * bound, price(row));
      })
    );
  };
  // How many `=?` columns a lookup has: as many lists can drive it, each one column (a rowid lookup: one).
  const lookupKeys = (detail: string): number => {
    if (ROWID_LOOKUP.test(detail)) return 1;
    return Math.max(1, equalities(constraintsOf(detail)));
  };
  // A lookup an IN list drives is a loop inside a loop (the list's): priced even alone at its level. So is a
  // MULTI-INDEX OR with such a part.
  const listDriven = (level: number): boolean => {
    const feeds = feedsAt(level);
    return loopsAt(level).some((row) =>
      row.detail === MULTI_INDEX_OR
        ? childrenOf(row.id).some((part) => listDriven(part.id))
        : feeds.has(row.id) || literalKeys(row.detail) > 0
    );
  };
  // A RIGHT JOIN's second pass (`RIGHT-JOIN t`, a scan of t for its rows no left row matched) runs the loops after
  // t's own loop once per such row: a nest of its own, whatever the loops before t hold (none, an empty table).
  const rightJoinsAt = (level: number): Price[][] => {
    const loops = loopsAt(level);
    const priced = pricedLoopsAt(level);
    return childrenOf(level).filter((row) => row.detail.startsWith("RIGHT-JOIN ")).map((pass) => {
      const names = new Set(loopsAt(pass.id).flatMap((row) => parse(row.detail).readings));
      // The first loop of that name, so that a name read twice leaves more loops after it, not fewer.
      const own = loops.findIndex((row) =>
        row.detail !== MULTI_INDEX_OR && parse(row.detail).readings.some((name) => names.has(name))
      );
      return [() => boundOf(pass.id), ...priced.slice(own + 1)];
    });
  };
  // The loops whose every row runs the loops at `level` once more. A correlated subquery runs once per row of the
  // loops around it, and a part of a MULTI-INDEX OR once per row of the other loops around that. A subquery or IN
  // list SQLite does not call CORRELATED runs once in all: SQLite keeps its result. Anything else runs once per run
  // of what holds it, so once per row of the loops around a correlated subquery further up: a co-routine, a
  // compound's part, a RIGHT JOIN's pass, and a MATERIALIZE, which the plan does not say whether it reads the query
  // around it (SQLite builds it again only if it does).
  // Walked up in a loop, each level priced once, from the top down: a plan nested thousands of levels deep (a
  // compile bomb's) overflowed the stack of the recursion this was, and priced every level's chain again.
  const arounds = new Map<number, Price[]>();
  const outer = (level: number): Price[] => {
    const chain: number[] = [];
    const seen = new Set<number>();
    for (let at = level; !arounds.has(at) && !seen.has(at);) {
      seen.add(at);
      chain.push(at);
      const node = byId.get(at);
      if (node === undefined || /^(?:SCALAR|LIST) SUBQUERY \d+$/.test(node.detail)) break;
      at = isOrPart(node) ? byId.get(node.parent)!.parent : node.parent;
    }
    for (let i = chain.length - 1; i >= 0; i--) arounds.set(chain[i], aroundOne(chain[i]));
    return arounds.get(level)!;
  };
  // What runs the loops at `level` again, given what runs its parent's (priced before it, or nothing).
  const aroundOne = (level: number): Price[] => {
    const node = byId.get(level);
    if (node === undefined || /^(?:SCALAR|LIST) SUBQUERY \d+$/.test(node.detail)) return [];
    if (node.detail.startsWith("CORRELATED ")) {
      return [...pricedLoopsAt(node.parent), ...(arounds.get(node.parent) ?? [])];
    }
    if (isOrPart(node)) {
      const or = byId.get(node.parent)!;
      const around = loopsAt(or.parent);
      const others = pricedLoopsAt(or.parent).filter((_, i) => around[i].id !== or.id);
      return [...others, ...(arounds.get(or.parent) ?? [])];
    }
    return arounds.get(node.parent) ?? [];
  };
  const nests: number[][] = [];
  for (const level of new Set(plan.map((row) => row.parent))) {
    const node = byId.get(level);
    // A MULTI-INDEX OR's parts are priced in it; a RIGHT JOIN's scan in its pass.
    if (isOrPart(node) || node?.detail.startsWith("RIGHT-JOIN ")) continue;
    const around = outer(level);
    for (const nest of [pricedLoopsAt(level), ...rightJoinsAt(level)]) {
      if (nest.length === 0) continue;
      if (nest.length + around.length >= 2 || listDriven(level)) nests.push([...nest, ...around].map((loop) => loop()));
    }
  }
  return nests;
}

/**
 * Refuses a query whose nests add up to more than `maxScanRows` rows.
 *
 * @param nests From {@linkcode queryCost}.
 * @param maxScanRows The config's `max_scan_rows`.
 * @throws {PolicyError} With the price and the nest that passed it.
 */
export function assertAffordable(nests: readonly number[][], maxScanRows: number): void {
  let total = 0;
  for (const nest of nests) {
    total += nest.reduce((a, b) => a * b, 1);
    if (total > maxScanRows) {
      const count = (n: number) => n.toLocaleString("en-US");
      throw new PolicyError(
        "sql",
        `Cannot run query: its plan would visit about ${count(total)} rows (${nest.map(count).join(" × ")}), ` +
          `more than max_scan_rows (${count(maxScanRows)}); join on indexed columns, filter with WHERE, ` +
          "or join fewer tables",
      );
    }
  }
}

/** A loop's price, worked out on first call. */
type Price = () => number;

/** A lookup's constraints: what its plan line holds in its last parentheses (`a=? AND b>?`), or "". */
function constraintsOf(text: string): string {
  return text.match(/\(([^()]*)\)$/)?.[1] ?? "";
}

/** Whether a lookup's constraints are there and none is a range. */
function equalitiesOnly(constraints: string): boolean {
  return constraints !== "" && !/[<>]/.test(constraints);
}

/** How many columns a lookup's constraints compare with `=?`. */
function equalities(constraints: string): number {
  return constraints.match(/=\?/g)?.length ?? 0;
}

function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** Alias (lower case) → the sources it names; each source names itself too. */
function aliasesOf(tokens: readonly SqlToken[], sources: ReadonlySet<string>): Map<string, Set<string>> {
  const aliases = new Map<string, Set<string>>();
  const add = (alias: string, source: string) => {
    const key = sqlLowerCase(alias);
    aliases.set(key, (aliases.get(key) ?? new Set()).add(source));
  };
  const names = sqlNames(tokens);
  names.forEach((name, i) => {
    const source = name === undefined ? undefined : sqlLowerCase(name);
    if (source === undefined || !(sources.has(source) || source.startsWith("pragma_"))) return;
    add(source, source);
    let at = i + 1;
    // A table-valued function's alias follows its arguments.
    if (tokens[at]?.text === "(") at = closingParen(tokens, at) + 1;
    let next = tokens[at];
    if (sqlKeyword(next) === "AS") next = tokens[at + 1];
    else if (NOT_ALIAS.has(sqlKeyword(next))) return;
    const alias = sqlIdentifier(next);
    if (alias !== undefined) add(alias, source);
  });
  return aliases;
}

/** The items of the longest literal `IN (…)` list in `tokens` (its top-level commas plus one; 0 when none), and the
 * number of such lists. */
function inLists(tokens: readonly SqlToken[]): { longest: number; lists: number } {
  let longest = 0;
  let lists = 0;
  tokens.forEach((token, i) => {
    if (sqlKeyword(token) !== "IN" || tokens[i + 1]?.text !== "(") return;
    const first = sqlKeyword(tokens[i + 2]);
    if (first === "SELECT" || first === "WITH" || first === "VALUES") return;
    let items = 1;
    let depth = 0;
    for (let at = i + 1; at < tokens.length; at++) {
      const text = tokens[at].text;
      if (text === "(") depth++;
      else if (text === ")" && --depth === 0) break;
      else if (text === "," && depth === 1) items++;
    }
    longest = Math.max(longest, items);
    lists++;
  });
  return { longest, lists };
}

/** The index of the `)` that closes the `(` at `open`, or the last token's. */
function closingParen(tokens: readonly SqlToken[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].text === "(") depth++;
    else if (tokens[i].text === ")" && --depth === 0) return i;
  }
  return tokens.length - 1;
}
