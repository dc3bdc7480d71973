import { isAbsolute, join, resolve } from "node:path";
import {
  arg,
  type CommandArg,
  CommandPolicy,
  type CommandResult,
  PolicyError,
  quote,
  truncationMarker,
} from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { assertNoIncludes, type ConfigFiles } from "./config_includes.ts";
import { DriverCache } from "./driver_cache.ts";
import { knownFailure } from "./git_failure.ts";
import { GitDataCache } from "./git_data_cache.ts";
import { gitLayout } from "./git_layout.ts";
import { assertNoHiddenConversions } from "./hidden_attributes.ts";
import { assertInPlaceWrites } from "./in_place_writes.ts";
import { IndexNamesCache } from "./index_names_cache.ts";
import { assertIndexShape, type ReadIndex } from "./index_shape.ts";
import { assertLineFilesBounded } from "./line_files.ts";
import {
  discoveryArgs,
  DRIVER_KEYS,
  driverOverrides,
  type Drivers,
  gitEnv,
  globalArgs,
  parseDrivers,
} from "./hardening.ts";

/** The most of git's stderr one log line holds. */
const MAX_LOGGED_STDERR = 4096;
/** Failures said so far: with the clock, each one's ref. */
let failures = 0;

/** A configured repository, resolved. */
export interface Repo {
  /** Its name in the config. */
  readonly name: string;
  /** The work tree's real path, or undefined when it could not be opened. */
  readonly root: string | undefined;
  /** Whether `git_commit` may commit here. */
  readonly writable: boolean;
  /** Whether to serve it when another user owns its work tree or git data. */
  readonly trustOtherOwner: boolean;
  /** Real paths of folders outside the work tree that its git data may be in. */
  readonly allowOutside: readonly string[];
  /**
   * Which of its folders this process may not read, having been started without it (a reload that adds a
   * repository): only a restart with new flags can serve it.
   */
  readonly notGranted?: "path" | "allow_outside";
}

/** The object types a revision is resolved to (`<rev>^{type}`). */
export type ObjectType = "commit" | "tree" | "object";

/** What one git subcommand printed. */
export interface GitOutput {
  /**
   * What the tool shows of git's output: stdout, cut at the cap, the lines
   * the server could not check left out (the marker apart, in `marker`, and
   * the server's notes in `notes`).
   */
  readonly text: string;
  /** stdout as git printed it (cut at the cap, without the line that says so). */
  readonly stdout: string;
  /** Whether the output was cut. */
  readonly cut: boolean;
  /**
   * `[truncated: showed the first N bytes]` when the output was cut, kept
   * apart from the text so that nothing git prints (a commit message, a
   * file's line) can pass for it: the tools send it in a block of its own.
   */
  readonly marker?: string;
  /**
   * The server's lines about the run (`Not diffed: …`, `Not searched: …`,
   * `Renames not looked for: …`), kept apart from git's output as the marker
   * is: a commit or tag message can print the same words, so in the text they
   * could be forged. The tools send them in the marker's block.
   */
  readonly notes?: string;
  /** The exit code. */
  readonly code: number;
}

/**
 * What the server says about a run, for the block apart from git's output:
 * its notes, then the truncation marker; undefined when it says nothing.
 *
 * @param out A run's output.
 * @returns The notice, or undefined.
 *
 * @example A cut diff with a file left out
 * ```ts
 * import { noticeOf } from "./git.ts";
 * import assert from "node:assert/strict";
 *
 * const notes = 'Not diffed: "big.txt" is over 1048576 bytes\n';
 * assert.equal(noticeOf({ notes, marker: "[truncated: showed the first 1024 bytes]" }),
 *   'Not diffed: "big.txt" is over 1048576 bytes\n[truncated: showed the first 1024 bytes]');
 * assert.equal(noticeOf({}), undefined);
 * ```
 */
export function noticeOf(out: Pick<GitOutput, "notes" | "marker">): string | undefined {
  const said = [out.notes?.replace(/\n$/, ""), out.marker].filter((part) => part !== undefined && part !== "");
  return said.length === 0 ? undefined : said.join("\n");
}

/**
 * `out`, cut at the cap, with its marker counting only the first `shown`
 * characters of git's output: what a tool shows when it leaves out the line
 * the cap fell inside (a name it could not check). Unchanged when not cut.
 *
 * @param out A run's output.
 * @param shown How many characters of `out.stdout` are shown.
 * @returns The output with its marker.
 *
 * @example A status whose last line was cut
 * ```ts
 * import { shownUpTo } from "./git.ts";
 * import assert from "node:assert/strict";
 *
 * const out = { text: "?? a\n", stdout: "?? a\n?? b", cut: true, code: 0, marker: "[truncated: showed the first 9 bytes]" };
 * assert.equal(shownUpTo(out, 5).marker, "[truncated: showed the first 5 bytes]");
 * ```
 */
export function shownUpTo(out: GitOutput, shown: number): GitOutput {
  if (!out.cut) return out;
  const bytes = new TextEncoder().encode(out.stdout.slice(0, shown)).length;
  return { ...out, marker: truncationMarker(bytes, undefined, "bytes") };
}

/** Options of one {@linkcode Git.run}. */
export interface GitRunOptions {
  /** Ends the run (the tool call's deadline, cancellation, shutdown). */
  signal?: AbortSignal;
  /** Extra `-c` settings (the commit identity). */
  config?: readonly string[];
  /**
   * Exit codes that are answers, not failures (`1` of `git grep`: no match).
   * @default {[0]}
   */
  okCodes?: readonly number[];
  /**
   * Refuse when the repository defines filter drivers, or its
   * `info/attributes` sets an attribute that may change what is stored (for
   * writes, whose content would differ from the work tree's).
   * @default {false}
   */
  refuseFilters?: boolean;
  /**
   * The drivers to pin, read by {@linkcode Git.drivers} for an earlier run
   * of the same call.
   * @default {read before this run}
   */
  drivers?: Drivers;
  /**
   * Lets pathspec magic (`:(exclude)`) through: the caller then writes
   * `:(literal)` into every path operand itself.
   * @default {false}
   */
  pathspecMagic?: boolean;
  /**
   * Reads the index first and refuses one git would expand past
   * `alloc_limit_mib`, a sparse or split one, or a damaged one
   * ({@linkcode assertIndexShape}): for the first run of a call that reads
   * the index.
   * @default {false}
   */
  checkIndex?: boolean;
  /**
   * Refuses first when a file `git commit` writes in place (`COMMIT_EDITMSG`,
   * a reflog) is a link or has a second name, whatever `allow_hard_links`
   * says ({@linkcode assertInPlaceWrites}): for the runs of a commit.
   * @default {false}
   */
  inPlaceWrites?: boolean;
}

/** Options of {@linkcode Git.open}, for tests. */
export interface GitOpenOptions {
  /**
   * How much older than a check a folder of git data, or an index, must
   * have changed for its verdict to be kept (tests set 0).
   * @default {10_000}
   */
  racyMs?: number;
  /** Told of every run {@linkcode Git.run} and {@linkcode Git.runOncePerIndex} start, with its subcommand. */
  onRun?: (subcommand: string) => void;
}

/**
 * Runs git for the configured repositories through a {@linkcode CommandPolicy}:
 * git by absolute path, an empty inherited environment plus `gitEnv()`,
 * every configuration-driven program pinned off, the deadline and output cap
 * of the config. Before every run it checks where the repository's git data
 * is, walking all of it for links and hard links ({@linkcode gitLayout}), and
 * who owns it.
 */
export class Git {
  readonly #commands: CommandPolicy;
  readonly #repos: ReadonlyMap<string, Repo>;
  readonly #maxOutputBytes: number;
  readonly #allowHardLinks: boolean;
  readonly #allocLimitBytes: number;
  // The folders of git data found clean, each until it changes: a walk reads only what changed since.
  readonly #checked: GitDataCache;
  // The index each repository's listing of suspect names found clean, until it or the config changes.
  readonly #cleanIndexes: IndexNamesCache;
  readonly #onRun: ((subcommand: string) => void) | undefined;
  // The drivers git found in each repository's config, for the bytes it was handed: asked again when one changes.
  readonly #drivers = new DriverCache();
  // This process's user id, learned from git's own ownership check (Deno would need --allow-sys to ask).
  #uid: number | undefined;
  /** One line per configured repository that cannot be served, saying why (found when opened). */
  readonly refused: string[] = [];

  private constructor(
    commands: CommandPolicy,
    repos: ReadonlyMap<string, Repo>,
    config: Config,
    options: GitOpenOptions,
  ) {
    this.#checked = new GitDataCache(options.racyMs);
    this.#cleanIndexes = new IndexNamesCache(options.racyMs);
    this.#onRun = options.onRun;
    this.#commands = commands;
    this.#repos = repos;
    this.#maxOutputBytes = config.max_output_bytes;
    this.#allowHardLinks = config.allow_hard_links;
    this.#allocLimitBytes = config.alloc_limit_mib * 1024 * 1024;
  }

  /**
   * Resolves the repositories of a config, fixes the command policy, and
   * checks every repository once, listing in {@linkcode Git.refused} those
   * that cannot be served (a missing one is kept, and refused when used).
   *
   * @param config The validated config.
   * @param baseDir Where relative paths in the config start.
   * @param options For tests: the racy interval of the caches, a hook told of each run.
   * @returns The runner.
   */
  static async open(config: Config, baseDir: string, options: GitOpenOptions = {}): Promise<Git> {
    const repos = new Map<string, Repo>();
    const roots: string[] = [];
    for (const repo of config.repos) {
      // A folder Deno refuses (NotCapable) is told apart from a missing one.
      const denied = new Set<string>();
      const real = (path: string) =>
        Deno.realPath(isAbsolute(path) ? path : resolve(baseDir, path)).catch((err) => {
          if (err instanceof Deno.errors.NotCapable) denied.add(path);
          return undefined;
        });
      const root = await real(repo.path);
      if (root !== undefined) roots.push(root);
      const outside = await Promise.all(repo.allow_outside.map(real));
      repos.set(repo.name, {
        name: repo.name,
        root,
        writable: repo.writable,
        trustOtherOwner: repo.trust_other_owner,
        allowOutside: outside.filter((path) => path !== undefined),
        notGranted: denied.has(repo.path) ? "path" : denied.size > 0 ? "allow_outside" : undefined,
      });
    }
    const commands = await CommandPolicy.create({
      programs: { git: config.git },
      killer: config.kill,
      sessionStarter: config.setsid,
      roots,
      env: gitEnv(config.alloc_limit_mib),
      timeoutMs: config.timeout_ms,
      maxOutputBytes: config.max_output_bytes,
    });
    const git = new Git(commands, repos, config, options);
    for (const name of repos.keys()) {
      try {
        await git.#verify(git.repo(name));
      } catch (err) {
        if (!(err instanceof PolicyError)) throw err;
        git.refused.push(err.message);
      }
    }
    return git;
  }

  /**
   * The repository a caller named.
   *
   * @param name The `repo` argument.
   * @returns The repository.
   * @throws {PolicyError} When no configured repository has that name, its folder is missing, or this process was
   *   started without access to it.
   */
  repo(name: string): Repo & { readonly root: string } {
    const repo = typeof name === "string" ? this.#repos.get(name) : undefined;
    if (repo === undefined) {
      throw new PolicyError("outside-roots", `Cannot use repo ${quote(name)}: it is not a configured repository`);
    }
    if (repo.notGranted !== undefined) {
      const which = repo.notGranted === "path" ? "its folder is" : "a folder of its allow_outside is";
      throw new PolicyError(
        "no-permission",
        `Cannot use repo ${quote(name)}: ${which} in the config but outside what this process was started with; ` +
          "restart the server with the flags from --print-permissions",
      );
    }
    if (repo.root === undefined) {
      throw new PolicyError("not-found", `Cannot use repo ${quote(name)}: its folder does not exist`);
    }
    return repo as Repo & { root: string };
  }

  /**
   * The filter, diff and merge drivers a repository's config defines.
   *
   * @param repo From {@linkcode Git.repo}.
   * @param signal Ends the run.
   * @returns The driver names.
   * @throws {PolicyError} When the repository's git data is outside its path or another user's.
   */
  async drivers(repo: Repo & { root: string }, signal?: AbortSignal): Promise<Drivers> {
    return await this.#findDrivers(repo, await this.#verify(repo, signal), signal);
  }

  /**
   * Resolves a caller's revision to the object id of the type a command
   * needs, with `rev-parse --verify`: only that id reaches the command, so
   * no revision is ever read as a path (git diff takes two words that name
   * files outside the work tree as a request to compare those files).
   *
   * @param repo From {@linkcode Git.repo}.
   * @param name The argument's name, for the message.
   * @param rev The revision, checked by `revision()`.
   * @param type The object type to peel to.
   * @param signal Ends the run.
   * @returns The object id (hex).
   * @throws {PolicyError} When it names no such object: the same words whatever `rev` is.
   */
  async resolve(
    repo: Repo & { root: string },
    name: string,
    rev: string,
    type: ObjectType,
    signal?: AbortSignal,
  ): Promise<string> {
    const { gitDir } = await this.#verify(repo, signal);
    const parts = [
      arg.word("rev-parse"),
      arg.flag("--verify"),
      arg.flag("--quiet"),
      arg.flag("--end-of-options"),
      arg.word(`${rev}^{${type}}`),
    ];
    const result = await this.#commands.run("git", [...globalArgs(repo.root, gitDir, []), ...parts], {
      cwd: repo.root,
      signal,
    });
    const id = result.stdout.trim();
    if (result.code === 1 && id === "") {
      throw new PolicyError(
        "not-found",
        `Cannot use ${name} ${quote(rev)}: it names no ${type} in repo ${quote(repo.name)}`,
      );
    }
    this.#check(repo, parts, result, [0]);
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id)) {
      throw new PolicyError("command", `Cannot use ${name} ${quote(rev)}: git did not answer with one object id`);
    }
    return id;
  }

  /**
   * Runs one git subcommand in a repository, with every driver its config
   * defines pinned off.
   *
   * @param repo From {@linkcode Git.repo}.
   * @param parts The subcommand and its arguments, typed.
   * @param options See {@linkcode GitRunOptions}.
   * @returns What it printed.
   * @throws {PolicyError} When the repository's git data is outside its path or another user's.
   * @throws {PolicyError} When the repository defines a driver name git cannot pin, or filters on a write.
   * @throws {PolicyError} With `checkIndex`, when the index is one git would expand past the limit, sparse, split or damaged.
   * @throws {PolicyError} When git fails or runs past its deadline (code `command`), even after its output was cut.
   */
  async run(
    repo: Repo & { root: string },
    parts: readonly CommandArg[],
    options: GitRunOptions = {},
  ): Promise<GitOutput> {
    const prepared = await this.#prepare(repo, options);
    return await this.#spawn(repo, parts, prepared.global, options);
  }

  /**
   * Runs a listing of the index with `checkIndex` (as {@linkcode Git.run}
   * does) and hands its output to `accept`, which throws to refuse it;
   * unless the index {@linkcode assertIndexShape} read in this call, with
   * the config read in this call, is the one the last accepted listing of
   * this repository was run for ({@linkcode IndexNamesCache}: same device,
   * inode, size, times and link count, and the same config bytes), when
   * neither git nor `accept` runs. Only an accepted listing is kept; a
   * refusal, a failure or an index changed in the last seconds is not.
   *
   * @param repo From {@linkcode Git.repo}.
   * @param parts The listing: its output must depend on the index and config alone.
   * @param options See {@linkcode GitRunOptions}; `checkIndex` is implied.
   * @param accept Checks what git listed; throws to refuse it.
   * @returns True when git ran, false when the kept verdict held.
   * @throws {PolicyError} As {@linkcode Git.run} does, and whatever `accept` throws.
   *
   * @example The index-names check
   * ```ts ignore
   * await git.runOncePerIndex(repo, listSuspectNames, { signal }, (listing) => assertNoSuspectName(listing));
   * ```
   */
  async runOncePerIndex(
    repo: Repo & { root: string },
    parts: readonly CommandArg[],
    options: GitRunOptions,
    accept: (output: GitOutput) => void,
  ): Promise<boolean> {
    const checking = { ...options, checkIndex: true };
    const { global, gitDir, config, index } = await this.#prepare(repo, checking);
    if (this.#cleanIndexes.clean(gitDir, index, config)) return false;
    accept(await this.#spawn(repo, parts, global, checking));
    this.#cleanIndexes.keep(gitDir, index, config);
    return true;
  }

  /** The checks before a run, and its global arguments; with `checkIndex`, what was read of the index. */
  async #prepare(
    repo: Repo & { root: string },
    options: GitRunOptions,
  ): Promise<{ global: CommandArg[]; gitDir: string; config: ConfigFiles; index: ReadIndex | undefined }> {
    const verified = await this.#verify(repo, options.signal);
    const gitDir = verified.gitDir;
    const drivers = options.drivers ?? await this.#findDrivers(repo, verified, options.signal);
    if (drivers.unpinnable.length > 0) {
      throw new PolicyError(
        "no-permission",
        `Cannot use repo ${quote(repo.name)}: its config names a driver this server cannot switch off`,
      );
    }
    if (options.refuseFilters && drivers.filters.length > 0) {
      throw new PolicyError(
        "no-permission",
        `Cannot commit to repo ${quote(repo.name)}: its config defines filter drivers (${
          drivers.filters.join(", ")
        }), ` +
          "which this server never runs, so the committed content would differ",
      );
    }
    if (options.refuseFilters) await assertNoHiddenConversions(repo.name, verified.commonDir);
    if (options.inPlaceWrites) await assertInPlaceWrites(repo.name, gitDir, verified.commonDir);
    const index = options.checkIndex
      ? await assertIndexShape(repo.name, join(gitDir, "index"), {
        maxBytes: this.#allocLimitBytes,
        hashSize: () => this.#hashSize(repo, gitDir, options.signal),
        signal: options.signal,
      })
      : undefined;
    const settings = [...driverOverrides(drivers), ...(options.config ?? [])];
    const global = globalArgs(repo.root, gitDir, settings, options.pathspecMagic);
    return { global, gitDir, config: verified.config, index };
  }

  /** Runs git with the global arguments `#prepare` made and checks how it ended. */
  async #spawn(
    repo: Repo & { root: string },
    parts: readonly CommandArg[],
    global: readonly CommandArg[],
    options: GitRunOptions,
  ): Promise<GitOutput> {
    this.#onRun?.(parts[0]?.kind === "word" ? parts[0].text : "git");
    const result = await this.#commands.run("git", [...global, ...parts], {
      cwd: repo.root,
      signal: options.signal,
    });
    // Only a git stopped at the cap (by SIGTERM, then SIGKILL, or ended by the pipe closed on it) is excused its
    // exit status: one that ended by itself before the stop still has to have succeeded.
    const stoppedAtCap = result.ended === "output-cap" && result.stdoutCut &&
      (["SIGTERM", "SIGKILL", "SIGPIPE"].includes(result.signal ?? "") || result.code === 141);
    if (!stoppedAtCap) this.#check(repo, parts, result, options.okCodes ?? [0]);
    const cut = result.stdoutCut;
    const marker = cut ? truncationMarker(this.#maxOutputBytes, undefined, "bytes") : undefined;
    return { text: result.stdout, stdout: result.stdout, cut, code: result.code, marker };
  }

  /** Checks the repository's git data and its owner; returns the git directory to name and the config as read. */
  async #verify(repo: Repo & { root: string }, signal?: AbortSignal): Promise<Verified> {
    // Every folder of the git data walked, each link and hard link in it checked: on every run, a commit's too.
    const layout = await gitLayout(repo.name, repo.root, repo.allowOutside, {
      allowHardLinks: this.#allowHardLinks,
      cache: this.#checked,
      signal,
    });
    // Before git reads the shallow, info/exclude and info/attributes files, whose lines it holds in tables.
    await assertLineFilesBounded(repo.name, layout.commonDir);
    // Before git's first read of the config (every run, this server's ownership check included).
    const config = await assertNoIncludes(repo.name, layout);
    const verified = { gitDir: layout.gitDir, commonDir: layout.commonDir, config };
    if (repo.trustOtherOwner) return verified;
    const uid = this.#uid ?? await this.#learnUid(repo, layout.gitDir, signal);
    const owned: [string, string][] = [
      ["work tree", repo.root],
      ["git directory", layout.gitDir],
      ["common directory", layout.commonDir],
      ...layout.objectStores.map((store): [string, string] => ["object store", store]),
    ];
    for (const [what, path] of owned) {
      const owner = (await Deno.stat(path).catch(() => undefined))?.uid ?? undefined;
      if (owner !== uid) throw otherOwner(repo.name, what, owner);
    }
    return verified;
  }

  /**
   * Lets git find the repository from its work tree, so that git's own
   * ownership check runs, and takes the work tree's owner as this process's
   * user when git accepts it for the git directory this server checked.
   */
  async #learnUid(repo: Repo & { root: string }, gitDir: string, signal?: AbortSignal): Promise<number> {
    const parts = [arg.word("rev-parse"), arg.flag("--absolute-git-dir")];
    const result = await this.#commands.run("git", [...discoveryArgs(), ...parts], { cwd: repo.root, signal });
    const owner = (await Deno.stat(repo.root).catch(() => undefined))?.uid ?? undefined;
    if (/dubious ownership/.test(result.stderr)) throw otherOwner(repo.name, "work tree or git directory", undefined);
    this.#check(repo, parts, result, [0]);
    const found = await Deno.realPath(result.stdout.trim()).catch(() => undefined);
    if (found !== gitDir || owner === undefined) {
      throw new PolicyError(
        "command",
        `Cannot use repo ${quote(repo.name)}: git does not find its git directory from its work tree`,
      );
    }
    this.#uid = owner;
    return owner;
  }

  /** The size of the repository's object ids, as git reads them: 20 bytes (SHA-1) or 32 (SHA-256). */
  async #hashSize(repo: Repo & { root: string }, gitDir: string, signal?: AbortSignal): Promise<number> {
    const parts = [arg.word("rev-parse"), arg.flag("--show-object-format")];
    const result = await this.#commands.run("git", [...globalArgs(repo.root, gitDir, []), ...parts], {
      cwd: repo.root,
      signal,
    });
    this.#check(repo, parts, result, [0]);
    const format = result.stdout.trim();
    if (format === "sha1") return 20;
    if (format === "sha256") return 32;
    throw new PolicyError(
      "command",
      `Cannot use repo ${quote(repo.name)}: git names an object format this server does not know`,
    );
  }

  /**
   * The drivers the repository's config defines: git is handed the config's
   * bytes as this call read them (`git config --file -`, each file in the
   * order git reads them) and asked again only when they change.
   */
  async #findDrivers(repo: Repo & { root: string }, verified: Verified, signal?: AbortSignal): Promise<Drivers> {
    const { gitDir, config } = verified;
    const known = this.#drivers.get(gitDir, config);
    if (known !== undefined) return known;
    let found = "";
    for (const file of [config.common, config.worktree]) {
      if (file === undefined) continue;
      const parts = [
        arg.word("config"),
        arg.flag("--file=-"),
        arg.flag("--null"),
        arg.flag("--get-regexp"),
        arg.word(DRIVER_KEYS),
      ];
      const result = await this.#commands.run("git", [...globalArgs(repo.root, gitDir, []), ...parts], {
        cwd: repo.root,
        signal,
        input: file.bytes,
      });
      // Exit 1: no such key. Anything else (a broken config) fails closed.
      if (result.code === 1 && result.signal === null && result.stdout === "") continue;
      this.#check(repo, parts, result, [0]);
      if (result.stdoutCut) {
        throw new PolicyError("command", `Cannot use repo ${quote(repo.name)}: its config is too large`);
      }
      found += result.stdout;
    }
    return this.#drivers.set(gitDir, config, parseDrivers(found));
  }

  /**
   * Throws when a run failed. git's own words never reach the caller (git
   * quotes files it reads inside `.git`): a failure the server knows is said
   * in its words, any other is "git failed (ref …)", with git's words on
   * stderr under that ref, one line.
   */
  #check(
    repo: Repo & { root: string },
    parts: readonly CommandArg[],
    result: CommandResult,
    ok: readonly number[],
  ): void {
    const subcommand = parts[0]?.kind === "word" ? parts[0].text : "git";
    const what = `Cannot run git ${subcommand} in repo ${quote(repo.name)}`;
    if (result.ended === "deadline") {
      throw new PolicyError("command", `${what}: it ran past its deadline and was stopped`);
    }
    if (result.ended === "aborted") throw new PolicyError("command", `${what}: the call was cancelled`);
    if (result.signal === null && ok.includes(result.code)) return;
    const known = result.signal === null ? knownFailure(result, parts) : undefined;
    if (known !== undefined) throw new PolicyError("command", `${what}: ${known}`);
    const ref = `${Date.now().toString(36)}-${(++failures).toString(36)}`;
    const ended = result.signal === null ? `exit ${result.code}` : `signal ${result.signal}`;
    const words = result.stderr.trim().slice(0, MAX_LOGGED_STDERR) || "(nothing on stderr)";
    console.error(`git: ref ${ref}: git ${subcommand} in repo ${quote(repo.name)} failed (${ended}): ${words}`);
    throw new PolicyError("command", `${what}: git failed (ref ${ref})`);
  }
}

/** What {@linkcode Git}'s checks before a run found. */
interface Verified {
  /** The git directory to name. */
  readonly gitDir: string;
  /** The common directory (objects, refs, most reflogs). */
  readonly commonDir: string;
  /** The repository's config files, as read. */
  readonly config: ConfigFiles;
}

function otherOwner(name: string, what: string, uid: number | undefined): PolicyError {
  const who = uid === undefined ? "another user" : `another user (uid ${uid})`;
  return new PolicyError(
    "no-permission",
    `Cannot use repo ${quote(name)}: its ${what} belongs to ${who}; set trust_other_owner to serve it`,
  );
}
