import assert from "node:assert/strict";
import { intProp, schema, stringMapProp, strProp } from "@forge/toolkit";
import { argsWith, argumentCases, baseline } from "./_arguments.ts";
import { ATTACK_VALUES } from "./attack_values.ts";

const input = schema({
  path: strProp("The file"),
  count: intProp("How many", { minimum: 1, maximum: 10 }),
  headers: stringMapProp("Headers"),
}, ["path"]);

Deno.test("baseline() fills required arguments: a path of a read-only tool is '.', of a writing tool a new name", () => {
  assert.deepEqual(baseline(input, true), { path: "." });
  assert.deepEqual(baseline(input, false), { path: "forge-attack-@@tag@@.txt" });
  assert.deepEqual(baseline(schema({ n: intProp("n", { minimum: 3 }) }, ["n"]), true), { n: 3 });
});

Deno.test("argsWith() writes the hostile argument raw, after the others", () => {
  assert.equal(argsWith({ path: ".", n: 1 }, "n", "1e400"), '{"path":".","n":1e400}');
});

Deno.test("argumentCases() sends values that pass the schema and values that break it, by argument", () => {
  const cases = argumentCases(input, ATTACK_VALUES, { large: false, readOnly: true });
  const of = (argument: string, title: string) => cases.find((c) => c.argument === argument && c.title === title);
  assert.equal(of("path", "traversal to the canary")?.passes, true);
  assert.equal(of("path", "traversal to the canary")?.value, '"@@up@@@@canary_file@@"');
  assert.equal(of("path", "loopback hex 0x7f.1"), undefined, "URL values go to URL-like arguments only");
  assert.equal(of("count", "overflow 1e400")?.passes, false);
  assert.equal(of("count", "maximum")?.passes, true);
  assert.equal(of("count", "maximum + 1")?.passes, false);
  assert.equal(of("headers", "newline forges a log line, as a value")?.passes, true);
  assert.equal(of("path", "null instead of string")?.passes, false);
  assert.ok(cases.some((c) => c.title === "__proto__ among the arguments" && c.passes === false));
  assert.ok(cases.some((c) => c.title === '"path" twice, the second hostile'));
  const large = argumentCases(input, ATTACK_VALUES, { large: true, readOnly: true });
  assert.ok(large.some((c) => c.argument === "path" && c.title === "loopback hex 0x7f.1"));
  assert.ok(large.length > cases.length);
});
