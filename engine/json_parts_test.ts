import assert from "node:assert/strict";
import { encodeReply, escapedBytes, fits, JsonParts, LARGE_UNITS } from "./json_parts.ts";
import { encodeResult } from "./jsonrpc.ts";
import { ExactNumber } from "./id.ts";

const big = (unit: string, units = LARGE_UNITS * 3 + 7) => unit.repeat(Math.ceil(units / unit.length));

/** Every piece joined, as the writer writes them. */
function text(reply: string | JsonParts): string {
  return typeof reply === "string" ? reply : [...reply.pieces()].join("");
}

Deno.test("encodeReply keeps a short result one string, exactly as encodeResult writes it", () => {
  const result = { content: [{ type: "text", text: "hi" }] };
  assert.equal(encodeReply(7, result), encodeResult(7, result));
});

const cases: [string, unknown][] = [
  ["ASCII", big("x")],
  ["control characters", big('\u0001\n\t"\\')],
  ["a surrogate pair on every slice boundary", big("a😀")],
  ["lone surrogates", big("\ud800x\udc00")],
  ["two-byte and three-byte characters", big("é€")],
  ["nested large strings, undefined, functions, toJSON", {
    a: [big("y"), undefined, () => 1, new Date(0), { skip: undefined, keep: big("\u0000") }],
    b: { toJSON: (key: string) => `key ${key}` },
    c: new String(big("s")),
  }],
  ["an array of many small objects", Array.from({ length: 20_000 }, (_, i) => ({ i, s: "é\u0002" }))],
];

for (const [label, value] of cases) {
  Deno.test(`encodeReply writes ${label} byte for byte as JSON.stringify`, () => {
    const result = { content: [{ type: "text", text: "x" }], structuredContent: { value } };
    const reply = encodeReply(ExactNumber.of("9007199254740993"), result);
    assert.ok(reply instanceof JsonParts, "large enough to go in pieces");
    const expected = `{"jsonrpc":"2.0","id":9007199254740993,"result":${JSON.stringify(result)}}`;
    assert.equal(text(reply), expected);
    assert.equal(reply.bytes(), new TextEncoder().encode(expected).length);
    assert.ok(reply.head().startsWith('{"jsonrpc":"2.0","id":9007199254740993,'));
  });
}

Deno.test("encodeReply refuses a large result that refers to itself, as JSON.stringify does", () => {
  const loop: Record<string, unknown> = { text: big("z") };
  loop.self = { back: loop, pad: big("p") };
  assert.throws(() => encodeReply(1, loop), TypeError);
});

Deno.test("escapedBytes counts the UTF-8 bytes of JSON.stringify without building it", () => {
  for (const s of ["", "plain", "\u0000\u001f\b\t\n\f\r", '"\\', "é€😀", "\ud800", "\udc00x", "a\ud83d"]) {
    assert.equal(escapedBytes(s), new TextEncoder().encode(JSON.stringify(s)).length, JSON.stringify(s));
  }
});

Deno.test("encodeReply stops building past maxBytes: a sparse array of a billion items is refused, not built", () => {
  assert.throws(() => encodeReply(1, { rows: new Array(1_000_000_000) }, 1024 * 1024), {
    name: "ReplyTooLarge",
    message: "Cannot serialise the result: it takes more than 1048576 bytes (maxMessageBytes)",
  });
  // Large strings are kept as they are, so a reply of one string over the limit is still built, to be sized exactly.
  const big = encodeReply(1, { text: "x".repeat(2 * 1024 * 1024) }, 1024 * 1024);
  assert.equal(typeof big === "string" ? big.length : big.bytes(), 2 * 1024 * 1024 + 45);
});

/** What fits() answers, by its definition: one walk, a call per value, stopping once the budget is spent. */
function fitsByDefinition(value: unknown, budget: number): number {
  if (typeof value === "string") return budget - value.length;
  if (value === null || typeof value !== "object") return budget - 8;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return budget - 8;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && budget >= 0; i++) budget = fitsByDefinition(value[i], budget - 1);
    return budget;
  }
  for (const key in value) {
    budget = fitsByDefinition((value as Record<string, unknown>)[key], budget - key.length - 4);
    if (budget < 0) break;
  }
  return budget;
}

Deno.test("fits() answers as its one-walk definition over generated results, tool results and budgets that run out", () => {
  let seed = 12345;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const inherited = { inheritedKey: "from the prototype" };
  const leaf = (): unknown => {
    const r = next();
    if (r < 0.35) return "x".repeat(Math.floor(next() * 40));
    if (r < 0.45) return Math.floor(next() * 1000);
    if (r < 0.5) return next() < 0.5;
    if (r < 0.55) return null;
    if (r < 0.6) return undefined;
    if (r < 0.65) return new Date(0);
    if (r < 0.7) return ExactNumber.of("1.50");
    if (r < 0.75) return { toJSON: () => "x".repeat(500) };
    return "";
  };
  const valueOf = (depth: number): unknown => {
    const r = next();
    if (depth === 0 || r < 0.3) return leaf();
    const n = Math.floor(next() * 4);
    if (r < 0.6) {
      const items: unknown[] = [];
      for (let i = 0; i < n; i++) items.push(valueOf(depth - 1));
      if (next() < 0.1) items.length += 2; // holes
      return items;
    }
    const object: Record<string, unknown> = next() < 0.15 ? Object.create(inherited) : {};
    for (let i = 0; i < n; i++) object[["type", "text", "content", "isError", "k"][i]] = valueOf(depth - 1);
    return object;
  };
  const toolResult = (): unknown => {
    const content = [];
    for (let i = Math.floor(next() * 4); i > 0; i--) {
      content.push(next() < 0.8 ? { type: "text", text: "y".repeat(Math.floor(next() * 60)) } : valueOf(2));
    }
    const result: Record<string, unknown> = { content };
    if (next() < 0.3) result.isError = next() < 0.5;
    if (next() < 0.2) result.structuredContent = valueOf(3);
    return result;
  };
  let ranOut = 0;
  for (let i = 0; i < 20_000; i++) {
    const value = i % 2 === 0 ? toolResult() : valueOf(4);
    const budget = next() < 0.1 ? LARGE_UNITS : Math.floor(next() * 150);
    const expected = fitsByDefinition(value, budget);
    assert.equal(fits(value, budget), expected, `${budget} for ${JSON.stringify(value)}`);
    if (expected < 0) ranOut++;
  }
  // Both answers were exercised, many times.
  assert.ok(ranOut > 2_000 && ranOut < 18_000, `${ranOut} ran out`);
});
