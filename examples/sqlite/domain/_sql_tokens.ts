// A tokenizer for SQLite's lexical grammar, enough to tell keywords from
// string literals, quoted identifiers and comments, and to find where
// statements end. validate/ has one too, but keeps it private; see README.

/** The kinds of token the write classifier looks at. */
export type TokenKind = "word" | "quoted" | "string" | "blob" | "number" | "param" | "op" | "semicolon";

/** One token; `text` is the source text (quotes included). */
export interface Token {
  kind: TokenKind;
  text: string;
}

const SPACE = " \t\n\r\f";
const OPS = "()[],.+-*/%<>=!|&~";

/**
 * Splits SQL into tokens, dropping whitespace and comments.
 *
 * @throws {SyntaxError} When a comment, literal or quoted identifier is not closed, or a character is not SQL.
 */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    const start = i;
    if (SPACE.includes(c)) {
      i++;
    } else if (c === "-" && next === "-") {
      while (i < sql.length && sql[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end === -1) throw new SyntaxError("Cannot read the SQL: a comment is not closed");
      i = end + 2;
    } else if (c === "'" || c === '"' || c === "`") {
      i = closing(sql, i, c);
      tokens.push({ kind: c === "'" ? "string" : "quoted", text: sql.slice(start, i) });
    } else if ((c === "x" || c === "X") && next === "'") {
      i = closing(sql, i + 1, "'");
      tokens.push({ kind: "blob", text: sql.slice(start, i) });
    } else if (c === "[") {
      const end = sql.indexOf("]", i + 1);
      if (end === -1) throw new SyntaxError("Cannot read the SQL: a bracketed identifier is not closed");
      i = end + 1;
      tokens.push({ kind: "quoted", text: sql.slice(start, i) });
    } else if (c === ";") {
      i++;
      tokens.push({ kind: "semicolon", text: c });
    } else if (isDigit(c) || (c === "." && isDigit(next))) {
      while (i < sql.length && (isWordChar(sql[i]) || sql[i] === ".")) i++;
      tokens.push({ kind: "number", text: sql.slice(start, i) });
    } else if ("?:@$".includes(c)) {
      i++;
      while (i < sql.length && isWordChar(sql[i])) i++;
      tokens.push({ kind: "param", text: sql.slice(start, i) });
    } else if (isWordStart(c)) {
      while (i < sql.length && (isWordChar(sql[i]) || sql[i] === "$")) i++;
      tokens.push({ kind: "word", text: sql.slice(start, i) });
    } else if (OPS.includes(c)) {
      i++;
      tokens.push({ kind: "op", text: c });
    } else {
      throw new SyntaxError(
        `Cannot read the SQL: unexpected character U+${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      );
    }
  }
  return tokens;
}

/**
 * The name a word or quoted identifier token stands for: quotes removed and
 * doubled quotes undone.
 */
export function identifierOf(token: Token | undefined): string | undefined {
  if (token?.kind === "word") return token.text;
  if (token?.kind !== "quoted") return undefined;
  const open = token.text[0];
  const inner = token.text.slice(1, -1);
  return open === "[" ? inner : inner.replaceAll(open + open, open);
}

/** The index just past the closing quote; a doubled quote is an escaped one. */
function closing(sql: string, open: number, quote: string): number {
  let i = open + 1;
  while (true) {
    const end = sql.indexOf(quote, i);
    if (end === -1) {
      throw new SyntaxError(`Cannot read the SQL: a ${quote === "'" ? "string" : "quoted name"} is not closed`);
    }
    if (sql[end + 1] !== quote) return end + 1;
    i = end + 2;
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
