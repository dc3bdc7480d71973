// test-permissions: --allow-run --allow-read --allow-write={tmp}
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { docTestsFromLog, extractDocTests, withAbsoluteImports, writeDocTests } from "./_doc_tests.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const SAMPLE = "scripts/testdata/doc_tests/sample.ts";

Deno.test("docTestsFromLog takes each generated module from its opening line to the next log line, and nothing else", () => {
  const log = [
    "DEBUG RS - deno::args:600 - Finished config loading.",
    "DEBUG RS - deno::util::extract:995 - file:///r/a.ts#3-9.ts:",
    'import { a } from "file:///r/a.ts";',
    'Deno.test("file:///r/a.ts#3-9.ts", async ()=>{',
    "    a();",
    "",
    "    a();",
    "});",
    "",
    "DEBUG RS - deno::cache::cache_db:204 - Opening cache",
    "not part of any module",
    "DEBUG RS - deno::util::extract:995 - file:///r/b.ts#1-4.ts:",
    "b();",
  ].join("\n");
  assert.deepEqual(docTestsFromLog(log), [
    {
      specifier: "file:///r/a.ts#3-9.ts",
      source:
        'import { a } from "file:///r/a.ts";\nDeno.test("file:///r/a.ts#3-9.ts", async ()=>{\n    a();\n\n    a();\n});\n',
    },
    { specifier: "file:///r/b.ts#1-4.ts", source: "b();\n" },
  ]);
  assert.deepEqual(docTestsFromLog("DEBUG RS - deno::args:600 - nothing\nplain output\n"), []);
});

Deno.test("withAbsoluteImports resolves relative specifiers against the documented file and leaves the rest", () => {
  const source = [
    'import { x } from "./x.ts";',
    "import { y } from '../lib/y.ts';",
    'import "./side_effect.ts";',
    'export { z } from "./z.ts";',
    'import assert from "node:assert/strict";',
    'import { t } from "@forge/toolkit";',
    'const m = await import("./lazy.ts");',
    'const text = "./not_an_import.ts";',
  ].join("\n");
  assert.equal(
    withAbsoluteImports(source, "file:///r/pkg/a.ts#3-9.ts"),
    [
      'import { x } from "file:///r/pkg/x.ts";',
      "import { y } from 'file:///r/lib/y.ts';",
      'import "file:///r/pkg/side_effect.ts";',
      'export { z } from "file:///r/pkg/z.ts";',
      'import assert from "node:assert/strict";',
      'import { t } from "@forge/toolkit";',
      'const m = await import("file:///r/pkg/lazy.ts");',
      'const text = "./not_an_import.ts";',
    ].join("\n"),
  );
});

/** Each test's name and whether it passed, from `deno test` output (NO_COLOR). */
function outcomes(text: string): Map<string, "ok" | "FAILED"> {
  const found = new Map<string, "ok" | "FAILED">();
  for (const [, name, outcome] of text.matchAll(/^(?:\S+ => )?(.+?) \.\.\. (ok|FAILED)\b/gm)) {
    found.set(name.replace(/^\S+ => /, ""), outcome as "ok" | "FAILED");
  }
  return found;
}

async function denoTest(args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--no-check", ...args],
    cwd: repo,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}

Deno.test("the examples run shared in one module pass and fail exactly as under `deno test --doc`, by the same names", async () => {
  const theirs = outcomes(await denoTest(["--doc", SAMPLE]));
  const tests = await extractDocTests(Deno.execPath(), repo, [], [SAMPLE]);
  assert.equal(tests.length, 4, "the four runnable blocks; the ignored and the JSON one are not code");
  const dir = await Deno.makeTempDir();
  try {
    const modules = await writeDocTests(tests, dir, 1);
    assert.equal(modules.length, 1);
    const ours = outcomes(await denoTest(modules));
    assert.deepEqual(ours, theirs);
    // What the sample is for: the export used without an import and the relative import pass, the
    // failing example fails, and the example's own Deno.test runs under its own name.
    assert.deepEqual([...ours.values()].sort(), ["FAILED", "ok", "ok", "ok"]);
    assert.equal(ours.get("a test inside an example"), "ok");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeDocTests spreads the examples over at most `shares` modules, each example once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const tests = Array.from({ length: 5 }, (_, i) => ({ specifier: `file:///r/a.ts#${i}-${i + 2}.ts`, source: "" }));
    const modules = await writeDocTests(tests, dir, 2);
    assert.equal(modules.length, 2);
    const imported = (await Promise.all(modules.map((m) => Deno.readTextFile(m)))).join("").match(/doc_\d+\.ts/g);
    assert.deepEqual(imported?.sort(), ["doc_0.ts", "doc_1.ts", "doc_2.ts", "doc_3.ts", "doc_4.ts"]);
    assert.deepEqual(await writeDocTests([], dir, 2), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
