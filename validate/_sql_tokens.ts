// A tokenizer for SQLite's lexical grammar: enough to know where comments,
// string literals, quoted identifiers and statements begin and end, so the
// guard judges keywords only where SQLite would read them as keywords.

/** The kinds of token the guard cares about. */
export type SqlTokenKind = "word" | "quoted" | "string" | "blob" | "number" | "param" | "op" | "semicolon";

/** One token; `text` is the source text. */
export interface SqlToken {
  kind: SqlTokenKind;
  text: string;
}

/** A lexical error, with a message fit for `Cannot run query: <message>`. */
export class SqlLexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqlLexError";
  }
}

const OPS = "()[],.+-*/%<>=!|&~";

/** Splits SQL into tokens, dropping whitespace and comments. */
export function tokenize(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
    } else if (c === "-" && next === "-") {
      while (i < n && sql[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end === -1) throw new SqlLexError("the comment is not closed");
      i = end + 2;
    } else if (c === "'") {
      const end = closing(sql, i, "'", "the string literal is not closed");
      tokens.push({ kind: "string", text: sql.slice(i, end) });
      i = end;
    } else if ((c === "x" || c === "X") && next === "'") {
      const end = closing(sql, i + 1, "'", "the blob literal is not closed");
      tokens.push({ kind: "blob", text: sql.slice(i, end) });
      i = end;
    } else if (c === '"' || c === "`") {
      const end = closing(sql, i, c, "the quoted identifier is not closed");
      tokens.push({ kind: "quoted", text: sql.slice(i, end) });
      i = end;
    } else if (c === "[") {
      const end = sql.indexOf("]", i + 1);
      if (end === -1) throw new SqlLexError("the bracketed identifier is not closed");
      tokens.push({ kind: "quoted", text: sql.slice(i, end + 1) });
      i = end + 1;
    } else if (c === ";") {
      tokens.push({ kind: "semicolon", text: c });
      i++;
    } else if (isDigit(c) || (c === "." && isDigit(next))) {
      const start = i;
      while (i < n && (isWordChar(sql[i]) || sql[i] === ".")) i++;
      tokens.push({ kind: "number", text: sql.slice(start, i) });
    } else if (c === "?" || c === ":" || c === "@" || c === "$") {
      const start = i++;
      while (i < n && isWordChar(sql[i])) i++;
      if (c !== "?" && i === start + 1) throw new SqlLexError(`a parameter name is missing after ${JSON.stringify(c)}`);
      tokens.push({ kind: "param", text: sql.slice(start, i) });
    } else if (isWordStart(c)) {
      const start = i;
      while (i < n && (isWordChar(sql[i]) || sql[i] === "$")) i++;
      tokens.push({ kind: "word", text: sql.slice(start, i) });
    } else if (OPS.includes(c)) {
      tokens.push({ kind: "op", text: c });
      i++;
    } else {
      const shown = c.charCodeAt(0) < 0x20 ? `U+${c.charCodeAt(0).toString(16).padStart(4, "0")}` : JSON.stringify(c);
      throw new SqlLexError(`unexpected character ${shown}`);
    }
  }
  return tokens;
}

/** The index just past the closing quote; a doubled quote is an escaped one. */
function closing(sql: string, open: number, quote: string, problem: string): number {
  let i = open + 1;
  while (true) {
    const end = sql.indexOf(quote, i);
    if (end === -1) throw new SqlLexError(problem);
    if (sql[end + 1] === quote) {
      i = end + 2;
      continue;
    }
    return end + 1;
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function isWordStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || c.charCodeAt(0) >= 0x80;
}

function isWordChar(c: string): boolean {
  return isWordStart(c) || isDigit(c);
}
