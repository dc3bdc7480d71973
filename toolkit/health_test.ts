import assert from "node:assert/strict";
import { health } from "./health.ts";

/** Runs `fn` with console.log captured; returns what it returned and what it printed. */
function printed<T>(fn: () => T): [T, unknown[][]] {
  const lines: unknown[][] = [];
  const real = console.log;
  console.log = (...args: unknown[]) => void lines.push(args);
  try {
    return [fn(), lines];
  } finally {
    console.log = real;
  }
}

Deno.test("health() prints ok and answers true when --health is among the arguments", () => {
  assert.deepEqual(printed(() => health(["--health"])), [true, [["ok"]]]);
  assert.deepEqual(printed(() => health(["-config", "x.json", "--health"])), [true, [["ok"]]]);
  assert.deepEqual(printed(() => health(["--health", "--", "x"])), [true, [["ok"]]]);
});

Deno.test("health() answers false and prints nothing without the exact --health flag before any --", () => {
  // After `--` it is an operand, not the flag.
  for (const args of [[], ["--healthy"], ["-health"], ["--health=1"], ["health"], ["--", "--health"]]) {
    assert.deepEqual(printed(() => health(args)), [false, []], JSON.stringify(args));
  }
});

Deno.test({
  name: "health() with no arguments given reads Deno.args, and needs no permission to",
  permissions: "none",
  fn() {
    // Under `deno test` the process has no arguments of its own.
    assert.deepEqual(Deno.args, []);
    assert.deepEqual(printed(() => health()), [false, []]);
  },
});
