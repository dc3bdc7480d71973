// How git is kept from running anything a repository's configuration names.
// A repository's own config (.git/config, its includes, config.worktree) is
// attacker-controlled data here: command-line `-c` beats it, so every key that
// makes git start a program is pinned below; keys whose names the repository
// chooses (filter and diff drivers) are pinned per call, see driverOverrides.
import { arg, type CommandArg } from "@forge/toolkit/validate";
import { hasControl } from "./_has_control.ts";
import { notUtf8 } from "./_undecodable.ts";

/**
 * The size above which git shows a file as binary instead of diffing it line
 * by line (`core.bigFileThreshold`): 1 MiB, the default `max_output_bytes`,
 * since a line diff of a larger new file could not be shown whole anyway.
 */
export const BIG_FILE_THRESHOLD = "1m";

/** `-c` settings every git run gets, before the subcommand. */
export const PINNED_CONFIG: readonly string[] = Object.freeze([
  "core.fsmonitor=false", // a hook program run by status, diff and commit
  "core.hooksPath=/dev/null", // no hook can exist below a non-directory
  "core.pager=cat",
  "core.editor=:", // ":" is git's "no editor"
  "sequence.editor=:",
  "core.sshCommand=false",
  "core.askPass=",
  "core.gitProxy=",
  "credential.helper=", // an empty value clears the helper list
  // The default for a transport the config does not name; a repository's own `protocol.<name>.allow` beats it,
  // which GIT_ALLOW_PROTOCOL (GIT_ENV) does not let happen.
  "protocol.allow=never",
  "diff.external=",
  "core.attributesFile=/dev/null",
  "core.excludesFile=", // status, ls-files and add would hide the names it lists: an oracle for its lines
  "diff.orderFile=/dev/null", // show and diff would order files by its lines (an empty name is an error)
  // A line diff holds some 45 bytes per line: a larger file is shown as binary, so one diffed pair costs tens of MiB.
  `core.bigFileThreshold=${BIG_FILE_THRESHOLD}`,
  // Rename detection reads every candidate whole; the server bounds the candidates of its diffs, and runs no other.
  "diff.renames=true", // not "copies": it would compare every modified file too
  // Patience diff holds three times Myers' tables (96 MiB for a 1 MiB file of empty lines): over GIT_ALLOC_LIMIT.
  "diff.algorithm=myers",
  "status.renames=false",
  "log.follow=false",
  "mailmap.file=", // log, show and blame would read it from anywhere and show its names
  "log.showSignature=false", // verifying a signature runs gpg.program
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  // git turns rerere on when .git/rr-cache exists; after a commit it copies each path MERGE_RR names, as written
  // (`../outside/secret`), into rr-cache, and on a conflict writes a recorded resolution back to it.
  "rerere.enabled=false",
  "rerere.autoUpdate=false",
  "gc.auto=0", // a commit may otherwise start background maintenance
  "maintenance.auto=false",
  "submodule.recurse=false", // submodules have configs of their own
  "diff.ignoreSubmodules=all", // a submodule's own `ignore` (.gitmodules) beats it: shows add --ignore-submodules
  // "diff" runs a git in the submodule's folder, under that repository's own config and drivers.
  "diff.submodule=short",
  "status.submoduleSummary=false",
  "grep.fallbackToNoIndex=false",
  // Thread counts: a repository's own would start as many threads as the user may have processes.
  "grep.threads=0", // 0: one per core
  "index.threads=true", // true: one per core
  // The server's commits write a plain index: a split one (a second file) or a sparse one (folders git expands
  // to all their files) would be refused by the next call's check of the index.
  "core.splitIndex=false",
  "index.sparse=false",
  "color.ui=false",
  "core.quotePath=false",
  // What git keeps of delta bases it unpacked: a repository's own `10g` let a grep of a revision through a
  // 1,000-deep chain of 1 MiB blobs (a 125 KiB pack) reach 1 GiB. Git's default, pinned.
  "core.deltaBaseCacheLimit=96m",
  // No commit-graph (nor chain) is read: git 2.39 does not bounds-check its EDGE chunk, and a crafted sparse file of
  // 4 KB on disk drove every tool that reads commits to 0.6–1.5 GiB and SIGSEGV; a wrong parent in it is believed.
  "core.commitGraph=false",
  // Nor a multi-pack-index: git 2.39 does not check its fanout against its id list (1.4 KB of one crashed every tool)
  // and believes its offsets (two swapped showed one commit's content under another's id); packs are read one by one.
  "core.multiPackIndex=false",
  // `--no-replace-objects` only sets a default that the repository's own `core.useReplaceRefs=true` overrides: a
  // replace ref then showed another commit's content under HEAD's id. The command line beats the repository's config.
  "core.useReplaceRefs=false",
  // A commit's message is stored as the UTF-8 it is: a repository's i18n.commitEncoding would label it otherwise, and
  // git_log would then re-encode it from the false label (`café` read back as `cafÃ©`).
  "i18n.commitEncoding=UTF-8",
  // With GIT_GRAFT_FILE set, git prints a hint about grafts on stderr in every run; nothing of it is needed.
  "advice.graftFileDeprecated=false",
  // How answers look, which the README promises: full commit ids, no ref names, authors as committed, UTF-8
  // messages (UTF-16 left only the `commit` lines), no column inside grep's lines, paths with their a/ b/ prefix.
  "log.abbrevCommit=false",
  "log.decorate=false",
  "log.mailmap=false",
  "i18n.logOutputEncoding=UTF-8",
  "grep.column=false",
  "diff.noprefix=false",
  "diff.relative=false",
  // Blame's lines as git prints them by default: no colour escapes (blame.coloring ignores color.ui), authors by
  // name, the boundary commit's id shown and marked `^`, the root commit as a boundary.
  "blame.coloring=none",
  "blame.showEmail=false",
  "blame.blankBoundary=false",
  "blame.showRoot=false",
  "log.showRoot=true", // false: git_show of a root commit would show no diff
  "core.abbrev=auto", // ids in blame lines and diffs' index lines at git's length, not the repository's
  // Hunks as git shapes them by default: three lines of context, no others fused, blank context lines as " ".
  "diff.context=3",
  "diff.interHunkContext=0",
  "diff.indentHeuristic=true",
  "diff.suppressBlankEmpty=false",
  // What a commit writes. A repository's `core.sharedRepository=0777` made the index, refs, reflogs and object
  // folders world-writable: files get the server's umask. `core.ignoreCase=true`, wrong on Linux, staged `d/new`
  // as a tracked `D/`'s `D/new` and hid an untracked `readme` beside `README`.
  "core.sharedRepository=umask",
  "core.ignoreCase=false",
  // A path's type is the work tree's. Under a repository's `core.symlinks=false`, a regular file at a path the index
  // holds as a symbolic link was committed as a link whose target is the file's text (a file holding `/etc/passwd`
  // became a link to it). Git sets it false only on a filesystem without links, not Linux's. `core.fileMode` is left
  // to the repository: its `false` (set on Linux too, to ignore chmod noise) makes a commit keep the index's
  // executable bit, as plain git does, which a stricter pin would turn into mode changes nobody asked for.
  "core.symlinks=true",
  // Whether a file changed is read from all of its stat data: under a repository's `core.checkStat=minimal` (mtime and
  // size only), a file rewritten at its size with its mtime put back was committed as the index had it, and shown
  // unchanged; `core.trustctime=false` leaves the ctime out too. Under `core.ignoreStat=true` every entry a commit
  // wrote was marked assume-unchanged, and later edits no longer showed in git_status, git_diff or git_grep.
  "core.checkStat=default",
  "core.trustctime=true",
  "core.ignoreStat=false",
  // No sparse-checkout patterns are read (git reads `info/sparse-checkout` only with it on), so `git add` stages
  // every path given; the index's skip-worktree bits still apply.
  "core.sparseCheckout=false",
  // A file is stored as its bytes in the work tree unless `.gitattributes` asks for a conversion: `input` or `true`
  // stored `a\r\nb\r\n` as `a\nb\n`.
  "core.autocrlf=false",
]);

/** Variables every git run gets; nothing else is inherited. */
export const GIT_ENV: Readonly<Record<string, string>> = Object.freeze({
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_NO_LAZY_FETCH: "1",
  // No transport at all: git allows only the names this list holds (none), whatever `protocol.<name>.allow`
  // the repository's config sets (its own `protocol.ext.allow=always` beats the pinned `protocol.allow=never`).
  GIT_ALLOW_PROTOCOL: "",
  // No `info/grafts` (deprecated) is read: git inserts its lines in sorted order one at a time, so 300,000 lines in
  // descending order (12 MB) took `git log` 4.7 s, and a graft rewrites a commit's parents.
  GIT_GRAFT_FILE: "/dev/null",
  HOME: "/nonexistent",
  PATH: "/usr/bin:/bin",
  LC_ALL: "C",
});

/**
 * {@linkcode GIT_ENV} with `GIT_ALLOC_LIMIT`, the most git may allocate at
 * once: what git reads whole (a commit or tag message, a tree, a blob stored
 * as a delta, a work-tree file grep reads) fails the run past it, where a
 * small object in a hostile repository (a 200 KB commit holding a 200 MiB
 * message) drove `git log` to 1.2 GiB. The default, 64 MiB, is twice the
 * largest table a diff the server allows needs (Myers' on 1 MiB of empty
 * lines: 32 MiB).
 *
 * @param mib The config's `alloc_limit_mib`.
 * @returns The variables of every git run.
 */
export function gitEnv(mib: number): Readonly<Record<string, string>> {
  return Object.freeze({ ...GIT_ENV, GIT_ALLOC_LIMIT: `${mib}m` });
}

/** What a repository's config names that git could run, found by {@linkcode parseDrivers}. */
export interface Drivers {
  /** Names of `filter.<name>.*` drivers (clean, smudge, process). */
  readonly filters: readonly string[];
  /** Names of `diff.<name>.*` drivers (textconv, command). */
  readonly diffs: readonly string[];
  /** Names of `merge.<name>.*` drivers. */
  readonly merges: readonly string[];
  /**
   * Names git's `-c` could not pin exactly: they hold `=` or a control
   * character, or bytes that are not UTF-8 (an argument of ours is UTF-8, so
   * `-c` would name another driver and leave this one running).
   */
  readonly unpinnable: readonly string[];
  /**
   * The files `blame.ignoreRevsFile` names, in order: git blame reads every
   * one (a later `-c` cannot unset them) and quotes a line that is not a
   * revision in its error.
   */
  readonly ignoreRevsFiles: readonly string[];
}

/** The regexp (for `git config --get-regexp`) of every driver key a repository may define, and `blame.ignoreRevsFile`. */
export const DRIVER_KEYS = "^(filter|diff|merge)\\.|^blame\\.ignorerevsfile$";

/**
 * Reads the output of `git config --null --get-regexp <DRIVER_KEYS>`: NUL-ended
 * entries of `key\nvalue`, where a key is `section.<name>.variable`.
 *
 * @param output The command's stdout.
 * @returns The driver names per section.
 */
export function parseDrivers(output: string): Drivers {
  const found = { filter: new Set<string>(), diff: new Set<string>(), merge: new Set<string>() };
  const unpinnable = new Set<string>();
  const ignoreRevsFiles: string[] = [];
  for (const entry of output.split("\0")) {
    const key = entry.split("\n", 1)[0];
    if (key.toLowerCase() === "blame.ignorerevsfile") {
      ignoreRevsFiles.push(entry.slice(key.length + 1));
      continue;
    }
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    if (first < 0 || last <= first) continue; // `diff.external` and others without a name
    const section = key.slice(0, first).toLowerCase() as keyof typeof found;
    const name = key.slice(first + 1, last);
    if (!(section in found)) continue;
    if (name.includes("=") || hasControl(name) || notUtf8(name)) unpinnable.add(name);
    else found[section].add(name);
  }
  return {
    filters: [...found.filter].sort(),
    diffs: [...found.diff].sort(),
    merges: [...found.merge].sort(),
    unpinnable: [...unpinnable].sort(),
    ignoreRevsFiles,
  };
}

/**
 * The `-c` settings that empty every driver a repository defines, so no
 * clean/smudge/process filter, textconv or diff command ever runs (an empty
 * command is git's "no driver").
 *
 * @param drivers From {@linkcode parseDrivers}.
 * @returns The settings, `name=value` each.
 */
export function driverOverrides(drivers: Drivers): string[] {
  return [
    ...drivers.filters.flatMap((n) => [
      `filter.${n}.clean=`,
      `filter.${n}.smudge=`,
      `filter.${n}.process=`,
      `filter.${n}.required=false`,
    ]),
    // `binary=auto`: a driver's `binary=false` would line-diff a file past the big-file threshold.
    ...drivers.diffs.flatMap((n) => [
      `diff.${n}.textconv=`,
      `diff.${n}.command=`,
      `diff.${n}.cachetextconv=false`,
      `diff.${n}.binary=auto`,
      // git 2.40 and later take a driver's algorithm before diff.algorithm.
      `diff.${n}.algorithm=myers`,
    ]),
    ...drivers.merges.map((n) => `merge.${n}.driver=`),
  ];
}

/**
 * The typed parts of git's global options for one repository: the git dir
 * and work tree named explicitly (no discovery upward, no `.git` file read,
 * `core.worktree` ignored), literal pathspecs (no `*` or `:(magic)` in a
 * path), no pager, no replace refs, then every pinned and per-driver `-c`.
 *
 * @param root The work tree (real path).
 * @param gitDir The git directory (real path, checked by `gitLayout`).
 * @param overrides Extra `-c` settings (drivers, identity).
 * @param magic Lets pathspec magic through: every operand must then carry its own `:(literal)`.
 * @returns The parts, to put before the subcommand.
 */
export function globalArgs(root: string, gitDir: string, overrides: readonly string[], magic = false): CommandArg[] {
  return [
    arg.flag("--no-pager"),
    ...(magic ? [] : [arg.flag("--literal-pathspecs")]),
    arg.flag("--no-replace-objects"),
    arg.flag(`--git-dir=${gitDir}`),
    arg.flag(`--work-tree=${root}`),
    ...[...PINNED_CONFIG, ...overrides].flatMap((setting) => [arg.flag("-c"), arg.word(setting)]),
  ];
}

/**
 * The global options of a run that lets git find the repository itself from
 * the work tree, so that git applies its own ownership check
 * (`safe.directory`), which it skips when `--git-dir` is named. Only
 * `rev-parse` runs this way.
 *
 * @returns The parts, to put before the subcommand.
 */
export function discoveryArgs(): CommandArg[] {
  return [
    arg.flag("--no-pager"),
    ...PINNED_CONFIG.flatMap((setting) => [arg.flag("-c"), arg.word(setting)]),
  ];
}
