// The one object per process. It reads the current config on every call, so
// an edited config applies at the very next call, without restart.
import { resolve } from "node:path";
import { arg, type CommandArg, PolicyError, quote } from "@forge/toolkit/validate";
import { argumentBytes, MAX_ARGUMENT_BYTES, MAX_PATHS_BYTES } from "./argument_bytes.ts";
import {
  assertCommitsToBranch,
  assertNoSkipWorktree,
  committedOutside,
  outsideNamedArgs,
  skipWorktreePaths,
} from "./commit_scope.ts";
import { type Config, MAX_OUTPUT_CEILING } from "./config.ts";
import {
  assertSmallHistory,
  bigFilesAt,
  bigFilesInWorkTree,
  type DiffPlan,
  leftOutLines,
  MAX_DIFFED_BYTES,
  planDiff,
  withNote,
} from "./big_files.ts";
import { Git, type GitOutput, shownUpTo } from "./git.ts";
import { tooLargeToRead } from "./git_failure.ts";
import { parseGrep } from "./grep_output.ts";
import { assertSmallPattern } from "./grep_pattern.ts";
import { assertSingleNames, nulPaths } from "./hard_links.ts";
import { assertIgnoreRevsInside } from "./ignore_revs_files.ts";
import { assertIndexNames, assertServedNames, statusPaths } from "./index_names.ts";
import { assertPlainMailmap } from "./mailmap.ts";
import { assertNoNestedRepos, nestedRepos, stagedPaths } from "./nested_repos.ts";
import { assertNotOwnFiles } from "./own_files.ts";
import { auditFileOf, baseDirOf } from "./policy.ts";
import { parseRaw } from "./raw_changes.ts";
import { assertNoLinkedFolder, repoPath } from "./repo_path.ts";
import { revision } from "./revision.ts";

/** The most commits `git_log` lists. */
export const MAX_LOG_COUNT = 1000;
/** The most paths one `git_commit` takes. */
export const MAX_COMMIT_PATHS = 1000;
/** The longest commit message, in characters. */
export const MAX_MESSAGE = 64 * 1024;
/** The longest `git_grep` pattern, in characters. */
export const MAX_PATTERN = 1000;

// Diffs and logs show content as stored: no external diff, no textconv, no signature check.
const SHOW_AS_STORED = [
  arg.flag("--no-color"),
  arg.flag("--no-ext-diff"),
  arg.flag("--no-textconv"),
  arg.flag("--no-show-signature"),
];
// `git commit <paths>` hashes each named file again, into an index made from HEAD. Past core.bigFileThreshold git
// streams the file into a temporary pack even when its blob is stored already (then drops the copy), and a stop left
// that partial pack in the store; under the threshold git looks the blob up first and, found, writes nothing. The
// `git add` before it has just stored every blob, so the commit's run sets no threshold a file can pass.
const NO_BIG_FILES = `core.bigFileThreshold=${2n ** 63n - 1n}`;
// Logs and shows name authors as committed: the work tree's `.mailmap` would rename them from a file the
// repository chooses (a hard link can make it any file its owner may read).
const AS_COMMITTED = arg.flag("--no-mailmap");

/** Options of `log`. */
export interface LogOptions {
  /** A revision to start from (default HEAD). */
  ref?: string;
  /** Only commits that touch this path. */
  path?: string;
  /** How many commits (1–1000, default 20). */
  maxCount?: number;
}

/** What `commit` made. */
export interface CommitOutcome {
  /** The repository. */
  readonly repo: string;
  /** The new commit's hash. */
  readonly commit: string;
  /** The paths committed, relative to the work tree. */
  readonly paths: readonly string[];
}

/** Options of {@linkcode Manager}. */
export interface ManagerOptions {
  /**
   * The config the server started with, counted by {@linkcode Manager.maxOutputBytes} until a call has read one.
   * @default {the largest max_output_bytes a config may set}
   */
  initial?: Config;
  /**
   * More of the server's own files no tool may commit or read from a work tree, beside the config file and the
   * audit file (runWithConfig's `ownFiles`: the tenant file looked for at start).
   * @default {[]}
   */
  ownFiles?: readonly string[];
}

/** Serves the git tools from the current config. */
export class Manager {
  readonly #config: () => Promise<Config>;
  readonly #configPath: string | undefined;
  readonly #ownFiles: readonly string[];
  #current: { config: Config; git: Promise<Git> } | undefined;
  readonly #commitLocks = new Map<string, Promise<unknown>>();
  // The max_output_bytes of the config a call last read: what the next call's reply is counted by.
  #maxOutputBytes: number;

  /**
   * @param config Returns the current config (the loader's `get`).
   * @param configPath The config file: relative paths in the config start at its folder.
   * @param options See {@linkcode ManagerOptions}.
   */
  constructor(config: () => Promise<Config>, configPath: string | undefined, options: ManagerOptions = {}) {
    this.#config = config;
    this.#configPath = configPath;
    this.#ownFiles = options.ownFiles ?? [];
    this.#maxOutputBytes = options.initial?.max_output_bytes ?? MAX_OUTPUT_CEILING;
  }

  /**
   * The `max_output_bytes` of the config a call last read: what the tools' `maxResultBytes` are counted from. A
   * reload that raises it is counted from the call after the first that reads it.
   */
  get maxOutputBytes(): number {
    return this.#maxOutputBytes;
  }

  /** `git status`: branch and changed files, porcelain v1. */
  async status(repo: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    const drivers = await git.drivers(r, signal);
    await assertIndexNames(git, r, { signal, drivers });
    const out = await git.run(r, [
      arg.word("status"),
      arg.flag("--porcelain=v1"),
      arg.flag("--branch"),
      arg.flag("--untracked-files=normal"),
      arg.flag("--ignore-submodules=all"),
      // Counting ahead and behind an upstream the repository's config names walks (and keeps) every commit
      // between them: 20 commits of 60 MiB messages drove git to 1.3 GiB. The line says only whether they differ.
      arg.flag("--no-ahead-behind"),
    ], { signal, drivers });
    // A line cut at the cap is left out, so that every name shown was checked; the marker counts what is shown.
    const lines = out.cut ? out.stdout.slice(0, out.stdout.lastIndexOf("\n") + 1) : out.stdout;
    assertServedNames(r.name, "status", statusPaths(lines));
    return shownUpTo({ ...out, text: lines }, lines.length);
  }

  /** `git log`: commits, newest first. */
  async log(repo: string, options: LogOptions, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    const count = options.maxCount ?? 20;
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_LOG_COUNT) {
      throw new PolicyError("invalid-input", `Cannot use max_count ${quote(count)}: it must be 1 to ${MAX_LOG_COUNT}`);
    }
    const ref = options.ref === undefined
      ? []
      : [await git.resolve(r, "ref", revision("ref", options.ref), "commit", signal)];
    return await git.run(r, [
      arg.word("log"),
      ...SHOW_AS_STORED,
      AS_COMMITTED,
      arg.flag("--date=iso-strict"),
      arg.flag("--format=medium"),
      arg.flag(`--max-count=${count}`),
      arg.flag("--end-of-options"),
      ...ref.map((id) => arg.value("ref", id)),
      arg.operands("path", await this.#paths(r.root, options.path, false)),
    ], { signal });
  }

  /** `git show`: a commit with its diff, or a file at a revision. */
  async show(repo: string, rev: string, path: string | undefined, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    const checked = revision("rev", rev);
    const relative = path === undefined ? undefined : repoPath("path", path);
    // With a path, the revision is resolved to its tree and git reads `<tree id>:<path>` as an object name.
    const object = relative === undefined
      ? await git.resolve(r, "rev", checked, "object", signal)
      : `${await git.resolve(r, "rev", checked, "tree", signal)}:${relative}`;
    const drivers = await git.drivers(r, signal);
    const commit = relative === undefined ? await this.#commitOf(git, r, object, signal) : undefined;
    let plan: DiffPlan | undefined;
    if (commit !== undefined) {
      // The files the commit's diff reads, against each parent (a merge's combined diff reads them all).
      const listing = await git.run(r, [
        arg.word("diff-tree"),
        arg.flag("-r"),
        arg.flag("--raw"),
        arg.flag("-z"),
        arg.flag("--root"),
        arg.flag("-m"),
        arg.flag("--no-commit-id"),
        arg.flag("--end-of-options"),
        arg.value("rev", commit),
      ], { signal, drivers });
      const changes = parseRaw(r.name, listing);
      assertServedNames(r.name, "commit", changes.flatMap((change) => change.paths));
      plan = await planDiff(git, r, changes, { signal, drivers });
    }
    const out = await git.run(r, [
      arg.word("show"),
      ...SHOW_AS_STORED,
      AS_COMMITTED,
      // A gitlink's change is left out, as by git_diff: `.gitmodules` may say `ignore = none` for a submodule, which
      // beats the pinned diff.ignoreSubmodules, and its diff would run a git under the submodule's own config.
      arg.flag("--ignore-submodules=all"),
      arg.flag("--submodule=short"),
      // A merge against its first parent: the combined diff of all parents builds a table per hunk that grows with
      // the square of the lines the parents lost there (2.1 GiB for a merge stored in 156 KiB).
      arg.flag("--diff-merges=first-parent"),
      arg.flag("--date=iso-strict"),
      arg.flag("--format=fuller"),
      // With every changed file left out, the commit alone: git given no path would diff them all.
      ...(plan?.kept?.length === 0 ? [arg.flag("--no-patch")] : []),
      ...(plan?.renames === false ? [arg.flag("--no-renames")] : []),
      arg.flag("--end-of-options"),
      arg.value("rev", object),
      arg.operands("path", plan?.kept ?? []),
    ], { signal, drivers });
    return withNote(out, plan?.note ?? "");
  }

  /** The commit `git show` diffs for an object: itself, a tag's commit, or none (a tree, a blob). */
  async #commitOf(
    git: Git,
    r: ReturnType<Git["repo"]>,
    object: string,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const type = (await git.run(r, [arg.word("cat-file"), arg.flag("-t"), arg.value("rev", object)], { signal }))
      .stdout.trim();
    if (type === "commit") return object;
    if (type !== "tag") return undefined;
    return await git.resolve(r, "rev", object, "commit", signal).catch((err) => {
      if (err instanceof PolicyError && err.code === "not-found") return undefined;
      throw err;
    });
  }

  /**
   * A diff: the work tree against the index, or against `from`, or `from`
   * against `to`. It runs git's plumbing (`diff-files`, `diff-index`,
   * `diff-tree`), which needs a repository and has no `--no-index` mode, so
   * no argument can make git compare files outside the work tree.
   */
  async diff(repo: string, from?: string, to?: string, path?: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r, config] = await this.#repo(repo);
    if (to !== undefined && from === undefined) {
      throw new PolicyError("invalid-input", "Cannot use to: it needs from");
    }
    const revs: [string, string][] = [];
    if (from !== undefined) revs.push(["from", revision("from", from)]);
    if (to !== undefined) revs.push(["to", revision("to", to)]);
    const trees: string[] = [];
    for (const [name, rev] of revs) trees.push(await git.resolve(r, name, rev, "tree", signal));
    const paths = await this.#paths(r.root, path, true);
    const command = ["diff-files", "diff-index", "diff-tree"][trees.length];
    const shape = (output: CommandArg[], operands: string[]) => [
      arg.word(command),
      ...output,
      ...(trees.length === 2 ? [arg.flag("-r")] : []),
      // An unmerged path against "ours" (stage 2), as the listing names it: its combined diff has the merge's cost.
      ...(trees.length === 0 ? [arg.flag("-2")] : []),
      arg.flag("--ignore-submodules=all"),
      arg.flag("--end-of-options"),
      ...trees.map((id, i) => arg.value(i === 0 ? "from" : "to", id)),
      arg.operands("path", operands),
    ];
    // Every run of the call pins the same drivers. The listing (without rename detection, which reads
    // blobs) names every file the diff reads: each is checked for a second name and for its size first.
    const drivers = await git.drivers(r, signal);
    // Against the work tree, git opens each file by the name the index gives it.
    if (trees.length < 2) await assertIndexNames(git, r, { signal, drivers });
    const listing = await git.run(r, shape([arg.flag("--raw"), arg.flag("-z")], paths), { signal, drivers });
    const changes = parseRaw(r.name, listing);
    assertServedNames(r.name, "diff", changes.flatMap((change) => change.paths));
    if (trees.length < 2) {
      const read = changes.flatMap((change) => change.paths);
      if (!config.allow_hard_links) await assertSingleNames(r.root, r.name, read);
      await this.#assertNotOwn(config, r, "read", read);
    }
    const plan = await planDiff(git, r, changes, { signal, drivers });
    const renames = arg.flag(plan.renames ? "--find-renames" : "--no-renames");
    const patch = [arg.flag("--patch"), renames, ...SHOW_AS_STORED.slice(0, 3)];
    // With every changed file left out, no run: git given no path would diff them all.
    const out = plan.kept?.length === 0
      ? { text: "", stdout: "", cut: false, code: 0 }
      : await git.run(r, shape(patch, plan.kept ?? paths), { signal, drivers });
    return withNote(out, plan.note);
  }

  /** `git grep`: lines matching an extended regular expression, in tracked files (text only). */
  async grep(repo: string, pattern: string, ref?: string, path?: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r, config] = await this.#repo(repo);
    if (typeof pattern !== "string" || pattern === "" || pattern.length > MAX_PATTERN) {
      throw new PolicyError("invalid-input", `Cannot use pattern: it must be 1 to ${MAX_PATTERN} characters`);
    }
    // Before any git runs: compiling it is what costs (`a{1,32767}` took git past 1.6 GB in 5 s).
    assertSmallPattern(pattern);
    const checked = ref === undefined ? undefined : revision("ref", ref);
    const id = checked === undefined ? undefined : await git.resolve(r, "ref", checked, "commit", signal);
    const paths = await this.#paths(r.root, path, false);
    // A revision's files are read whole: those over the limit are kept out with `:(exclude)`, which needs magic.
    const drivers = await git.drivers(r, signal);
    // Without a revision, git opens each file by the name the index gives it.
    if (id === undefined) await assertIndexNames(git, r, { signal, drivers });
    let big = id === undefined ? [] : await bigFilesAt(git, r, id, paths[0], { signal, drivers });
    const search = (big: readonly string[]) => {
      const magic = big.length > 0;
      const operands = magic
        ? [...paths.map((p) => `:(literal)${p}`), ...big.map((p) => `:(exclude,literal)${p}`)]
        : paths;
      // git 2.39's grep takes --end-of-options for a revision: it goes without (an object id is no option).
      return git.run(r, [
        arg.word("grep"),
        arg.flag("--no-color"),
        arg.flag("--no-textconv"),
        arg.flag("--line-number"),
        arg.flag("--null"),
        arg.flag("-I"),
        arg.flag("--full-name"),
        arg.flag("--extended-regexp"),
        arg.option("-e", "pattern", pattern),
        ...(id === undefined ? [] : [arg.value("ref", id)]),
        arg.operands("path", operands),
      ], { signal, okCodes: [0, 1], drivers, pathspecMagic: magic });
    };
    let out: GitOutput;
    try {
      out = await search(big);
    } catch (err) {
      // A work-tree file takes its size on disk, so only one over GIT_ALLOC_LIMIT stops the search: then
      // the files over the diff limit are found by lstat and left out, as a revision's are up front.
      if (id !== undefined || !tooLargeToRead(err)) throw err;
      big = await bigFilesInWorkTree(git, r, paths, { signal, drivers });
      if (big.length === 0) throw err;
      const bytes = argumentBytes(big.map((p) => `:(exclude,literal)${p}`));
      if (bytes > MAX_PATHS_BYTES) {
        throw new PolicyError(
          "invalid-input",
          `Cannot search repo ${
            quote(r.name)
          }: ${big.length} tracked files are over ${MAX_DIFFED_BYTES} bytes in the ` +
            "work tree, too many to leave out of one search; name a path",
        );
      }
      out = await search(big);
    }
    const matches = parseGrep(out.stdout);
    // A match in a revision is named `<id>:<path>`.
    const prefix = id === undefined ? "" : `${id}:`;
    assertServedNames(
      r.name,
      "search",
      matches.map((m) => m.name.startsWith(prefix) ? m.name.slice(prefix.length) : m.name),
    );
    if (id === undefined) {
      // Checked after git read them, before anyone sees a line: only files that matched were shown. git grep
      // opens a tracked file through a folder the work tree has since swapped for a link (diff and blame do not).
      const names = [...new Set(matches.map((m) => m.name))];
      for (const name of names) await assertNoLinkedFolder(r.root, "matched file", name);
      if (!config.allow_hard_links) await assertSingleNames(r.root, r.name, names);
      await this.#assertNotOwn(config, r, "read", names);
    }
    // A match in a revision is named `<id>:<path>`: shown as the revision the caller gave.
    const lines = matches.map((m) => {
      const name = id !== undefined && m.name.startsWith(prefix) ? `${checked}${m.name.slice(id.length)}` : m.name;
      return `${name}:${m.line}:${m.text}\n`;
    });
    // A match the cap fell inside is left out: the marker counts the matches read whole (`name\0line\0text\n` each).
    const read = matches.reduce((n, m) => n + m.name.length + m.line.length + m.text.length + 3, 0);
    return withNote(shownUpTo({ ...out, text: lines.join("") }, read), leftOutLines(big, "searched", "a search"));
  }

  /** `git blame`: who last changed each line of a file. */
  async blame(repo: string, path: string, ref?: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r, config] = await this.#repo(repo);
    const id = ref === undefined ? undefined : await git.resolve(r, "ref", revision("ref", ref), "commit", signal);
    const paths = await this.#paths(r.root, path, false);
    const { allow_hard_links } = config;
    if (id === undefined && !allow_hard_links) await assertSingleNames(r.root, r.name, paths);
    const drivers = await git.drivers(r, signal);
    if (id === undefined) await assertIndexNames(git, r, { signal, drivers });
    await assertIgnoreRevsInside(r.root, r.name, drivers.ignoreRevsFiles, allow_hard_links);
    await assertPlainMailmap(r.root, r.name, allow_hard_links);
    // Whatever the revision, blame reads the work tree's .mailmap and ignore-revs files.
    const ignoreRevs = drivers.ignoreRevsFiles.filter((file) => file !== "").map((file) => repoPath("file", file));
    await this.#assertNotOwn(config, r, "read", [...(id === undefined ? paths : []), ".mailmap", ...ignoreRevs]);
    if (paths.length === 1) await assertSmallHistory(git, r, paths[0], id, { signal, drivers });
    return await git.run(r, [
      arg.word("blame"),
      arg.flag("--no-textconv"),
      arg.flag("--date=iso-strict"),
      ...(id === undefined ? [] : [arg.value("ref", id)]),
      arg.operands("path", paths),
    ], { signal, drivers });
  }

  /**
   * The normalised paths and repository of a commit, checked (for its
   * permission pattern and before any side effect).
   */
  async commitTarget(repo: string, paths: readonly string[]): Promise<{ repo: string; paths: string[] }> {
    const [, r, config] = await this.#repo(repo);
    return await this.#commitTarget(config, r, repo, paths);
  }

  async #commitTarget(
    config: Config,
    r: ReturnType<Git["repo"]>,
    repo: string,
    paths: readonly string[],
  ): Promise<{ repo: string; paths: string[] }> {
    if (!r.writable) throw new PolicyError("no-permission", `Cannot commit to repo ${quote(repo)}: it is read-only`);
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > MAX_COMMIT_PATHS) {
      throw new PolicyError("invalid-input", `Cannot use paths: give 1 to ${MAX_COMMIT_PATHS} paths`);
    }
    const checked = [...new Set(paths.map((p) => repoPath("paths", p)))];
    // Each git run gets them all as arguments.
    const bytes = argumentBytes(checked);
    if (bytes > MAX_PATHS_BYTES) {
      throw new PolicyError(
        "invalid-input",
        `Cannot use paths: together they are ${bytes} bytes of UTF-8, over the ${MAX_PATHS_BYTES} git can take`,
      );
    }
    if (checked.includes(".")) {
      throw new PolicyError("invalid-input", "Cannot use paths: name files, not the whole work tree");
    }
    for (const path of checked) await assertNoLinkedFolder(r.root, "paths", path);
    await this.#assertNotOwn(config, r, "commit", checked);
    return { repo: r.name, paths: checked };
  }

  /** Stages exactly `paths` and commits only them, with hooks, signing and filters never run. */
  async commit(repo: string, message: string, paths: readonly string[], signal?: AbortSignal): Promise<CommitOutcome> {
    if (typeof message !== "string" || message.trim() === "" || message.length > MAX_MESSAGE) {
      throw new PolicyError("invalid-input", `Cannot use message: it must be 1 to ${MAX_MESSAGE} characters of text`);
    }
    if (message.includes("\0")) throw new PolicyError("invalid-input", "Cannot use message: it holds a NUL byte");
    const bytes = argumentBytes([message]);
    if (bytes > MAX_ARGUMENT_BYTES) {
      throw new PolicyError(
        "invalid-input",
        `Cannot use message: it is ${bytes} bytes of UTF-8, over the ${MAX_ARGUMENT_BYTES} git takes as one argument`,
      );
    }
    // One config version for the whole commit: the one its target was checked under (a reload meanwhile could name
    // another work tree, read-only, under the same name).
    const [git, r, config] = await this.#repo(repo);
    const target = await this.#commitTarget(config, r, repo, paths);
    const { author, allow_hard_links } = config;
    const options = {
      signal,
      refuseFilters: true,
      // author.* and committer.* beat user.* at any level of git's config: a repository's own would sign the commit.
      config: ["user", "author", "committer"].flatMap((
        who,
      ) => [`${who}.name=${author.name}`, `${who}.email=${author.email}`]),
    };
    // What git writes in place (the message file, the reflogs) is checked for links before each write.
    const writing = { ...options, inPlaceWrites: true };
    // Two commits to one work tree (under one name or two) would race for its index lock: they take turns.
    const previous = this.#commitLocks.get(r.root) ?? Promise.resolve();
    const turn = previous.catch(() => {}).then(async () => {
      // `git add` and `git commit` read the index and the work-tree files it names.
      await assertIndexNames(git, r, { signal });
      // What `git add` would read: tracked and untracked (not ignored) files under the paths.
      const list = (...flags: string[]) =>
        git.run(r, [
          arg.word("ls-files"),
          arg.flag("-z"),
          ...flags.map((flag) => arg.flag(flag)),
          arg.operands("paths", target.paths),
        ], { signal });
      const staged = nulPaths(r.name, await list("--stage"));
      const others = nulPaths(r.name, await list("--others", "--exclude-standard"));
      const stagedNames = stagedPaths(staged);
      assertServedNames(r.name, "files to commit", [...stagedNames, ...others.map((p) => p.replace(/\/$/, ""))]);
      assertNoNestedRepos(r.name, nestedRepos(staged, others));
      if (!allow_hard_links) await assertSingleNames(r.root, r.name, [...stagedNames, ...others]);
      // Named or in a named folder, tracked or not, the server's config and audit trail never enter the history.
      await this.#assertNotOwn(config, r, "commit", [...stagedNames, ...others]);
      assertNoSkipWorktree(r.name, skipWorktreePaths(nulPaths(r.name, await list("-t"))));
      const branch = await git.run(r, [arg.word("symbolic-ref"), arg.flag("-q"), arg.word("HEAD")], {
        ...options,
        okCodes: [0, 1],
      });
      assertCommitsToBranch(r.name, branch.text.trim());
      await git.run(r, [arg.word("add"), arg.operands("paths", target.paths)], writing);
      await git.run(r, [
        arg.word("commit"),
        arg.flag("--no-verify"),
        arg.flag("--no-gpg-sign"),
        // git's own default for -m, which a repository's commit.cleanup=strip (with its core.commentChar) would
        // replace: lines starting with that character would be dropped from the message.
        arg.flag("--cleanup=whitespace"),
        arg.flag("--quiet"),
        arg.option("-m", "message", message),
        arg.operands("paths", target.paths),
      ], { ...writing, config: [...options.config, NO_BIG_FILES] });
      // The commit is made: what follows runs to its end even if the call is cancelled now.
      const after = { ...options, signal: undefined };
      const head = (await git.run(r, [arg.word("rev-parse"), arg.flag("--verify"), arg.word("HEAD")], after)).text
        .trim();
      // Only the named paths may have changed against the commit's parent; anything else came from the index, not
      // the work tree, and the branch goes back to that parent (only if it still points at this commit).
      const outside = await git.run(r, outsideNamedArgs(head, target.paths), { ...after, pathspecMagic: true });
      const unnamed = outside.stdout.split("\0").filter((path) => path !== "");
      if (unnamed.length > 0) {
        const parent = (await git.run(r, [
          arg.word("rev-parse"),
          arg.flag("--verify"),
          arg.flag("--quiet"),
          arg.value("commit", `${head}^`),
        ], { ...after, okCodes: [0, 1] })).text.trim();
        await git.run(
          r,
          parent === ""
            ? [arg.word("update-ref"), arg.flag("-d"), arg.word("HEAD"), arg.value("commit", head)]
            : [arg.word("update-ref"), arg.word("HEAD"), arg.value("commit", parent), arg.value("commit", head)],
          { ...writing, signal: undefined },
        );
        throw committedOutside(r.name, unnamed);
      }
      return { repo: r.name, commit: head, paths: target.paths };
    });
    this.#commitLocks.set(r.root, turn);
    try {
      return await turn;
    } finally {
      if (this.#commitLocks.get(r.root) === turn) this.#commitLocks.delete(r.root);
    }
  }

  /** Nothing to release: every call starts and ends its own git. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Refuses when a work-tree path git is about to commit or read is one of the server's own files: the config file,
   * the current config's audit file and the `ownFiles` it was given, where they are now.
   */
  async #assertNotOwn(
    config: Config,
    r: { root: string; name: string },
    action: string,
    paths: Iterable<string>,
  ): Promise<void> {
    const audit = auditFileOf(config, this.#configPath);
    const own = [this.#configPath, audit].filter((file) => file !== undefined).map((file) => resolve(file));
    // runWithConfig's list names the config file and the audit file too: each is looked up once.
    await assertNotOwnFiles(r.root, r.name, action, paths, [...new Set([...own, ...this.#ownFiles])]);
  }

  /** The caller's path, checked, as operands; the whole tree (`.`) when none and `whole`. */
  async #paths(root: string, path: string | undefined, whole: boolean): Promise<string[]> {
    if (path === undefined) return whole ? ["."] : [];
    const relative = repoPath("path", path);
    await assertNoLinkedFolder(root, "path", relative);
    return [relative];
  }

  /**
   * Opens the current config now (the server calls it at start), saying on
   * stderr, one line each, which repositories cannot be served and why. A
   * config that cannot be opened at all is left for the first call to report.
   */
  async open(): Promise<void> {
    await this.#gitFor(await this.#config()).catch(() => {});
  }

  // The config a call reads once, with what was opened from it: every check of one call is made under one version.
  async #repo(name: string): Promise<[Git, ReturnType<Git["repo"]>, Config]> {
    const config = await this.#config();
    const git = await this.#gitFor(config);
    return [git, git.repo(name), config];
  }

  // A new config version (at start, after a reload) is opened once: each repository it cannot
  // serve is said on stderr then, and refused again by the check before every run.
  #gitFor(config: Config): Promise<Git> {
    this.#maxOutputBytes = config.max_output_bytes;
    if (this.#current?.config !== config) {
      const git = Git.open(config, baseDirOf(this.#configPath));
      git.then((opened) => {
        for (const line of opened.refused) console.error(`git: ${line}`);
      }, () => {
        // A failed build is not cached: the next call tries again.
        if (this.#current?.git === git) this.#current = undefined;
      });
      this.#current = { config, git };
    }
    return this.#current.git;
  }
}
