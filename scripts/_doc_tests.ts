// The JSDoc examples, run the way `deno test --doc` runs them but in a few
// test modules instead of one each. `deno test --doc` turns every example
// into a test module of its own and sets each up in an isolate of its own:
// about 0.4 s of CPU per example, 52 s for the gate's 133, while the examples
// themselves run in under a second. So the gate asks Deno for the test modules
// it would run (`--no-run`; Deno 2.9 logs each generated module at debug
// level: the example's imports hoisted, the documented module's exports
// imported, the rest wrapped in `Deno.test`), writes them out unchanged but
// for relative imports made absolute, and runs them in a few modules that
// import a share each. The examples are type-checked by `deno check --doc`.

import { join } from "node:path";
import { writeShareModules } from "./_share_modules.ts";

/** One example as Deno would run it: its name (`file.ts#12-20.ts`) and its generated module. */
export interface DocTest {
  specifier: string;
  source: string;
}

/** A debug line that opens a generated module: `DEBUG RS - deno::util::extract:995 - file:///…/a.ts#3-9.ts:`. */
const OPENS = /^DEBUG RS - deno::util::extract:\d+ - (file:\S+#\d+-\d+\.\w+):$/;

/**
 * The generated modules in the debug log of `deno test --doc --no-run
 * --log-level=debug`. A module's lines run from its opening line to the next
 * log line; the blank line Deno ends each with is dropped.
 */
export function docTestsFromLog(log: string): DocTest[] {
  const tests: DocTest[] = [];
  let lines: string[] | undefined;
  let specifier = "";
  const close = () => {
    if (lines === undefined) return;
    while (lines.at(-1) === "") lines.pop();
    tests.push({ specifier, source: `${lines.join("\n")}\n` });
    lines = undefined;
  };
  for (const line of log.split("\n")) {
    if (!line.startsWith("DEBUG ") && !line.startsWith("TRACE ")) {
      lines?.push(line);
      continue;
    }
    close();
    const opens = OPENS.exec(line);
    if (opens) [specifier, lines] = [opens[1], []];
  }
  close();
  return tests;
}

/**
 * `source` with each relative module specifier (`"./x.ts"`, `"../y.ts"`)
 * resolved against the documented file, so that the module runs from
 * anywhere. Bare specifiers (`"@forge/toolkit"`) go through deno.json as before.
 */
export function withAbsoluteImports(source: string, specifier: string): string {
  const base = specifier.replace(/#.*$/, "");
  return source.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|^import\s+)(["'])(\.\.?\/[^"'\n]*)\2/gm,
    (_match, before: string, quote: string, relative: string) =>
      `${before}${quote}${new URL(relative, base).href}${quote}`,
  );
}

/**
 * Asks `deno` for the doc tests of `targets` (run in `cwd` with `docArgs`,
 * e.g. an `--ignore=`), without running any. Throws with Deno's output when it fails.
 */
export async function extractDocTests(
  deno: string,
  cwd: string,
  docArgs: string[],
  targets: string[],
): Promise<DocTest[]> {
  const out = await new Deno.Command(deno, {
    args: ["test", "--doc", "--no-run", "--no-check", "--log-level=debug", ...docArgs, ...targets],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`deno test --doc --no-run failed:\n${log.slice(-3000)}`);
  return docTestsFromLog(log);
}

/**
 * Writes each doc test to `dir` and `shares` test modules that import them
 * in turn; returns the test modules' paths.
 */
export async function writeDocTests(tests: DocTest[], dir: string, shares: number): Promise<string[]> {
  const files: string[] = [];
  for (const [i, test] of tests.entries()) {
    const file = join(dir, `doc_${i}.ts`);
    await Deno.writeTextFile(file, withAbsoluteImports(test.source, test.specifier));
    files.push(file);
  }
  return writeShareModules(files, shares, dir, "doc_share");
}
