// The one object per process. It reads the current config on every call, so
// an edited config applies at the very next call, without restart.
import { arg, type CommandArg, PolicyError, quote } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { Git, type GitOutput } from "./git.ts";
import { baseDirOf } from "./policy.ts";
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

/** Serves the git tools from the current config. */
export class Manager {
  readonly #config: () => Promise<Config>;
  readonly #configPath: string | undefined;
  #current: { config: Config; git: Promise<Git> } | undefined;
  readonly #commitLocks = new Map<string, Promise<unknown>>();

  /**
   * @param config Returns the current config (the loader's `get`).
   * @param configPath The config file: relative paths in the config start at its folder.
   */
  constructor(config: () => Promise<Config>, configPath: string | undefined) {
    this.#config = config;
    this.#configPath = configPath;
  }

  /** `git status`: branch and changed files, porcelain v1. */
  async status(repo: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    return await git.run(r, [
      arg.word("status"),
      arg.flag("--porcelain=v1"),
      arg.flag("--branch"),
      arg.flag("--untracked-files=normal"),
      arg.flag("--ignore-submodules=all"),
    ], { signal });
  }

  /** `git log`: commits, newest first. */
  async log(repo: string, options: LogOptions, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    const count = options.maxCount ?? 20;
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_LOG_COUNT) {
      throw new PolicyError("invalid-input", `Cannot use max_count ${quote(count)}: it must be 1 to ${MAX_LOG_COUNT}`);
    }
    return await git.run(r, [
      arg.word("log"),
      ...SHOW_AS_STORED,
      arg.flag("--date=iso-strict"),
      arg.flag("--format=medium"),
      arg.flag(`--max-count=${count}`),
      ...await this.#tail(r.root, [options.ref === undefined ? undefined : revision("ref", options.ref)], options.path),
    ], { signal });
  }

  /** `git show`: a commit with its diff, or a file at a revision. */
  async show(repo: string, rev: string, path: string | undefined, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    const object = path === undefined ? revision("rev", rev) : `${revision("rev", rev)}:${repoPath("path", path)}`;
    return await git.run(r, [
      arg.word("show"),
      ...SHOW_AS_STORED,
      arg.flag("--date=iso-strict"),
      arg.flag("--format=fuller"),
      arg.flag("--end-of-options"),
      arg.value("rev", object),
    ], { signal });
  }

  /** `git diff`: work tree against the index, or against `from`, or `from` against `to`. */
  async diff(repo: string, from?: string, to?: string, path?: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    if (to !== undefined && from === undefined) {
      throw new PolicyError("invalid-input", "Cannot use to: it needs from");
    }
    const revs = [
      from === undefined ? undefined : revision("from", from),
      to === undefined ? undefined : revision("to", to),
    ];
    return await git.run(r, [
      arg.word("diff"),
      ...SHOW_AS_STORED.filter((part) => part.kind !== "flag" || part.text !== "--no-show-signature"),
      arg.flag("--ignore-submodules=all"),
      ...await this.#tail(r.root, revs, path),
    ], { signal });
  }

  /** `git grep`: lines matching an extended regular expression, in tracked files (text only). */
  async grep(repo: string, pattern: string, ref?: string, path?: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    if (typeof pattern !== "string" || pattern === "" || pattern.length > MAX_PATTERN) {
      throw new PolicyError("invalid-input", `Cannot use pattern: it must be 1 to ${MAX_PATTERN} characters`);
    }
    return await git.run(r, [
      arg.word("grep"),
      arg.flag("--no-color"),
      arg.flag("--no-textconv"),
      arg.flag("--line-number"),
      arg.flag("-I"),
      arg.flag("--full-name"),
      arg.flag("--extended-regexp"),
      arg.option("-e", "pattern", pattern),
      ...await this.#tail(r.root, [ref === undefined ? undefined : revision("ref", ref)], path, false),
    ], { signal, okCodes: [0, 1] });
  }

  /** `git blame`: who last changed each line of a file. */
  async blame(repo: string, path: string, ref?: string, signal?: AbortSignal): Promise<GitOutput> {
    const [git, r] = await this.#repo(repo);
    return await git.run(r, [
      arg.word("blame"),
      arg.flag("--no-textconv"),
      arg.flag("--date=iso-strict"),
      ...await this.#tail(r.root, [ref === undefined ? undefined : revision("ref", ref)], path, false),
    ], { signal });
  }

  /**
   * The normalised paths and repository of a commit, checked (for its
   * permission pattern and before any side effect).
   */
  async commitTarget(repo: string, paths: readonly string[]): Promise<{ repo: string; paths: string[] }> {
    const [, r] = await this.#repo(repo);
    if (!r.writable) throw new PolicyError("no-permission", `Cannot commit to repo ${quote(repo)}: it is read-only`);
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > MAX_COMMIT_PATHS) {
      throw new PolicyError("invalid-input", `Cannot use paths: give 1 to ${MAX_COMMIT_PATHS} paths`);
    }
    const checked = [...new Set(paths.map((p) => repoPath("paths", p)))];
    if (checked.includes(".")) {
      throw new PolicyError("invalid-input", "Cannot use paths: name files, not the whole work tree");
    }
    for (const path of checked) await assertNoLinkedFolder(r.root, "paths", path);
    return { repo: r.name, paths: checked };
  }

  /** Stages exactly `paths` and commits only them, with hooks, signing and filters never run. */
  async commit(repo: string, message: string, paths: readonly string[], signal?: AbortSignal): Promise<CommitOutcome> {
    if (typeof message !== "string" || message.trim() === "" || message.length > MAX_MESSAGE) {
      throw new PolicyError("invalid-input", `Cannot use message: it must be 1 to ${MAX_MESSAGE} characters of text`);
    }
    if (message.includes("\0")) throw new PolicyError("invalid-input", "Cannot use message: it holds a NUL byte");
    const target = await this.commitTarget(repo, paths);
    const [git, r] = await this.#repo(repo);
    const { author } = await this.#config();
    const options = {
      signal,
      refuseFilters: true,
      config: [`user.name=${author.name}`, `user.email=${author.email}`],
    };
    // Two commits to one repository would race for its index lock: they take turns.
    const previous = this.#commitLocks.get(r.name) ?? Promise.resolve();
    const turn = previous.catch(() => {}).then(async () => {
      await git.run(r, [arg.word("add"), arg.operands("paths", target.paths)], options);
      await git.run(r, [
        arg.word("commit"),
        arg.flag("--no-verify"),
        arg.flag("--no-gpg-sign"),
        arg.flag("--quiet"),
        arg.option("-m", "message", message),
        arg.operands("paths", target.paths),
      ], options);
      const head = await git.run(r, [arg.word("rev-parse"), arg.flag("--verify"), arg.word("HEAD")], options);
      return { repo: r.name, commit: head.text.trim(), paths: target.paths };
    });
    this.#commitLocks.set(r.name, turn);
    try {
      return await turn;
    } finally {
      if (this.#commitLocks.get(r.name) === turn) this.#commitLocks.delete(r.name);
    }
  }

  /** Nothing to release: every call starts and ends its own git. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * `--end-of-options` (git 2.39's grep and blame take it for a revision, so
   * they go without; revisions never start with `-` anyway), the revisions
   * given, then `--` and the path, checked.
   */
  async #tail(
    root: string,
    revs: (string | undefined)[],
    path: string | undefined,
    endOfOptions = true,
  ): Promise<CommandArg[]> {
    const parts: CommandArg[] = endOfOptions ? [arg.flag("--end-of-options")] : [];
    revs.forEach((rev, i) => {
      if (rev !== undefined) parts.push(arg.value(i === 0 ? "ref" : "to", rev));
    });
    const paths: string[] = [];
    if (path !== undefined) {
      const relative = repoPath("path", path);
      await assertNoLinkedFolder(root, "path", relative);
      paths.push(relative);
    }
    parts.push(arg.operands("path", paths));
    return parts;
  }

  async #repo(name: string): Promise<[Git, ReturnType<Git["repo"]>]> {
    const config = await this.#config();
    if (this.#current?.config !== config) {
      const git = Git.open(config, baseDirOf(this.#configPath));
      // A failed build is not cached: the next call tries again.
      git.catch(() => {
        if (this.#current?.git === git) this.#current = undefined;
      });
      this.#current = { config, git };
    }
    const git = await this.#current.git;
    return [git, git.repo(name)];
  }
}
