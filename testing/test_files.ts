import { join, relative } from "node:path";
import { CHILD_ENV_NAMES } from "../internal/child_env.ts";

/** The line a test file declares its permissions on. */
const DECLARATION = /^\/\/ test-permissions:(.*)$/m;

/** Options of {@linkcode testFilesByPermissions}. */
export interface TestFilesOptions {
  /**
   * Path prefixes, relative to the root: only test files under one of them are kept.
   * @default {every test file}
   */
  only?: readonly string[];
  /**
   * What `{tmp}` stands for in a declaration.
   * @default {the real path of $TMPDIR, else of /tmp}
   */
  tmp?: string;
  /**
   * Folder names never entered.
   * @default {["node_modules", ".git", "testdata"]}
   */
  skip?: readonly string[];
}

/** One permission group of {@linkcode testFilesByPermissions}: the flags its files declare, and the files. */
export interface TestGroup {
  /**
   * The Deno flags, one word each, ready to pass as separate arguments: a
   * substituted path stays whole, white space and all. Each flag's list of
   * values is sorted and without repeats, and the flags are sorted, so two
   * files that declare the same permissions in another order share a group.
   * Empty for files that declare none.
   */
  flags: readonly string[];
  /** The test files, relative to the root, sorted. */
  files: string[];
}

/**
 * Finds every `*_test.ts` under `root` and groups the files by the Deno flags
 * each declares on a line of its own, so that each group runs with only what
 * its files need:
 *
 * ```
 * // test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run
 * ```
 *
 * The line is split into flags at white space first; then, in each flag,
 * `{tmp}` becomes the temp directory, `{repo}` the root and `{child-env}` the
 * comma-separated {@linkcode CHILD_ENV_NAMES} (write `--allow-env={child-env}`
 * in a file that spawns servers, so that `childEnv()` may pass them on). So a
 * root or temp directory whose path holds a space stays one flag. A file
 * without the line gets a group with no flags: run it with no permission at all.
 *
 * @param root The folder to search (absolute); the files come back relative to it.
 * @param options See {@linkcode TestFilesOptions}.
 * @returns The groups, in the order their first file was found, each with its
 * flags as separate words and its files sorted; see {@linkcode TestGroup}.
 * @throws {Deno.errors.NotCapable} Without read access to `root` (and to the temp directory).
 *
 * @example Run each group with its own flags
 * ```ts ignore
 * import { testFilesByPermissions } from "@forge/toolkit/testing";
 *
 * for (const { flags, files } of await testFilesByPermissions(Deno.cwd())) {
 *   const args = ["test", ...flags, ...files];
 *   await new Deno.Command(Deno.execPath(), { args }).output();
 * }
 * ```
 */
export async function testFilesByPermissions(
  root: string,
  options: TestFilesOptions = {},
): Promise<TestGroup[]> {
  const tmp = options.tmp ?? await Deno.realPath(Deno.env.get("TMPDIR") ?? "/tmp");
  const skip = options.skip ?? ["node_modules", ".git", "testdata"];
  const only = options.only ?? [];
  // Keyed by the flags as JSON: unambiguous whatever the words hold.
  const groups = new Map<string, TestGroup>();
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        if (!skip.includes(entry.name)) await walk(path);
        continue;
      }
      if (!entry.isFile || !entry.name.endsWith("_test.ts")) continue;
      const rel = relative(root, path);
      if (only.length > 0 && !only.some((prefix) => rel.startsWith(prefix))) continue;
      const declared = (await Deno.readTextFile(path)).match(DECLARATION)?.[1] ?? "";
      // Split before substituting, so that a path with white space in it is never split.
      const flags = canonicalFlags(
        declared.split(/\s+/).filter(Boolean).map((word) =>
          word.replaceAll("{tmp}", tmp).replaceAll("{repo}", root).replaceAll("{child-env}", CHILD_ENV_NAMES.join(","))
        ),
      );
      const key = JSON.stringify(flags);
      const group = groups.get(key);
      if (group) group.files.push(rel);
      else groups.set(key, { flags, files: [rel] });
    }
  };
  await walk(root);
  for (const group of groups.values()) group.files.sort();
  return [...groups.values()];
}

/** `flags` with each flag's comma-separated values sorted and unrepeated, and the flags sorted and unrepeated. */
function canonicalFlags(flags: readonly string[]): string[] {
  const words = flags.map((word) => {
    const equals = word.indexOf("=");
    if (equals < 0) return word;
    const values = [...new Set(word.slice(equals + 1).split(","))].sort();
    return `${word.slice(0, equals + 1)}${values.join(",")}`;
  });
  return [...new Set(words)].sort();
}
