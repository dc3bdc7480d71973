/**
 * What a hostile value aims at. It decides which arguments get the value by
 * default (a `url` value goes to arguments whose name or description speaks
 * of URLs; the large corpus sends every value to every argument of its type)
 * and the CWE and OWASP MCP Top 10 class of a finding it causes.
 */
export type AttackCategory =
  | "path"
  | "link"
  | "url"
  | "sql"
  | "option"
  | "command"
  | "log"
  | "unicode"
  | "size"
  | "generic"
  | "number"
  | "shape"
  | "type";

/**
 * The argument types a value is sent to: `string` values go to string
 * arguments (and, wrapped, to arrays of strings and to string maps).
 */
export type AttackValueFor = "string" | "number" | "array" | "object";

/**
 * One hostile value. `json` is JSON text, so it can hold what a JavaScript
 * value cannot (`1e400`, `-0`, a duplicate key); `@@name@@` placeholders are
 * filled per run:
 *
 * | placeholder | becomes |
 * | --- | --- |
 * | `@@canary_file@@` | a file outside the policy, holding a secret token |
 * | `@@canary_dir@@` | its folder: anything created there is a finding |
 * | `@@canary_db@@` | an SQLite file there, with the token in table `secrets` |
 * | `@@up@@` | `../` 32 times (`@@up_backslash@@`, `@@up_encoded@@`, `@@up_double_encoded@@`, `@@up_fullwidth@@`) |
 * | `@@sibling@@`, `@@sibling_name@@` | a folder beside the first root whose name starts with the root's |
 * | `@@link_file@@`, `@@link_dir@@` | links planted inside each root, to the canary file and its folder |
 * | `@@listener@@` | `127.0.0.1:port` of the loopback listener that records every hit |
 * | `@@port@@` | its port |
 * | `@@allowed_url@@` | a listener URL whose hits are expected (for redirect bait) |
 * | `@@tag@@` | the case's tag, so a hit names its case |
 * | `@@marker@@` | the token a forged log line starts with |
 * | `@@repeat:N:text@@` | `text` N times |
 *
 * @example A value of your own
 * ```ts
 * import type { AttackValue } from "@forge/toolkit/testing";
 *
 * const value: AttackValue = {
 *   name: "tenant escape",
 *   category: "path",
 *   json: JSON.stringify("../other-tenant/@@tag@@"),
 * };
 * ```
 */
export interface AttackValue {
  /** A short name, unique in its category: it shows in findings and known-failure entries. */
  name: string;
  /** What the value aims at. */
  category: AttackCategory;
  /** The value as JSON text, with placeholders. */
  json: string;
  /**
   * The argument types it goes to.
   * @default {"string"}
   */
  for?: AttackValueFor;
  /**
   * Which arguments get it in the default corpus, tested against each argument's name and description (the large
   * corpus sends every value to every argument).
   * @default {the category's own: path values to path-like names, SQL to sql-like names, …}
   */
  arguments?: RegExp;
  /**
   * Sent only with the large corpus (`FORGE_ATTACK=large`).
   * @default {false}
   */
  large?: boolean;
}

/**
 * A string value for a corpus: the JSON of `value`, for `category`.
 *
 * @param name Its short name.
 * @param category What it aims at.
 * @param value The string, with `@@name@@` placeholders.
 * @param large Only in the large corpus.
 * @returns The value.
 *
 * @example An argument that escapes a tenant folder
 * ```ts
 * import { attackString } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const value = attackString("tenant escape", "path", "../other/@@tag@@");
 * assert.equal(value.json, '"../other/@@tag@@"');
 * ```
 */
export function attackString(name: string, category: AttackCategory, value: string, large = false): AttackValue {
  return { name, category, json: JSON.stringify(value), ...(large ? { large } : {}) };
}
