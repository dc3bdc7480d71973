import type { SQLInputValue, SQLOutputValue } from "node:sqlite";
import { PolicyError, quote } from "@forge/toolkit/validate";

/** A blob in JSON: its bytes in base64 under a marker key that no SQLite value has. */
export interface BlobJson {
  /** The bytes, base64-encoded. */
  $base64: string;
}

/** A value of a row as JSON. */
export type JsonValue = null | number | string | BlobJson;

/** Bound parameters: positional (`?`, `?1`) or named (`:name`, `@name`, `$name`; the key may leave out the prefix). */
export type SqlParams = SQLInputValue[] | Record<string, SQLInputValue>;

/** The most parameters one call may bind. */
export const MAX_PARAMS = 1000;
const PARAM_NAME = /^[:@$]?[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A value SQLite returned, as JSON that loses nothing silently: integers
 * (read as bigint) become numbers when they are safe integers and decimal
 * strings when they are not; blobs become `{ "$base64": "…" }`; infinite
 * floats become the strings `"Infinity"` and `"-Infinity"` (JSON has no
 * such numbers; SQLite has no NaN).
 *
 * @param value A column value from node:sqlite, read with `readBigInts`.
 * @returns The JSON value.
 */
export function toJsonValue(value: SQLOutputValue): JsonValue {
  if (value === null || typeof value === "string") return value;
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  return { $base64: value.toBase64() };
}

/**
 * The `params` argument of a call as values to bind: an array binds `?`
 * placeholders in order, an object binds named ones. Strings, numbers and
 * null bind as themselves, booleans as 1 and 0, `{ "$base64": "…" }` as a
 * blob. Values are only ever bound, never put into the SQL text.
 *
 * @param params The argument as the client sent it (undefined or null: none).
 * @returns The values to bind.
 * @throws {PolicyError} When the shape or a value cannot be bound.
 */
export function toSqlParams(params: unknown): SqlParams {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) {
    if (params.length > MAX_PARAMS) bad(`at most ${MAX_PARAMS} values can be bound, got ${params.length}`);
    return params.map((value, i) => toSqlValue(value, `params[${i}]`));
  }
  if (typeof params !== "object") bad("must be an array (for ? placeholders) or an object (for :name placeholders)");
  const entries = Object.entries(params as Record<string, unknown>);
  if (entries.length > MAX_PARAMS) bad(`at most ${MAX_PARAMS} values can be bound, got ${entries.length}`);
  const out: Record<string, SQLInputValue> = Object.create(null);
  for (const [name, value] of entries) {
    if (!PARAM_NAME.test(name)) bad(`${quote(name)} is not a parameter name`);
    out[name.replace(/^[:@$]/, "")] = toSqlValue(value, `params.${name}`);
  }
  return out;
}

/**
 * Values to bind as JSON again, the form {@linkcode toSqlParams} reads:
 * blobs as `{ "$base64": "…" }`, everything else as it is. This is how
 * they travel to the database process.
 *
 * @param params From {@linkcode toSqlParams}.
 * @returns The JSON form.
 * @throws {PolicyError} For a bigint outside ±(2^53−1).
 */
export function paramsToJson(params: SqlParams): unknown {
  const one = (value: SQLInputValue): unknown => {
    if (value instanceof Uint8Array) return { $base64: value.toBase64() };
    // toSqlParams makes no bigint; one that JSON cannot hold as a number is refused, never rounded.
    if (typeof value === "bigint") {
      return Number.isSafeInteger(Number(value)) ? Number(value) : bad("a bigint is out of range");
    }
    return value;
  };
  return Array.isArray(params)
    ? params.map(one)
    : Object.fromEntries(Object.entries(params).map(([name, value]) => [name, one(value)]));
}

function toSqlValue(value: unknown, where: string): SQLInputValue {
  if (value === null || typeof value === "string") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) bad(`${where} must be a finite number`);
    return value;
  }
  if (typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const encoded = (value as Record<string, unknown>).$base64;
    if (keys.length === 1 && typeof encoded === "string") {
      try {
        return Uint8Array.fromBase64(encoded);
      } catch {
        bad(`${where}.$base64 is not base64`);
      }
    }
  }
  bad(`${where} must be a string, a number, a boolean, null or { "$base64": "…" }`);
}

function bad(problem: string): never {
  throw new PolicyError("invalid-input", `Invalid argument "params": ${problem}`);
}
