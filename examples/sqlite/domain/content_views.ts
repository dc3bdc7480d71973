// An FTS3/4/5 table with external content (`content='v'`) reads that table or
// view itself, by SQL of its module's, which the query's plan never shows:
// the plan has one virtual loop. A view's rows can be a join of billions, so
// the view a full-text table reads is priced as a statement of its own.
import { sqlIdentifier, sqlLowerCase, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
import type { Sqlite } from "./sqlite.ts";
import type { DatabaseSizes } from "./database_sizes.ts";
import type { Authorizer } from "./authorizer.ts";
import { explainQueryPlan, queryCost } from "./query_cost.ts";

/** The most virtual tables and content views {@linkcode contentViewCost} follows for one query. */
export const MAX_CONTENT_HOPS = 64;

/**
 * The names a virtual table's module arguments give as option values: every
 * name or string after an `=` in an argument (`content='cv'`,
 * `content_rowid=id`), unquoted. FTS5 takes any prefix of an option's name
 * (`c='cv'` is `content`), so no key is trusted: every value counts.
 *
 * @param createSql A `CREATE VIRTUAL TABLE … USING module(…)` statement.
 * @returns The values, in order; none without arguments.
 * @throws {SqlLexError} When the statement cannot be tokenized.
 *
 * @example The content view of an FTS5 table
 * ```ts
 * import { optionValues } from "./content_views.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(optionValues("CREATE VIRTUAL TABLE f USING fts5(body, content='cv', content_rowid='id')"), [
 *   "cv",
 *   "id",
 * ]);
 * ```
 */
export function optionValues(createSql: string): string[] {
  const tokens = tokenizeSql(createSql);
  const open = tokens.findIndex((token) => token.text === "(");
  if (open === -1) return [];
  const values: string[] = [];
  let afterEquals = false;
  let depth = 0;
  for (const token of tokens.slice(open)) {
    if (token.text === "(") depth++;
    else if (token.text === ")") depth--;
    if (token.text === "," && depth === 1) afterEquals = false;
    else if (token.text === "=") afterEquals = true;
    else if (afterEquals) {
      const value = token.kind === "string" ? token.text.slice(1, -1).replaceAll("''", "'") : sqlIdentifier(token);
      if (value !== undefined) values.push(value);
    }
  }
  return values;
}

/** Options of {@linkcode contentViewCost}. */
export interface ContentViewCostOptions {
  /** The authorizer the pricing runs under: its reads are cleared and read back around each view's plan. */
  pricing: Authorizer;
  /** A price past every bound: what a virtual table whose statement cannot be read costs. */
  cap: number;
}

/**
 * The nests of the content views the virtual tables among `reads` read (FTS
 * `content=`), each priced by `queryCost` as `SELECT * FROM` the view, and of
 * those that the tables and views these read in turn read, up to
 * {@linkcode MAX_CONTENT_HOPS}. A virtual table whose statement is too long or
 * cannot be tokenized costs `cap`, as do more hops. Run it under
 * `options.pricing`, after `sizes.refresh`.
 *
 * @param db The connection.
 * @param reads The tables and views the statement reads (see `Authorizer.reads`).
 * @param sizes The sizes of `db`.
 * @param options The authorizer and the cap.
 * @returns The nests, to add to the statement's.
 */
export function contentViewCost(
  db: Sqlite,
  reads: Iterable<string>,
  sizes: DatabaseSizes,
  options: ContentViewCostOptions,
): number[][] {
  const nests: number[][] = [];
  const queue = [...reads];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const name = sqlLowerCase(queue.shift()!);
    if (seen.has(name)) continue;
    seen.add(name);
    if (seen.size > MAX_CONTENT_HOPS) return [...nests, [options.cap]];
    const sql = sizes.virtualTableSql(name);
    if (sql === null) continue;
    let values: string[];
    try {
      if (sql === undefined) throw new RangeError("Cannot price a virtual table: its statement was not read");
      values = optionValues(sql);
    } catch {
      nests.push([options.cap]);
      continue;
    }
    for (const value of values) {
      if (sizes.viewSql([value]).length === 0) {
        // A table: a virtual one (an FTS table) may read a view in turn.
        if (sizes.tables.has(sqlLowerCase(value))) queue.push(value);
        continue;
      }
      const statement = `SELECT * FROM main."${value.replaceAll('"', '""')}"`;
      options.pricing.reads.clear();
      const plan = explainQueryPlan(db, statement);
      const viewReads = [...options.pricing.reads];
      const views = sizes.viewSql(viewReads);
      nests.push(...queryCost(plan, tokenizeSql(statement), sizes, { views, reads: viewReads }));
      queue.push(...viewReads);
    }
  }
  return nests;
}
