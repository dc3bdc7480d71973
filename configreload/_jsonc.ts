// A small JSONC parser: strict JSON plus `//` and `/* */` comments and
// trailing commas. It is our own rather than JSON.parse so that it can refuse
// duplicate keys (with JSON.parse the last "roots" silently wins), bound the
// nesting depth and the number of values with a clear error, and report line
// and column without echoing the file's content. It is iterative, so no input
// can overflow the stack.

import { quote } from "../internal/quote.ts";

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

interface Frame {
  readonly value: Record<string, unknown> | unknown[];
  readonly close: string;
  key: string;
}

/** How deep a document may nest, and how many values (arrays, objects and scalars) it may hold. */
export interface JsoncLimits {
  readonly maxDepth: number;
  readonly maxValues: number;
}

/**
 * Parses JSONC text into a JSON value.
 *
 * @throws {SyntaxError} `Cannot parse config: <problem> at line L, column C`.
 */
export function parseJsonc(text: string, limits: JsoncLimits): unknown {
  const { maxDepth, maxValues } = limits;
  const p = new Scanner(text);
  const stack: Frame[] = [];
  // Every value costs what JavaScript makes of it here and in each later pass (a copy, the schema's
  // issues), many times its bytes: the count bounds them before they are built.
  let values = 0;
  while (true) {
    p.skip();
    let value: unknown;
    const c = text[p.pos];
    if (++values > maxValues) p.fail(`it holds more than ${maxValues} values (maxValues)`);
    if (c === "{" || c === "[") {
      if (stack.length >= maxDepth) p.fail(`nesting is deeper than ${maxDepth} levels`);
      p.pos++;
      const frame: Frame = c === "{" ? { value: {}, close: "}", key: "" } : { value: [], close: "]", key: "" };
      stack.push(frame);
      p.skip();
      if (text[p.pos] !== frame.close) {
        if (frame.close === "}") frame.key = p.key(frame.value);
        continue;
      }
      p.pos++;
      stack.pop();
      value = frame.value;
    } else {
      value = p.scalar();
    }
    // A value is complete: attach it, then close every container that ends here.
    while (true) {
      const top = stack.at(-1);
      if (top === undefined) {
        p.skip();
        if (p.pos < text.length) p.fail("unexpected text after the end of the document");
        return value;
      }
      attach(top, value);
      p.skip();
      const next = text[p.pos];
      if (next === ",") {
        p.pos++;
        p.skip();
        if (text[p.pos] !== top.close) {
          if (top.close === "}") top.key = p.key(top.value);
          break;
        }
      } else if (next !== top.close) {
        p.fail(`expected "," or "${top.close}"`);
      }
      p.pos++;
      stack.pop();
      value = top.value;
    }
  }
}

function attach(frame: Frame, value: unknown): void {
  if (Array.isArray(frame.value)) frame.value.push(value);
  // defineProperty, not assignment: a "__proto__" key must stay plain data.
  else Object.defineProperty(frame.value, frame.key, { value, enumerable: true, writable: true, configurable: true });
}

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  fail(problem: string, at: number = this.pos): never {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at && i < this.text.length; i++) {
      if (this.text[i] === "\n") {
        line++;
        lineStart = i + 1;
      }
    }
    throw new SyntaxError(`Cannot parse config: ${problem} at line ${line}, column ${at - lineStart + 1}`);
  }

  skip(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t[this.pos];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") {
        this.pos++;
      } else if (c === "/" && t[this.pos + 1] === "/") {
        const end = t.indexOf("\n", this.pos);
        this.pos = end === -1 ? t.length : end + 1;
      } else if (c === "/" && t[this.pos + 1] === "*") {
        const end = t.indexOf("*/", this.pos + 2);
        if (end === -1) this.fail("unterminated /* comment");
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  key(object: Record<string, unknown> | unknown[]): string {
    const at = this.pos;
    if (this.text[at] !== '"') this.fail('expected a "quoted" key');
    const key = this.string();
    if (Object.hasOwn(object, key)) this.fail(`duplicate key ${quote(key)}`, at);
    this.skip();
    if (this.text[this.pos] !== ":") this.fail('expected ":" after the key');
    this.pos++;
    return key;
  }

  scalar(): unknown {
    const t = this.text;
    const c = t[this.pos];
    if (c === '"') return this.string();
    for (const [word, value] of LITERALS) {
      if (t.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(t);
    if (m !== null) {
      this.pos += m[0].length;
      return Number(m[0]);
    }
    this.fail(c === undefined ? "unexpected end of the document" : `unexpected character ${describe(c)}`);
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    let escaped = false;
    let i = start + 1;
    for (; i < t.length; i++) {
      const code = t.charCodeAt(i);
      if (code === 0x22) break;
      if (code < 0x20) this.fail("control character in a string (write it as an escape)", i);
      if (code === 0x5c) {
        escaped = true;
        i++;
      }
    }
    if (i >= t.length) this.fail("unterminated string", start);
    this.pos = i + 1;
    if (!escaped) return t.slice(start + 1, i);
    try {
      // JSON.parse decodes exactly JSON's escapes; the token is already delimited.
      return JSON.parse(t.slice(start, i + 1));
    } catch {
      return this.fail("invalid escape in a string", start);
    }
  }
}

const LITERALS: readonly (readonly [string, unknown])[] = [["true", true], ["false", false], ["null", null]];

function describe(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f || code === 0xfffd
    ? `U+${code.toString(16).toUpperCase().padStart(4, "0")}`
    : quote(c);
}
