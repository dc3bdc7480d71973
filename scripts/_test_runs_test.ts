// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { testRuns } from "./_test_runs.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const read = (file: string) => Deno.readTextFile(join(repo, file));

Deno.test("testRuns() sorts a group's files by the line each has: a process of its own, a module of its own, shared", async () => {
  const texts: Record<string, string> = {
    "a_test.ts": "// test-permissions: --allow-env\nDeno.test(...)",
    "b_test.ts": "// test-permissions: --allow-env\n// test-alone: it replaces Deno.stderr.write\n",
    "c_test.ts": "// test-process: it fills SQLite's heap\n",
    "d_test.ts": "// test-process:\n// test-alone:  \n", // a line without its reason asks for nothing
  };
  const runs = await testRuns(Object.keys(texts), (file) => Promise.resolve(texts[file]));
  assert.deepEqual(runs, { pooled: ["a_test.ts", "d_test.ts"], alone: ["b_test.ts"], ownProcess: ["c_test.ts"] });
});

Deno.test("the files whose tests fill what a process shares each run in a process of their own", async () => {
  // connection_test.ts fills SQLite's heap cap, which is the process's: reply_bounds_test.ts, run beside
  // it in one `deno test --parallel`, once ran out of memory building its database (CI, stop 51). Beside
  // reply_bounds_test.ts, hot_journal_test.ts's writer once left its journal unspilled, so not hot.
  const files = [
    "examples/sqlite/domain/connection_test.ts",
    "examples/sqlite/domain/hot_journal_test.ts",
    "testing/attack/attack_test.ts",
    "validate/read_only_query_test.ts",
  ];
  const runs = await testRuns([...files, "examples/sqlite/domain/reply_bounds_test.ts"], read);
  assert.deepEqual(runs.ownProcess, files);
  assert.deepEqual(runs.pooled, ["examples/sqlite/domain/reply_bounds_test.ts"]);
});
