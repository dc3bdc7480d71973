// git reads every blob it diffs whole, and its line diff holds some 45 bytes
// per line whatever the size threshold (a `.gitattributes` `diff` line forces
// it): the only bound is to keep big files out of the run. Their sizes come
// from object headers (`rev-list --filter`) and lstat, never their content.
import { join } from "node:path";
import { arg, type CommandArg, PolicyError, quote } from "@forge/toolkit/validate";
import { notUtf8 } from "./_undecodable.ts";
import { argumentBytes, MAX_PATHS_BYTES } from "./argument_bytes.ts";
import type { Git, GitOutput, GitRunOptions, Repo } from "./git.ts";
import { parseRaw, type RawChange, tooManyChanges } from "./raw_changes.ts";

/**
 * The largest file (either side of a change) a diff lets git read: 1 MiB,
 * the default `max_output_bytes` and `core.bigFileThreshold`.
 */
export const MAX_DIFFED_BYTES = 1024 * 1024;
/**
 * The most added and deleted files a diff looks for renames among: git holds
 * a fingerprint of each candidate (up to 1 MiB) at once, so the count bounds it.
 */
export const MAX_RENAME_CANDIDATES = 100;
/** Object ids per `rev-list` run: some 400 KiB of arguments. */
const IDS_PER_RUN = 10_000;

/**
 * The paths of `changes` with a side over {@linkcode MAX_DIFFED_BYTES}: a blob
 * by its object header, a work-tree file by lstat. Reads no file's content.
 *
 * @param git The runner.
 * @param repo From {@linkcode Git.repo}.
 * @param changes The diff's listing, from `parseRaw()`.
 * @param options The run's signal and drivers.
 * @returns The big paths, in listing order.
 * @throws {PolicyError} When git fails, or its answer was cut.
 *
 * @example Before a diff
 * ```ts ignore
 * const big = await bigFiles(git, repo, parseRaw(repo.name, listing), { signal, drivers });
 * ```
 */
export async function bigFiles(
  git: Git,
  repo: Repo & { readonly root: string },
  changes: readonly RawChange[],
  options: GitRunOptions,
): Promise<string[]> {
  const big = new Set<string>();
  const pathsOf = new Map<string, string[]>();
  for (const change of changes) {
    for (const [side, oid] of change.oids.entries()) {
      const mode = change.modes[side];
      // An absent side, or a gitlink (another repository's commit, never read).
      if (mode === "000000" || mode === "160000") continue;
      if (/^0+$/.test(oid)) {
        // A work-tree file: git maps it whole to diff it.
        const info = await Deno.lstat(join(repo.root, change.paths.at(-1)!)).catch(() => undefined);
        if (info !== undefined && info.size > MAX_DIFFED_BYTES) change.paths.forEach((p) => big.add(p));
        continue;
      }
      pathsOf.set(oid, [...(pathsOf.get(oid) ?? []), ...change.paths]);
    }
  }
  const ids = [...pathsOf.keys()];
  for (let start = 0; start < ids.length; start += IDS_PER_RUN) {
    const over = await blobsOverLimit(
      git,
      repo,
      [arg.flag("--no-object-names"), arg.flag("--filter-provided-objects")],
      ids.slice(start, start + IDS_PER_RUN).map((id) => arg.value("object", id)),
      options,
      () => tooManyChanges(repo.name),
    );
    for (const id of over) pathsOf.get(id)?.forEach((p) => big.add(p));
  }
  const order = changes.flatMap((change) => change.paths);
  return [...new Set(order)].filter((path) => big.has(path));
}

/**
 * Refuses a blame that would make git read a version of its file over
 * {@linkcode MAX_DIFFED_BYTES}: blame reads the file whole at each commit of
 * its history it visits, and the work tree's copy when no revision is given.
 * The versions come from `git log --raw` of the path (merges included), their
 * sizes from object headers. Versions blame reaches through a rename are not
 * checked.
 *
 * @param git The runner.
 * @param repo From {@linkcode Git.repo}.
 * @param path The file, relative to the work tree, checked.
 * @param commit The revision's commit id, or undefined for the work tree.
 * @param options The run's signal and drivers.
 * @throws {PolicyError} When a version is over the limit, or the history is too long to list.
 *
 * @example Before a blame
 * ```ts ignore
 * await assertSmallHistory(git, repo, "src/main.ts", undefined, { signal, drivers });
 * ```
 */
export async function assertSmallHistory(
  git: Git,
  repo: Repo & { readonly root: string },
  path: string,
  commit: string | undefined,
  options: GitRunOptions,
): Promise<void> {
  const what = `Cannot blame ${quote(path)} in repo ${quote(repo.name)}`;
  const tooBig = `a version of it is over ${MAX_DIFFED_BYTES} bytes, the most this server lets git read of one file`;
  const file = commit === undefined ? await Deno.lstat(join(repo.root, path)).catch(() => undefined) : undefined;
  if (file !== undefined && file.size > MAX_DIFFED_BYTES) {
    throw new PolicyError("invalid-input", `${what}: ${tooBig}`);
  }
  // No commit yet: no history to check, and blame says so in its own words.
  const start = commit ?? await git.resolve(repo, "ref", "HEAD", "commit", options.signal).catch((err) => {
    if (err instanceof PolicyError && err.code === "not-found") return undefined;
    throw err;
  });
  if (start === undefined) return;
  const history = await git.run(repo, [
    arg.word("log"),
    arg.flag("--format="),
    arg.flag("--raw"),
    arg.flag("-z"),
    arg.flag("-m"),
    arg.flag("--no-abbrev"),
    arg.flag("--no-renames"),
    arg.flag("--end-of-options"),
    arg.value("ref", start),
    arg.operands("path", [path]),
  ], options);
  if (history.cut) {
    throw new PolicyError("invalid-input", `${what}: its history is too long to check the size of every version`);
  }
  const big = await bigFiles(git, repo, parseRaw(repo.name, history), options);
  if (big.length > 0) throw new PolicyError("invalid-input", `${what}: ${tooBig}`);
}

/**
 * The files under `path` at a commit that are over {@linkcode MAX_DIFFED_BYTES}
 * (`git grep` of a revision reads each file whole): their ids from object
 * headers (`rev-list --quiet` prints only the omitted ones), their names from
 * `ls-tree` only when there is one.
 *
 * @param git The runner.
 * @param repo From {@linkcode Git.repo}.
 * @param commit The commit id.
 * @param path The caller's path, checked, or undefined for the whole tree.
 * @param options The run's signal and drivers.
 * @returns The big files' paths.
 * @throws {PolicyError} When git fails, or a listing was cut.
 * @throws {PolicyError} When a big file's name is not UTF-8 or holds U+FFFD: it could not be kept out.
 *
 * @example Before a grep of a revision
 * ```ts ignore
 * const big = await bigFilesAt(git, repo, id, "src", { signal, drivers });
 * ```
 */
export async function bigFilesAt(
  git: Git,
  repo: Repo & { readonly root: string },
  commit: string,
  path: string | undefined,
  options: GitRunOptions,
): Promise<string[]> {
  const tooMany = () =>
    new PolicyError(
      "invalid-input",
      `Cannot check the sizes of the files of repo ${
        quote(repo.name)
      } at that revision: there are too many; name a path`,
    );
  // `--quiet`: only the blobs over the limit are printed.
  const big = await blobsOverLimit(
    git,
    repo,
    [arg.flag("--quiet")],
    [arg.value("ref", `${commit}^{tree}`)],
    options,
    tooMany,
  );
  if (big.size === 0) return [];
  const listing = await git.run(repo, [
    arg.word("ls-tree"),
    arg.flag("-r"),
    arg.flag("-z"),
    arg.flag("--format=%(objectname) %(path)"),
    // git 2.39's ls-tree lists nothing after --end-of-options: it goes without (an object id is no option).
    arg.value("ref", commit),
    arg.operands("path", path === undefined ? [] : [path]),
  ], options);
  if (listing.cut) throw tooMany();
  const names = listing.stdout.split("\0").filter((entry) => big.has(entry.slice(0, entry.indexOf(" "))))
    .map((entry) => entry.slice(entry.indexOf(" ") + 1));
  // Spelled with U+FFFD, the name's `:(exclude)` would match nothing, and git would read the big file after all.
  const undecodable = names.find(notUtf8);
  if (undecodable !== undefined) {
    throw new PolicyError(
      "invalid-input",
      `Cannot check the sizes of the files of repo ${quote(repo.name)} at that revision: git named ${
        quote(undecodable)
      }, a big file whose name is not UTF-8 (or holds U+FFFD), so this server cannot keep it out`,
    );
  }
  return names;
}

/**
 * The tracked files under `paths` whose copy in the work tree is over
 * {@linkcode MAX_DIFFED_BYTES}, by lstat (`git grep` of the work tree reads
 * each whole): their names from `ls-files`, their sizes from the disk.
 *
 * @param git The runner.
 * @param repo From {@linkcode Git.repo}.
 * @param paths The caller's paths, checked (none: the whole tree).
 * @param options The run's signal and drivers.
 * @returns The big files' paths, in index order.
 * @throws {PolicyError} When git fails, or the listing was cut.
 *
 * @example After a grep of the work tree stopped at GIT_ALLOC_LIMIT
 * ```ts ignore
 * const big = await bigFilesInWorkTree(git, repo, ["src"], { signal, drivers });
 * ```
 */
export async function bigFilesInWorkTree(
  git: Git,
  repo: Repo & { readonly root: string },
  paths: readonly string[],
  options: GitRunOptions,
): Promise<string[]> {
  const listing = await git.run(repo, [
    arg.word("ls-files"),
    arg.flag("-z"),
    arg.flag("--full-name"),
    // git 2.39's ls-files reads the `--` after --end-of-options as a path: it goes without (only flags precede).
    arg.operands("path", [...paths]),
  ], options);
  if (listing.cut) {
    throw new PolicyError(
      "invalid-input",
      `Cannot check the sizes of the files of repo ${quote(repo.name)}: there are too many; name a path`,
    );
  }
  const big: string[] = [];
  for (const name of listing.stdout.split("\0")) {
    if (name === "") continue;
    const info = await Deno.lstat(join(repo.root, name)).catch(() => undefined);
    if (info !== undefined && info.isFile && info.size > MAX_DIFFED_BYTES) big.push(name);
  }
  return big;
}

/**
 * The ids of the blobs over {@linkcode MAX_DIFFED_BYTES} among `objects` (and
 * what they reach): `rev-list --filter` reads only their object headers and
 * prints each left out with a `~`.
 */
async function blobsOverLimit(
  git: Git,
  repo: Repo & { readonly root: string },
  flags: readonly CommandArg[],
  objects: readonly CommandArg[],
  options: GitRunOptions,
  tooMany: () => PolicyError,
): Promise<Set<string>> {
  const out = await git.run(repo, [
    arg.word("rev-list"),
    arg.flag("--objects"),
    ...flags,
    arg.flag(`--filter=blob:limit=${MAX_DIFFED_BYTES + 1}`),
    arg.flag("--filter-print-omitted"),
    ...objects,
  ], options);
  if (out.cut) throw tooMany();
  return new Set(out.stdout.split("\n").filter((line) => line.startsWith("~")).map((line) => line.slice(1)));
}

/** What a diff runs on, and the lines its answer ends with. */
export interface DiffPlan {
  /** The paths to diff instead of those asked, the big ones left out; undefined to diff as asked. */
  readonly kept: string[] | undefined;
  /** Whether git may look for renames: no more than {@linkcode MAX_RENAME_CANDIDATES} files added or deleted. */
  readonly renames: boolean;
  /** The files left out and renames not looked for, a line each; "" when neither. */
  readonly note: string;
}

/**
 * Plans a diff from its listing: its big files ({@linkcode bigFiles}) left
 * out and named, rename detection only among few enough candidates.
 *
 * @param git The runner.
 * @param repo From {@linkcode Git.repo}.
 * @param changes The diff's listing, from `parseRaw()`.
 * @param options The run's signal and drivers.
 * @returns The plan.
 * @throws {PolicyError} When git fails, a listing was cut, or the kept paths are too long for git.
 *
 * @example Before a diff
 * ```ts ignore
 * const plan = await planDiff(git, repo, parseRaw(repo.name, listing), { signal, drivers });
 * ```
 */
export async function planDiff(
  git: Git,
  repo: Repo & { readonly root: string },
  changes: readonly RawChange[],
  options: GitRunOptions,
): Promise<DiffPlan> {
  const big = await bigFiles(git, repo, changes, options);
  const candidates = renameCandidates(changes, big);
  return {
    kept: keptPaths(repo.name, changes, big),
    renames: candidates <= MAX_RENAME_CANDIDATES,
    note: leftOutLines(big) + renamesLine(candidates),
  };
}

/**
 * The paths of `changes` that are not `big`, to run the diff on instead of
 * the whole tree; undefined when nothing is big (the diff runs as asked).
 *
 * @param repo The repository's name, for the message.
 * @param changes The diff's listing.
 * @param big From {@linkcode bigFiles}.
 * @returns The paths to diff, or undefined.
 * @throws {PolicyError} When they are too many bytes to pass to git.
 *
 * @example One big file left out
 * ```ts
 * import { keptPaths } from "./big_files.ts";
 * import assert from "node:assert/strict";
 *
 * const change = (path: string) => ({ modes: [], oids: [], paths: [path] });
 * assert.deepEqual(keptPaths("app", [change("a"), change("big")], ["big"]), ["a"]);
 * assert.equal(keptPaths("app", [change("a")], []), undefined);
 * ```
 */
export function keptPaths(repo: string, changes: readonly RawChange[], big: readonly string[]): string[] | undefined {
  if (big.length === 0) return undefined;
  const left = new Set(big);
  const kept = [...new Set(changes.flatMap((change) => change.paths))].filter((path) => !left.has(path));
  const bytes = argumentBytes(kept);
  if (bytes > MAX_PATHS_BYTES) {
    throw new PolicyError(
      "invalid-input",
      `Cannot diff in repo ${
        quote(repo)
      } without its big files: the other files' names are ${bytes} bytes; name a path`,
    );
  }
  return kept;
}

/**
 * The lines that say which files a diff left out, one each, the name escaped
 * as a JSON string (a name can hold a newline); empty when none.
 *
 * @param big From {@linkcode bigFiles}.
 * @param what What was not done to them.
 * @param where The tool's run, for the message.
 * @returns The lines, each ending in a newline.
 *
 * @example
 * ```ts
 * import { leftOutLines } from "./big_files.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   leftOutLines(["big.txt"]),
 *   'Not diffed: "big.txt" is over 1048576 bytes, the most this server lets git read of one file in a diff\n',
 * );
 * ```
 */
export function leftOutLines(big: readonly string[], what = "diffed", where = "a diff"): string {
  const limit = `is over ${MAX_DIFFED_BYTES} bytes, the most this server lets git read of one file in ${where}`;
  return big.map((path) => `Not ${what}: ${JSON.stringify(path)} ${limit}\n`).join("");
}

/**
 * `out` with the server's `note` (whole lines, from {@linkcode leftOutLines}
 * or a {@linkcode DiffPlan}) added to its `notes`, apart from what git
 * printed: in the text, a note could be forged by a commit or tag message
 * that prints the same words, and after an output cut at the cap it would
 * read as the end of git's last line.
 *
 * @param out What git printed.
 * @param note The lines to add; "" for none.
 * @returns The output with the note.
 *
 * @example A note beside a diff cut inside a line
 * ```ts
 * import { withNote } from "./big_files.ts";
 * import assert from "node:assert/strict";
 *
 * const out = { text: "+yyy", stdout: "+yyy", cut: true, code: 0, marker: "[truncated: showed the first 4 bytes]" };
 * const noted = withNote(out, "Not diffed: x\n");
 * assert.equal(noted.text, "+yyy");
 * assert.equal(noted.notes, "Not diffed: x\n");
 * assert.equal(withNote(out, ""), out);
 * ```
 */
export function withNote(out: GitOutput, note: string): GitOutput {
  return note === "" ? out : { ...out, notes: `${out.notes ?? ""}${note}` };
}

/**
 * How many files of `changes` that are not `big` are added or deleted: the
 * candidates rename detection would compare.
 *
 * @param changes The diff's listing.
 * @param big From {@linkcode bigFiles}.
 * @returns The count.
 *
 * @example
 * ```ts
 * import { renameCandidates } from "./big_files.ts";
 * import assert from "node:assert/strict";
 *
 * const added = { modes: ["000000", "100644"], oids: [], paths: ["new"] };
 * const modified = { modes: ["100644", "100644"], oids: [], paths: ["same"] };
 * assert.equal(renameCandidates([added, modified], []), 1);
 * ```
 */
export function renameCandidates(changes: readonly RawChange[], big: readonly string[]): number {
  const left = new Set(big);
  return changes.filter((change) => change.modes.includes("000000") && !change.paths.some((path) => left.has(path)))
    .length;
}

/**
 * The line that says renames were not looked for, or nothing when they were.
 *
 * @param candidates From {@linkcode renameCandidates}.
 * @returns The line, ending in a newline, or "".
 *
 * @example
 * ```ts
 * import { renamesLine } from "./big_files.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(renamesLine(3), "");
 * assert.match(renamesLine(101), /^Renames not looked for: 101 files/);
 * ```
 */
export function renamesLine(candidates: number): string {
  return candidates > MAX_RENAME_CANDIDATES
    ? `Renames not looked for: ${candidates} files are added or deleted, over the ${MAX_RENAME_CANDIDATES} ` +
      "this server compares (each is shown as deleted and added)\n"
    : "";
}
