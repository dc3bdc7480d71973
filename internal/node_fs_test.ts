// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import { nodeFs } from "./node_fs.ts";

Deno.test("nodeFs() is node:fs, loaded once", () => {
  assert.equal(nodeFs(), nodeFs());
  assert.equal(typeof nodeFs().fstatSync, "function");
  assert.equal(typeof nodeFs().constants.O_NOFOLLOW, "number");
});

Deno.test("no module of the library imports node:fs at load: each asks nodeFs() when it first opens a file", async () => {
  const root = new URL("../", import.meta.url);
  const offenders: string[] = [];
  for (
    const folder of ["internal", "validate", "configreload", "permissions", "toolkit", "engine", "stdio", "runner"]
  ) {
    for await (const entry of Deno.readDir(new URL(`${folder}/`, root))) {
      if (!entry.isFile || !entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
      const text = await Deno.readTextFile(new URL(`${folder}/${entry.name}`, root));
      // A value import (not `import type`) outside comments and JSDoc examples.
      const code = text.split("\n").filter((line) => !/^\s*(\*|\/\/)/.test(line)).join("\n");
      if (/^import (?!type )[^;]*from "node:fs(\/promises)?";/m.test(code)) offenders.push(`${folder}/${entry.name}`);
    }
  }
  assert.deepEqual(offenders, []);
});
