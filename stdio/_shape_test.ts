import assert from "node:assert/strict";
import { parseWithinShape, shapeOf, shapeRefusal } from "./_shape.ts";
import { type Frame, type LineFrame, LineFramer } from "./_frame.ts";
import type { ShapeLimits } from "../engine/shape_limits.ts";

const enc = new TextEncoder();

/** A line as the framer hands out one read whole: with its text when it is all ASCII. */
function framed(bytes: Uint8Array): LineFrame {
  const chunk = new Uint8Array(bytes.length + 1);
  chunk.set(bytes);
  chunk[bytes.length] = 0x0a;
  let line: Frame | undefined;
  new LineFramer(1 << 30).push(chunk, (frame) => (line = frame));
  assert.ok(line?.kind === "line");
  return line;
}

/** A line with no text: its bytes are decoded and parsed. */
function bytesOnly(bytes: Uint8Array): LineFrame {
  return { kind: "line", size: bytes.length, bytes };
}

Deno.test("shapeOf() counts levels of arrays and objects, in any branch, without recursion", () => {
  const nest = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));
  assert.equal(shapeOf(nest(5), 5, Infinity) === "deep", false);
  assert.equal(shapeOf(nest(6), 5, Infinity) === "deep", true);
  assert.equal(
    shapeOf({ a: 1, b: [2, { c: nest(2) }] }, 5, Infinity) === "deep",
    false,
    "object, array, object, then 2",
  );
  assert.equal(shapeOf({ a: 1, b: [2, { c: nest(3) }] }, 5, Infinity) === "deep", true);
  assert.equal(shapeOf({ shallow: [], deep: { x: { y: { z: [] } } } }, 5, Infinity) === "deep", false);
  assert.equal(
    shapeOf({ shallow: [], deep: { x: { y: { z: [[]] } } } }, 5, Infinity) === "deep",
    true,
    "the deep branch comes last",
  );
  assert.equal(shapeOf("[[[[[[", 1, Infinity) === "deep", false, "brackets in a string are text");
  assert.equal(shapeOf(null, 0, Infinity) === "deep", false);
  assert.equal(
    shapeOf(nest(1_000_000), 999_999, Infinity),
    "deep",
    "a million levels walk without overflowing the stack",
  );
});

Deno.test("shapeOf() finds a key longer than its bound anywhere, before it says deep; array indexes are not keys", () => {
  const long = "k".repeat(11);
  assert.equal(shapeOf({ a: [{ b: 1 }, { [long]: 1 }] }, 100, 10), "long key");
  assert.equal(shapeOf({ a: [{ b: 1 }, { [long]: 1 }] }, 100, 11), undefined);
  assert.equal(shapeOf([[[[{ [long]: [] }]]]], 2, 10), "long key", "a long key is named though the value is too deep");
  assert.equal(shapeOf([[[[{ short: [] }]]]], 2, 10), "deep");
  assert.equal(shapeOf(Array(100_000).fill(0), 100, 3), undefined, "index 99999 is five units, not a key");
});

// Random JSON of every shape the limits count: deep, wide, many values, brackets and separators inside strings.
function randomValue(rand: () => number, budget: { left: number }, depth = 0): unknown {
  budget.left--;
  const r = rand();
  if (budget.left <= 0 || depth > 40 || r < 0.3) {
    const leaf = rand();
    if (leaf < 0.3) return Math.floor(rand() * 100);
    if (leaf < 0.6) return ["", "[]", "{}", ",:", 'a"[b', "x".repeat(Math.floor(rand() * 40))][Math.floor(rand() * 6)];
    return leaf < 0.8 ? null : true;
  }
  const n = Math.floor(rand() * (r < 0.6 ? 2 : 6));
  if (r < 0.65) return Array.from({ length: n }, () => randomValue(rand, budget, depth + 1));
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, randomValue(rand, budget, depth + 1)]));
}

function nested(levels: number): unknown {
  return JSON.parse("[".repeat(levels) + "]".repeat(levels));
}

/** The levels, containers and values (commas and colons) a value's JSON holds. */
function counts(value: unknown, depth = 1): { depth: number; containers: number; values: number } {
  if (value === null || typeof value !== "object") return { depth: 0, containers: 0, values: 0 };
  const items = Array.isArray(value) ? value : Object.values(value);
  const keys = Array.isArray(value) ? 0 : items.length;
  const out = { depth, containers: 1, values: Math.max(0, items.length - 1) + keys };
  for (const item of items) {
    const inner = counts(item, depth + 1);
    out.depth = Math.max(out.depth, inner.depth);
    out.containers += inner.containers;
    out.values += inner.values;
  }
  return out;
}

function seeded(seed: number): () => number {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

Deno.test("parseWithinShape() refuses exactly the lines a scan of every byte refuses, under any limits", () => {
  const rand = seeded(7);
  let refused = 0;
  let walked = 0;
  for (let i = 0; i < 3_000; i++) {
    // Every other line is dense (nested arrays, or a run of zeros: as many containers or values per byte as
    // JSON allows) and judged by limits a step either side of what it holds, where the length bound is tight.
    const dense = i % 2 === 0;
    const p = !dense
      ? randomValue(rand, { left: 200 })
      : rand() < 0.5
      ? nested(1 + Math.floor(rand() * 200))
      : Array(Math.floor(rand() * 200)).fill(0);
    const value = { jsonrpc: "2.0", id: i, method: "x", params: { p } };
    const bytes = enc.encode(JSON.stringify(value));
    const held = counts(value);
    const near = (n: number) => Math.max(1, n - 1 + Math.floor(rand() * 3));
    const limits: ShapeLimits = dense
      ? {
        maxDepth: rand() < 0.5 ? near(held.depth) : 10_000,
        maxContainers: rand() < 0.5 ? near(held.containers) : 10_000,
        maxValues: rand() < 0.5 ? near(held.values) : 10_000,
        // "jsonrpc" is the longest key of a dense line: a limit of 6 refuses it, 7 lets it through.
        maxKeyBytes: rand() < 0.2 ? 6 + Math.floor(rand() * 2) : 10_000,
      }
      : {
        maxDepth: 1 + Math.floor(rand() * 30),
        maxContainers: 1 + Math.floor(rand() * 150),
        maxValues: 1 + Math.floor(rand() * 300),
        maxKeyBytes: rand() < 0.3 ? 7 + Math.floor(rand() * 40) : 10_000,
      };
    const scanned = shapeRefusal(bytes, { ...limits });
    const got = parseWithinShape(bytesOnly(bytes), limits);
    const fromText = framed(bytes);
    assert.ok(fromText.text !== undefined);
    assert.deepEqual(parseWithinShape(fromText, limits), got, `line ${i}: the same answer from its text`);
    if (scanned === undefined) {
      assert.equal(got.kind, "parsed", `line ${i} is parsed as the scan lets it`);
      continue;
    }
    refused++;
    // A line this short is parsed first (a long key too: its keys are looked at once it is parsed).
    if (bytes.length <= 2 * limits.maxContainers && bytes.length <= 2 * limits.maxValues) {
      walked++;
    }
    assert.equal(got.kind, "refused", `line ${i} is refused as the scan refuses it`);
    if (got.kind === "refused") {
      assert.equal(got.log, scanned.log);
      assert.deepEqual(JSON.parse(got.reply), JSON.parse(scanned.reply), "the same answer, with the id");
    }
  }
  assert.ok(refused > 300 && walked > 100, `both paths are exercised (${refused} refused, ${walked} by the walk)`);
});

Deno.test("parseWithinShape() answers a line that does not parse with the limit its brackets break, else a parse error", () => {
  const limits: ShapeLimits = { maxDepth: 10, maxContainers: 1_000, maxValues: 1_000, maxKeyBytes: Infinity };
  const deep = parseWithinShape(bytesOnly(enc.encode("[".repeat(50))), limits);
  assert.equal(deep.kind, "refused");
  assert.match((deep as { log: string }).log, /nested deeper than 10 levels \(maxDepth\)/);
  const broken = parseWithinShape(framed(enc.encode("[".repeat(8) + "oops")), limits);
  assert.equal(broken.kind, "invalid");
});

Deno.test("parseWithinShape() names a too-deep message by the id it parsed to", () => {
  const limits: ShapeLimits = { maxDepth: 5, maxContainers: 1_000, maxValues: 1_000, maxKeyBytes: Infinity };
  const line = `{"jsonrpc":"2.0","method":"x","params":{"p":[[[[[]]]]]},"id":"the-id"}`;
  const got = parseWithinShape(framed(enc.encode(line)), limits);
  assert.equal(got.kind, "refused");
  const reply = JSON.parse((got as { reply: string }).reply);
  assert.equal(reply.id, "the-id");
  assert.deepEqual(reply.error, {
    code: -32600,
    message: "Invalid request: nested deeper than 5 levels (maxDepth)",
    data: { limit: 5 },
  });
});
