import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { compileNamePattern } from "./_name_pattern.ts";

Deno.test("a pattern without * or ? matches names that contain it, ignoring case", () => {
  const match = compileNamePattern("todo");
  assert.equal(match("TODO.md"), true);
  assert.equal(match("my-todo-list.txt"), true);
  assert.equal(match("done.md"), false);
});

Deno.test("a pattern with * or ? is a glob over the whole name, ignoring case", () => {
  const md = compileNamePattern("*.md");
  assert.equal(md("README.MD"), true);
  assert.equal(md("notes.md.bak"), false);
  const two = compileNamePattern("report-??.csv");
  assert.equal(two("report-07.csv"), true);
  assert.equal(two("report-7.csv"), false);
  assert.equal(compileNamePattern("?")("😀"), true, "? is one character, even outside the BMP");
});

Deno.test("a pathological glob does not backtrack exponentially", () => {
  const match = compileNamePattern("*a*a*a*a*a*a*a*a*b");
  assert.equal(match("a".repeat(200)), false);
});

Deno.test("compileNamePattern() refuses an empty, over-long or path-like pattern", () => {
  assert.throws(() => compileNamePattern(""), PolicyError);
  assert.throws(() => compileNamePattern("x".repeat(256)), /longer than 255/);
  assert.throws(() => compileNamePattern("notes/*.md"), /matches names, not paths/);
});
