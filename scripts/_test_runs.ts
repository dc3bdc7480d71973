// How the files of one permission group run: most share a few generated
// modules in one `deno test` process (scripts/_share_modules.ts); a file
// that needs an isolate of its own runs as its own module in that process;
// a file that needs a process of its own gets one.

/** The line by which a test file asks to run in a module of its own. */
const ALONE = /^\/\/ test-alone: \S/m;
/**
 * The line by which a test file asks to run in a process of its own: its
 * tests use or change what every worker of a process shares (SQLite's heap
 * cap, the resident memory), which the modules of one `deno test --parallel`
 * run side by side would race for.
 */
const OWN_PROCESS = /^\/\/ test-process: \S/m;

/** The `deno test` runs of one permission group. */
export interface TestRuns {
  /** The files that share modules in the group's main process. */
  pooled: string[];
  /** The files that run as modules of their own in the group's main process. */
  alone: string[];
  /** The files that each run in a process of their own. */
  ownProcess: string[];
}

/**
 * Sorts one permission group's files by the line each has (or none):
 * `// test-process: <why>`, `// test-alone: <why>`.
 *
 * @param files The group's files.
 * @param read Reads one file's text.
 */
export async function testRuns(files: string[], read: (file: string) => Promise<string>): Promise<TestRuns> {
  const runs: TestRuns = { pooled: [], alone: [], ownProcess: [] };
  for (const file of files) {
    const text = await read(file);
    (OWN_PROCESS.test(text) ? runs.ownProcess : ALONE.test(text) ? runs.alone : runs.pooled).push(file);
  }
  return runs;
}
