import assert from "node:assert/strict";
import { arg, buildArgv } from "./command_args.ts";
import { PolicyError } from "./policy_error.ts";

Deno.test("buildArgv() keeps typed parts in order and puts operands after --", () => {
  const argv = buildArgv([
    arg.word("log"),
    arg.flag("--oneline"),
    arg.value("ref", "HEAD~2"),
    arg.operands("path", ["a b", "-p"]),
  ]);
  assert.deepEqual(argv, ["log", "--oneline", "HEAD~2", "--", "a b", "-p"]);
});

Deno.test("buildArgv() refuses a caller's value that could be read as an option", () => {
  for (const text of ["--output=/tmp/x", "-p", "-", ""]) {
    assert.throws(() => buildArgv([arg.value("rev", text)]), PolicyError, text);
  }
});

Deno.test("buildArgv() refuses NUL bytes in any part", () => {
  assert.throws(() => buildArgv([arg.value("rev", "a\0b")]), PolicyError);
  assert.throws(() => buildArgv([arg.operands("path", ["a\0"])]), PolicyError);
  assert.throws(() => buildArgv([arg.word("a\0")]), TypeError);
});

Deno.test("buildArgv() refuses malformed server parts: a flag without a dash, a word with one, operands not last", () => {
  assert.throws(() => buildArgv([arg.flag("oneline")]), TypeError);
  assert.throws(() => buildArgv([arg.word("--oneline")]), TypeError);
  assert.throws(() => buildArgv([arg.operands("path", ["a"]), arg.word("x")]), TypeError);
});

Deno.test("buildArgv() refuses an operand list holding a non-string", () => {
  assert.throws(() => buildArgv([arg.operands("paths", [42 as unknown as string])]), PolicyError);
});

Deno.test("buildArgv() passes an option's value as its own word, even when it starts with a dash", () => {
  assert.deepEqual(buildArgv([arg.word("grep"), arg.option("-e", "pattern", "-x")]), ["grep", "-e", "-x"]);
  assert.throws(() => buildArgv([arg.option("e", "pattern", "x")]), TypeError);
  assert.throws(() => buildArgv([arg.option("-e", "pattern", "")]), PolicyError);
});
