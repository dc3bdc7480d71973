import { quote } from "../internal/quote.ts";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A field's location in a config document: keys and array indexes. */
export type FieldPath = readonly (string | number)[];

/**
 * Writes a field path the way a reader of the config file would:
 * `db.password`, `roots[0]`, `headers["x-api-key"]`; the whole document is
 * `(root)`.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment) && segment.length <= 64) {
      out += out === "" ? segment : `.${segment}`;
    } else out += `[${quote(String(segment))}]`;
  }
  return out;
}
