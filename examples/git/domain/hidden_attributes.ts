// A repository's own `info/attributes` (in its git data, where no tool of
// this server shows it) gives paths attributes as a `.gitattributes` does, and
// some of them change what `git add` stores: `working-tree-encoding` stored a
// UTF-8 `café` re-encoded as `cafÃ©`, `text` stored CRLF as LF, `ident` stored
// `$Id: …$` as `$Id$`. git_status and git_diff compare through the same
// conversion, so nothing shows. A `.gitattributes` in the work tree does the
// same in plain sight, and applies (the README's git_commit section); the
// hidden file may only name attributes that leave the stored bytes alone.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";

/** Attributes that never change the bytes `git add` stores (`binary` is `-diff -merge -text`). */
const STORED_AS_IS: ReadonlySet<string> = new Set([
  "binary",
  "delta",
  "diff",
  "export-ignore",
  "export-subst",
  "merge",
  "whitespace",
]);

/** A line of an attributes file that sets an attribute outside {@linkcode STORED_AS_IS}. */
export interface StoringLine {
  /** Its number, from 1. */
  readonly line: number;
  /** Its text, trimmed. */
  readonly text: string;
}

/**
 * The lines of an attributes file that set or give a value to an attribute
 * that may change the bytes git stores, or to one it does not know (a
 * macro may stand for any). Unsetting (`-text`) or unspecifying (`!text`)
 * leaves the bytes alone. A macro's definition (`[attr]name …`) counts by
 * the attributes it sets.
 *
 * @param text The file's text.
 * @returns The lines, in order.
 *
 * @example A conversion and a safe line
 * ```ts
 * import { storingLines } from "./hidden_attributes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(storingLines("*.png binary\n*.txt text eol=crlf\n"), [{ line: 2, text: "*.txt text eol=crlf" }]);
 * ```
 */
export function storingLines(text: string): StoringLine[] {
  const found: StoringLine[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "" || line.startsWith("#")) continue;
    if (attributesOf(line).some(stores)) found.push({ line: i + 1, text: line });
  }
  return found;
}

/** The attribute tokens of a line: after its pattern (quoted or not), or after a macro's name. */
function attributesOf(line: string): string[] {
  let rest: string;
  if (line.startsWith('"')) {
    let end = 1;
    while (end < line.length && line[end] !== '"') end += line[end] === "\\" ? 2 : 1;
    rest = line.slice(end + 1);
  } else {
    const space = line.search(/\s/);
    rest = space < 0 ? "" : line.slice(space);
  }
  return rest.split(/\s+/).filter((token) => token !== "");
}

/** Whether a token sets an attribute that may change the stored bytes. */
function stores(token: string): boolean {
  if (token.startsWith("-") || token.startsWith("!")) return false;
  const equals = token.indexOf("=");
  return !STORED_AS_IS.has(equals < 0 ? token : token.slice(0, equals));
}

/**
 * Refuses a commit while the repository's `info/attributes` (in its common
 * directory; its size and kind were checked before) has a line
 * {@linkcode storingLines} finds.
 *
 * @param name The repository's configured name, for the message.
 * @param commonDir The common directory's real path.
 * @throws {PolicyError} When it has one (code `no-permission`).
 *
 * @example A repository without the file passes
 * ```ts
 * import { assertNoHiddenConversions } from "./hidden_attributes.ts";
 *
 * await assertNoHiddenConversions("app", await Deno.makeTempDir());
 * ```
 */
export async function assertNoHiddenConversions(name: string, commonDir: string): Promise<void> {
  const text = await Deno.readTextFile(join(commonDir, "info", "attributes")).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return "";
    throw err;
  });
  const [first] = storingLines(text);
  if (first === undefined) return;
  throw new PolicyError(
    "no-permission",
    `Cannot commit to repo ${quote(name)}: its info/attributes gives files attributes git may apply as it stores ` +
      `them (line ${first.line}: ${quote(first.text)}), which git_status and git_diff do not show; this server ` +
      "commits the work tree's bytes: move the line to a .gitattributes in the work tree, or remove it",
  );
}
