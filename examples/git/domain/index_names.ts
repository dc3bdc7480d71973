// git checks a name when it adds it to the index (verify_path) but not when
// it reads the index: a `.git/index` written by hand can list
// `../outside/secret`, `/etc/passwd` or `.git/config`, and git 2.39's grep,
// diff, status, blame and commit then open that name from the work tree, so
// from outside it or from `.git`. Before every run that reads the index or
// the work tree the server has git list the index's names that could be such
// a name, and refuses the repository if one is; every name git reports (a
// match, a diff's listing, a status line) is checked again before it is shown.
import { arg, PolicyError, quote } from "@forge/toolkit/validate";
import type { Git, GitRunOptions, Repo } from "./git.ts";
import { notUtf8 } from "./_undecodable.ts";

// Code points HFS+ (and Linux's hfsplus) ignores in names, so `.g\u200Cit` is `.git` there (git's is_hfs_dotgit).
const HFS_IGNORED = [
  ..."\u200C\u200D\u200E\u200F",
  ..."\u202A\u202B\u202C\u202D\u202E",
  ..."\u206A\u206B\u206C\u206D\u206E\u206F",
  "\uFEFF",
];
const HFS_IGNORED_ALL = new RegExp(`[${HFS_IGNORED.join("")}]`, "g");
// `.git` or its NTFS short name, then only dots and spaces (NTFS drops them) up to the end or a `:stream`
// (git's is_ntfs_dotgit). Without the `u` flag, `i` folds ASCII letters only, as git does.
const NTFS_DOTGIT = /^(?:\.git|git~1)[. ]*(?::|$)/i;
const DOTGIT = /^\.git$/i;

/**
 * Why git would refuse `name` as a path in its index, or undefined when it
 * would not: git's verify_path with both `core.protectNTFS` (git's default)
 * and `core.protectHFS` (the default on macOS) on. Refused: an empty name,
 * an absolute one, an empty, `.` or `..` part, and a part that is `.git`
 * (ASCII case-insensitive), or is `.git` on NTFS (followed by dots, spaces
 * or a `:stream`; `git~1`; also after a `\`) or on HFS+ (with ignored code
 * points). Linux file systems can be any of these (vfat, ntfs3, hfsplus,
 * case-folding ext4), and git refuses to check such a name out, so no real
 * repository holds one. Not refused, as by git on Linux: `.gitmodules`
 * spellings (git refuses them only as symbolic links, for its own submodule
 * reads), a `..` after a `\`.
 *
 * @param name A path as git prints it.
 * @returns The reason, to follow "a name that", or undefined.
 *
 * @example
 * ```ts
 * import { nameProblem } from "./index_names.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(nameProblem("../outside/secret"), 'has a ".." part');
 * assert.equal(nameProblem("sub/.GIT/config"), 'has a ".git" part');
 * assert.equal(nameProblem("git~1/config"), 'has a part that NTFS or HFS+ reads as ".git"');
 * assert.equal(nameProblem(".github/ci.yml"), undefined);
 * ```
 */
export function nameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (notUtf8(name)) return "is not UTF-8 (or holds U+FFFD), so this server cannot check it";
  if (name.startsWith("/")) return "is absolute";
  for (const part of name.split("/")) {
    if (part === "..") return 'has a ".." part';
    if (part === "" || part === ".") return 'has an empty or "." part';
    if (DOTGIT.test(part)) return 'has a ".git" part';
    if (part.split("\\").some((piece) => NTFS_DOTGIT.test(piece)) || DOTGIT.test(part.replace(HFS_IGNORED_ALL, ""))) {
      return 'has a part that NTFS or HFS+ reads as ".git"';
    }
  }
  return undefined;
}

// Each pattern is written so that git's pathspec parser leaves it as it is: it squashes `//` and resolves a
// `.` or `..` part, which `[/]` and `[.]` are not.
const PART_STARTS = ["", "*/"];
/**
 * Pathspecs (pathspec magic on) that match every name {@linkcode nameProblem}
 * refuses but the empty one, and few others: an absolute name, an empty part,
 * a `.` or `..` part, a part starting with `.git` or `git~1` (any case) that
 * ends there or goes on with `/`, `:`, `.` or a space, a name holding a `\`
 * or a code point HFS+ ignores. No pathspec matches an empty name; git opens
 * the work tree itself by it, which holds nothing to read, and the check of
 * what git reports refuses it. A leading `*` is followed by a plain
 * character wherever it can be (git's matcher skips to it): git matches
 * 20,000 names in some 40 ms of CPU, 400,000 in 0.9 s.
 */
export const SUSPECT_PATHSPECS: readonly string[] = Object.freeze([
  "[/]*",
  "*/",
  "*/[/]*",
  ...PART_STARTS.flatMap((start) => [`${start}[.]`, `${start}[.]/*`, `${start}[.][.]`, `${start}[.][.]/*`]),
  ...PART_STARTS.flatMap((start) =>
    ["[.]git", "git~1"].flatMap((dotgit) => [`:(icase)${start}${dotgit}`, `:(icase)${start}${dotgit}[/:. ]*`])
  ),
  "*\\\\*",
  ...HFS_IGNORED.map((char) => `*${char}*`),
]);

/**
 * Refuses a repository whose index lists a name {@linkcode nameProblem}
 * refuses, before any run that reads the index or the work tree: git lists
 * only the names {@linkcode SUSPECT_PATHSPECS} match (`ls-files -z`, which
 * reads the index and nothing of the work tree), so the answer is small and
 * its cost one more git run of the call, under the same deadline. The
 * refusal quotes the name as the index spells it; it touches no file, so it
 * reads the same whether a file of that name exists or not. Before that run
 * the server reads the index itself (`checkIndex`): an index git would
 * expand past `alloc_limit_mib`, a sparse, split or damaged one is refused
 * before any git reads it. A clean listing is kept per repository for the
 * index file that read opened (same device, inode, size, times, link count)
 * and the config's bytes ({@linkcode Git.runOncePerIndex}): while they are
 * unchanged, the read still runs on every call and the listing does not.
 *
 * @param git The runner.
 * @param repo From `Git.repo()`.
 * @param options The call's signal and drivers.
 * @throws {PolicyError} When the index lists such a name (code `outside-roots`), or too many to check.
 * @throws {PolicyError} When git would expand the index past `alloc_limit_mib`, or it is sparse, split or damaged.
 *
 * @example Before a grep of the work tree
 * ```ts ignore
 * await assertIndexNames(git, repo, { signal, drivers });
 * ```
 */
export async function assertIndexNames(
  git: Git,
  repo: Repo & { readonly root: string },
  options: GitRunOptions,
): Promise<void> {
  const parts = [
    arg.word("ls-files"),
    arg.flag("-z"),
    arg.flag("--full-name"),
    arg.operands("pathspec", SUSPECT_PATHSPECS),
  ];
  await git.runOncePerIndex(repo, parts, { ...options, pathspecMagic: true }, (listing) => {
    const names = listing.stdout.split("\0");
    // The last entry is unfinished (cut) or empty (after the last NUL): neither is a name.
    names.pop();
    for (const name of names) {
      const problem = nameProblem(name);
      if (problem === undefined) continue;
      throw new PolicyError(
        "outside-roots",
        `Cannot read the index or work tree of repo ${quote(repo.name)}: its index lists ${quote(name)}, a name ` +
          `that ${problem} (git refuses to add such a name, but opens it as it is when an index lists it)`,
      );
    }
    if (listing.cut) {
      throw new PolicyError(
        "invalid-input",
        `Cannot read the index or work tree of repo ${quote(repo.name)}: its index lists more names that need a ` +
          'closer look (a part starting ".git", a backslash, a character HFS+ ignores) than one answer holds',
      );
    }
  });
}

/**
 * Refuses to show what git reported when it names a path
 * {@linkcode nameProblem} refuses: the second check, after
 * {@linkcode assertIndexNames}, of the names git printed (grep's matches, a
 * diff's listing, status lines), so that none outside the work tree or
 * inside `.git` is ever shown.
 *
 * @param repo The repository's name, for the message.
 * @param what What git reported, for the message ("status", "diff", "search").
 * @param names The paths, relative to the work tree, as git printed them.
 * @throws {PolicyError} When one is refused (code `outside-roots`).
 *
 * @example
 * ```ts
 * import { assertServedNames } from "./index_names.ts";
 * import assert from "node:assert/strict";
 *
 * assertServedNames("app", "diff", ["src/a.ts", ".gitignore"]);
 * assert.throws(() => assertServedNames("app", "diff", ["/etc/passwd"]), /git named "\/etc\/passwd"/);
 * ```
 */
export function assertServedNames(repo: string, what: string, names: Iterable<string>): void {
  for (const name of names) {
    const problem = nameProblem(name);
    if (problem === undefined) continue;
    throw new PolicyError(
      "outside-roots",
      `Cannot show the ${what} of repo ${quote(repo)}: git named ${quote(name)}, a name that ${problem}`,
    );
  }
}

/**
 * The paths of `git status --porcelain=v1` lines (`XY path`, `XY from -> to`
 * for a rename), unquoted as git quotes them (a name with a `"`, `\` or
 * control character is a C string), an untracked or ignored folder without
 * the `/` git ends it with; the `##` branch line and an unfinished last line
 * are left out.
 *
 * @param stdout What git status printed.
 * @returns The paths, in order.
 *
 * @example
 * ```ts
 * import { statusPaths } from "./index_names.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(statusPaths('## main\n M a.txt\n?? "new\\tfile"\n?? dir/\nR  old -> new\n'), [
 *   "a.txt",
 *   "new\tfile",
 *   "dir",
 *   "old",
 *   "new",
 * ]);
 * ```
 */
export function statusPaths(stdout: string): string[] {
  const lines = stdout.split("\n");
  lines.pop();
  const paths: string[] = [];
  for (const line of lines) {
    if (line.startsWith("##")) continue;
    // Only a rename or copy names two paths; any other name may hold " -> " itself.
    const two = /[RC]/.test(line.slice(0, 2));
    const [first, rest] = cPath(line.slice(3), two);
    // git lists an untracked (or ignored) folder, a nested repository among them, as `dir/`.
    paths.push(/^(\?\?|!!)/.test(line) && first.endsWith("/") ? first.slice(0, -1) : first);
    if (two && rest.startsWith(" -> ")) paths.push(cPath(rest.slice(4), false)[0]);
  }
  return paths;
}

const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13 };

/** One path at the start of `text`, quoted or not, and what follows it (up to an unquoted " -> " when `arrow`). */
function cPath(text: string, arrow: boolean): [string, string] {
  if (!text.startsWith('"')) {
    const at = arrow ? text.indexOf(" -> ") : -1;
    return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at)];
  }
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  let i = 1;
  while (i < text.length && text[i] !== '"') {
    if (text[i] !== "\\") {
      const char = String.fromCodePoint(text.codePointAt(i)!);
      bytes.push(...encoder.encode(char));
      i += char.length;
      continue;
    }
    const next = text[i + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(text.slice(i + 1));
    if (octal !== null) {
      bytes.push(parseInt(octal[0], 8));
      i += 4;
    } else {
      bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
      i += 2;
    }
  }
  return [new TextDecoder().decode(new Uint8Array(bytes)), text.slice(i + 1)];
}
