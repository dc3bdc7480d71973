// test-permissions: --allow-env=CFGX_SET,CFGX_EMPTY,CFGX_UNSET,CFGX_SECRET
import assert from "node:assert/strict";
import { expand } from "./expand.ts";

const env = (entries: Record<string, string>) => new Map(Object.entries(entries));

Deno.test("expand() replaces ${VAR} in every string value and leaves keys alone", () => {
  const result = expand({ "${K}": "${A}", list: ["x${A}y", 1, true, null], nested: { deep: ["${B}"] } }, {
    env: env({ A: "1", B: "two", K: "key" }),
  });
  assert.deepEqual(result.value, { "${K}": "1", list: ["x1y", 1, true, null], nested: { deep: ["two"] } });
  assert.deepEqual(result.names, ["A", "B"]);
});

Deno.test("expand() turns a missing variable into the empty string and records it", () => {
  const result = expand({ out: "${DATA_DIR}/reports" }, { env: env({}) });
  assert.deepEqual(result.value, { out: "/reports" });
  assert.deepEqual(result.fields, [{
    path: ["out"],
    variables: [{ name: "DATA_DIR", state: "missing" }],
    whole: false,
  }]);
});

Deno.test("expand() records an empty variable as empty", () => {
  const result = expand(["${E}"], { env: env({ E: "" }) });
  assert.deepEqual(result.fields, [{ path: [0], variables: [{ name: "E", state: "empty" }], whole: true }]);
});

Deno.test("expand() writes $${ as a literal ${ and keeps every other $", () => {
  const result = expand("$${A} costs $5, $$ and $ at the end $", { env: env({ A: "x" }) });
  assert.equal(result.value, "${A} costs $5, $$ and $ at the end $");
  assert.deepEqual(result.fields, []);
  assert.deepEqual(result.names, []);
});

Deno.test("expand() marks shell syntax beyond ${NAME} as malformed", () => {
  for (const raw of ["${A:-default}", "${A", "${}", "${1A}", "${A B}", "x ${ y"]) {
    const result = expand({ f: raw }, { env: env({ A: "v" }) });
    assert.equal(result.fields.length, 1, raw);
    assert.match(result.fields[0].malformed ?? "", /does not start a \$\{NAME\} reference/, raw);
  }
});

Deno.test("expand() says whether a field is exactly one reference", () => {
  const result = expand({ a: "${T}", b: " ${T}", c: "${T}${T}" }, { env: env({ T: "tok" }) });
  assert.deepEqual(result.fields.map((f) => [f.path[0], f.whole]), [["a", true], ["b", false], ["c", false]]);
});

Deno.test("expand() copies the input instead of changing it", () => {
  const input = { a: ["${A}"] };
  const result = expand(input, { env: env({ A: "v" }) });
  assert.deepEqual(input, { a: ["${A}"] });
  assert.notEqual(result.value, input);
});

Deno.test("expand() walks any depth without recursion", () => {
  let doc: unknown = "${A}";
  for (let i = 0; i < 100_000; i++) doc = [doc];
  const result = expand(doc, { env: env({ A: "v" }) });
  assert.equal(result.fields[0].path.length, 100_000);
});

Deno.test("expand() reads each referenced variable once and no other", () => {
  const reads: string[] = [];
  expand(["${A}", "${A}", "${B}"], { env: { get: (name) => (reads.push(name), "v") } });
  assert.deepEqual(reads, ["A", "B"]);
});

Deno.test("expand().redact() hides every value that came from the environment", () => {
  const result = expand({ token: "${T}" }, { env: env({ T: "tok-123456" }) });
  assert.equal(result.redact("got tok-123456!"), "got ${T}!");
});

Deno.test({
  name: "expand() reads real environment variables under scoped permissions",
  permissions: { env: ["CFGX_SET", "CFGX_EMPTY", "CFGX_UNSET"] },
  fn() {
    Deno.env.set("CFGX_SET", "/srv/data");
    Deno.env.set("CFGX_EMPTY", "");
    Deno.env.delete("CFGX_UNSET");
    try {
      const result = expand(["${CFGX_SET}/a", "${CFGX_EMPTY}/b", "${CFGX_UNSET}/c", "${CFGX_SECRET}"]);
      assert.deepEqual(result.value, ["/srv/data/a", "/b", "/c", ""]);
      assert.deepEqual(result.fields.map((f) => f.variables[0].state), ["set", "empty", "missing", "denied"]);
      assert.throws(() => Deno.env.get("CFGX_SECRET"), Deno.errors.NotCapable);
    } finally {
      Deno.env.delete("CFGX_SET");
      Deno.env.delete("CFGX_EMPTY");
    }
  },
});

Deno.test("expand() does not expand references inside a variable's value", () => {
  const reads: string[] = [];
  const values = new Map([["A", "${B}"], ["B", "never"]]);
  const result = expand({ f: "${A}" }, { env: { get: (name) => (reads.push(name), values.get(name)) } });
  assert.deepEqual(result.value, { f: "${B}" });
  assert.deepEqual(reads, ["A"]);
});

Deno.test("expand() refuses more than maxReferences ${, malformed ones too, naming the limit and reading no more", () => {
  const message = "Cannot expand config: it holds more than 10000 ${NAME} references (maxReferences)";
  const x = env({ X: "x" });
  assert.equal(expand(Array(10_000).fill("${X}"), { env: x }).fields.length, 10_000);
  assert.throws(() => expand(Array(10_001).fill("${X}"), { env: x }), { name: "RangeError", message });
  assert.throws(() => expand({ a: Array(10_001).fill("${") }, { env: x }), { name: "RangeError", message });
  assert.throws(() => expand("${X}".repeat(10_001), { env: x }), { name: "RangeError", message });
  const reads: string[] = [];
  const reader = { get: (name: string) => (reads.push(name), "v") };
  assert.throws(() => expand(["${A}", "${B}", "${C}"], { env: reader, maxReferences: 2 }), {
    message: "Cannot expand config: it holds more than 2 ${NAME} references (maxReferences)",
  });
  assert.deepEqual(reads, ["A", "B"]);
});

Deno.test("expand() refuses references that add more than maxExpandedChars characters, each use counted", () => {
  const big = env({ BIG: "v".repeat(4096) });
  assert.equal(expand(Array(1024).fill("${BIG}"), { env: big }).fields.length, 1024);
  assert.throws(() => expand(Array(1025).fill("${BIG}"), { env: big }), {
    name: "RangeError",
    message:
      "Cannot expand config: its references add more than 4194304 characters of variables' values (maxExpandedChars)",
  });
  assert.throws(() => expand("${A}/${A}", { env: env({ A: "abc" }), maxExpandedChars: 5 }), /more than 5 characters/);
  assert.equal(expand("${A}/${A}", { env: env({ A: "abc" }), maxExpandedChars: 6 }).value, "abc/abc");
});

Deno.test("expand() refuses limits that are not positive integers", () => {
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(() => expand({}, { env: env({}), maxReferences: bad }), /maxReferences .* is not a positive integer/);
    assert.throws(() => expand({}, { env: env({}), maxExpandedChars: bad }), /maxExpandedChars/);
  }
});

Deno.test("expand() copies a wide array item by item: the same values, and fields at the same paths", () => {
  // Wider than any array sized up front, with containers and references among plain items.
  const wide = Array.from(
    { length: 200_000 },
    (_, i) =>
      i % 50 === 0 ? `\${A}/${i}` : i % 50 === 1 ? { k: [i, "${A}"], ["__proto__"]: "p" } : i % 2 ? i : `s$${i}`,
  );
  const result = expand({ list: wide, after: "$${A}${A}" }, { env: env({ A: "/a" }) });
  const list = (result.value as { list: unknown[] }).list;
  assert.equal(list.length, wide.length);
  for (let i = 0; i < wide.length; i++) {
    const item = wide[i];
    if (i % 50 === 0) assert.equal(list[i], `/a/${i}`);
    else if (i % 50 === 1) assert.equal(JSON.stringify(list[i]), `{"k":[${i},"/a"],"__proto__":"p"}`);
    else assert.equal(list[i], item);
  }
  assert.equal(Object.getPrototypeOf(list[1]), Object.prototype);
  const paths = wide.flatMap((_, i) => i % 50 === 0 ? [["list", i]] : i % 50 === 1 ? [["list", i, "k", 1]] : []);
  assert.deepEqual(result.fields.map((f) => f.path), [...paths, ["after"]]);
  assert.deepEqual(result.fields.at(-1), { path: ["after"], variables: [{ name: "A", state: "set" }], whole: false });
  assert.equal((result.value as { after: string }).after, "${A}/a");
});
