import assert from "node:assert/strict";
import { formatNumber, ratio, ratioTarget, renderTable } from "./report.ts";

Deno.test("ratio() divides by the baseline and is undefined when either side failed", () => {
  assert.equal(ratio({ value: 30 }, { value: 10 }), 3);
  assert.equal(ratio({ failed: "no answer" }, { value: 10 }), undefined);
  assert.equal(ratio({ value: 1 }, { failed: "no answer (timeout after 5 s)", expected: true }), undefined);
});

Deno.test("formatNumber() separates thousands and keeps few digits", () => {
  assert.equal(formatNumber(71438.4), "71,438");
  assert.equal(formatNumber(7.666), "7.67");
  assert.equal(formatNumber(19.52), "19.5");
});

Deno.test("ratioTarget() passes at the limit and fails below it for a 'higher is better' figure", () => {
  assert.equal(ratioTarget("t", { value: 25 }, { value: 10 }, 2.5, false).pass, true);
  assert.equal(ratioTarget("t", { value: 24 }, { value: 10 }, 2.5, false).pass, false);
  assert.equal(ratioTarget("t", { value: 12 }, { value: 10 }, 1.1, true).pass, false);
});

Deno.test("ratioTarget() reports a target it cannot measure as not measured, never as passed", () => {
  const target = ratioTarget("t", { failed: "server exited (code 1)" }, { value: 10 }, 1, false);
  assert.equal(target.pass, undefined);
  assert.match(target.measured, /server exited/);
});

Deno.test("renderTable() shows each value with its ratio to the baseline, and a failure as its reason", () => {
  const table = renderTable(
    [{
      key: "k",
      label: "calls",
      unit: "calls/s",
      better: "higher",
      cells: { a: { value: 200 }, b: { value: 100 }, c: { failed: "no answer" } },
    }],
    [{ name: "a", label: "A" }, { name: "b", label: "B" }, { name: "c", label: "C" }],
    "b",
  );
  assert.match(table, /200 \(2\.00×\)/);
  assert.match(table, /100 \(1\.00×\)/);
  assert.match(table, /no answer/);
});
