// Every permission flag that takes a list is built here. Deno splits a flag's
// value at each comma and cannot escape one, so a path with a comma would
// grant two things (`--allow-run=/out/srv,/usr/bin/python3`); a NUL byte
// cannot name a file at all. Such a value is refused, never passed on.
import { quote } from "../internal/quote.ts";

/**
 * One permission flag with its list: `--allow-read=/a,/b`.
 *
 * @param action What is being done, for the message (`compile`, `bundle`).
 * @param flag The flag, e.g. `--allow-run`.
 * @param values What it grants, each a path, host or name.
 * @returns `flag=values` joined by commas.
 * @throws {TypeError} `Cannot <action>: …` when a value holds a comma or a NUL byte.
 */
export function listFlag(action: string, flag: string, values: readonly string[]): string {
  for (const value of values) {
    if (value.includes(",") || value.includes("\0")) {
      throw new TypeError(`Cannot ${action}: ${flag} value ${quote(value, 200)} contains a NUL byte or a comma`);
    }
  }
  return `${flag}=${values.join(",")}`;
}
