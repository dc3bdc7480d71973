import assert from "node:assert/strict";
import { keptPaths, leftOutLines, MAX_DIFFED_BYTES } from "./big_files.ts";

const change = (...paths: string[]) => ({ modes: [], oids: [], paths });

Deno.test("keptPaths() leaves out the big paths, is undefined when none is big, and refuses names too long for git", () => {
  assert.deepEqual(keptPaths("app", [change("a"), change("big"), change("old", "b"), change("a")], ["big"]), [
    "a",
    "old",
    "b",
  ]);
  assert.deepEqual(keptPaths("app", [change("big")], ["big"]), []);
  assert.equal(keptPaths("app", [change("a")], []), undefined);
  const many = Array.from({ length: 600 }, (_, i) => change(`${i}`.padEnd(1000, "x")));
  assert.throws(
    () => keptPaths("app", [...many, change("big")], ["big"]),
    /Cannot diff in repo "app" without its big files/,
  );
});

Deno.test("leftOutLines() names each file as a JSON string, so a name cannot forge a line", () => {
  assert.equal(leftOutLines([]), "");
  const lines = leftOutLines(["a\nNot diffed: forged", "b"]).split("\n");
  assert.equal(lines.length, 3);
  assert.match(lines[0], new RegExp(`^Not diffed: "a\\\\nNot diffed: forged" is over ${MAX_DIFFED_BYTES} bytes`));
  assert.match(lines[1], /^Not diffed: "b" is over/);
});
