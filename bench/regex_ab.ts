// ns per `pattern` validation: the toolkit's validator (compileSchema, whose
// patterns run on the linear-time matcher) against the same check done with a
// V8 RegExp (`typeof` then `re.test`, what a validator on V8's engine does),
// interleaved round by round, median of the rounds. Hostile cases run on the
// toolkit only, with V8's time on a short string of the same shape for scale.
// Run with `deno run bench/regex_ab.ts`; the figures go in docs/benchmarks.md.
import { compileSchema } from "../jsonschema/mod.ts";

interface Case {
  name: string;
  pattern: string;
  values: string[];
  v8?: boolean;
}

const CASES: Case[] = [
  { name: "identifier ^[a-z0-9_-]{1,64}$", pattern: "^[a-z0-9_-]{1,64}$", values: ["user_name-42", "Bad Name", "x"] },
  {
    name: "e-mail-ish",
    pattern: "^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$",
    values: ["ann.lee+mcp@example.com", "not an address", "a@b.co"],
  },
  { name: "\\p{L} words", pattern: "^\\p{L}+(?: \\p{L}+)*$", values: ["Zoë Ångström", "naïve café", "x1"] },
  { name: "date with lookahead", pattern: "^(?=\\d{4}-)\\d{4}-\\d{2}-\\d{2}$", values: ["2024-05-01", "24-05-01"] },
];
const HOSTILE: Case[] = [
  { name: "^(a+)+$ on 'a'×N + '!'", pattern: "^(a+)+$", values: [] },
  { name: "(a|a)*b on 'a'×N", pattern: "(a|a)*b", values: [] },
  { name: "(.*a){20}$ on 'a'×N + 'b'", pattern: "(.*a){20}$", values: [] },
];

const ROUNDS = 15;

function nsPer(fn: (value: string) => unknown, values: readonly string[], iterations: number): number {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn(values[i % values.length]);
  return (performance.now() - start) * 1e6 / iterations;
}

function median(list: number[]): number {
  const sorted = list.toSorted((x, y) => x - y);
  return sorted[sorted.length >> 1];
}

function v8Check(pattern: string): (value: unknown) => unknown {
  const re = new RegExp(pattern, "u");
  return (value) => typeof value !== "string" || re.test(value) ? undefined : "pattern";
}

console.log("| pattern | V8 RegExp ns | toolkit ns | ratio |\n| --- | --- | --- | --- |");
for (const c of CASES) {
  const ours = compileSchema({ type: "string", pattern: c.pattern });
  const theirs = v8Check(c.pattern);
  for (const value of c.values) {
    if ((ours(value) === undefined) !== (theirs(value) === undefined)) throw new Error(`Verdicts differ: ${value}`);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(nsPer(theirs, c.values, 200_000));
    b.push(nsPer(ours, c.values, 200_000));
  }
  const [x, y] = [median(a), median(b)];
  console.log(`| ${c.name} | ${x.toFixed(0)} | ${y.toFixed(0)} | ${(y / x).toFixed(2)} |`);
}

console.log("\n| hostile | N | toolkit µs | µs per 1,000 chars |\n| --- | --- | --- | --- |");
for (const c of HOSTILE) {
  const ours = compileSchema({ type: "string", pattern: c.pattern });
  for (const n of [1_000, 100_000]) {
    const value = c.pattern.startsWith("^")
      ? "a".repeat(n) + "!"
      : c.pattern.endsWith("$")
      ? "a".repeat(n) + "b"
      : "a".repeat(n);
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) times.push(nsPer(ours, [value], 3) / 1000);
    const t = median(times);
    console.log(`| ${c.name} | ${n} | ${t.toFixed(0)} | ${(t / n * 1000).toFixed(1)} |`);
  }
}

// V8 on the same shape, at lengths it still answers: each added character doubles its time.
console.log("\n| V8 on ^(a+)+$ | N | ms |\n| --- | --- | --- |");
const re = /^(a+)+$/u;
for (const n of [16, 20, 24]) {
  const start = performance.now();
  re.test("a".repeat(n) + "!");
  console.log(`| 'a'×N + '!' | ${n} | ${(performance.now() - start).toFixed(1)} |`);
}
