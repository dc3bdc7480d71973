import { isAbsolute, resolve } from "node:path";
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
import { DRIVER_KEYS, driverOverrides, type Drivers, GIT_ENV, globalArgs, parseDrivers } from "./hardening.ts";

/** A configured repository, resolved. */
export interface Repo {
  /** Its name in the config. */
  readonly name: string;
  /** The work tree's real path, or undefined when it could not be opened. */
  readonly root: string | undefined;
  /** Whether `git_commit` may commit here. */
  readonly writable: boolean;
  /** Whether git may serve it when another user owns it (`safe.directory`). */
  readonly trustOtherOwner: boolean;
}

/** What one git subcommand printed. */
export interface GitOutput {
  /** stdout, cut at the cap and then ending with a `[truncated: …]` line. */
  readonly text: string;
  /** Whether the output was cut. */
  readonly cut: boolean;
  /** The exit code. */
  readonly code: number;
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
   * Refuse when the repository defines filter drivers (for writes, whose
   * content a skipped filter would change).
   * @default {false}
   */
  refuseFilters?: boolean;
}

/**
 * Runs git for the configured repositories through a {@linkcode CommandPolicy}:
 * git by absolute path, an empty inherited environment plus {@linkcode GIT_ENV},
 * every configuration-driven program pinned off, the deadline and output cap
 * of the config.
 */
export class Git {
  readonly #commands: CommandPolicy;
  readonly #repos: ReadonlyMap<string, Repo>;
  readonly #maxOutputBytes: number;

  private constructor(commands: CommandPolicy, repos: ReadonlyMap<string, Repo>, maxOutputBytes: number) {
    this.#commands = commands;
    this.#repos = repos;
    this.#maxOutputBytes = maxOutputBytes;
  }

  /**
   * Resolves the repositories of a config (a missing one is kept, and
   * refused when used) and fixes the command policy.
   *
   * @param config The validated config.
   * @param baseDir Where relative paths in the config start.
   * @returns The runner.
   */
  static async open(config: Config, baseDir: string): Promise<Git> {
    const repos = new Map<string, Repo>();
    const roots: string[] = [];
    for (const repo of config.repos) {
      const root = await Deno.realPath(isAbsolute(repo.path) ? repo.path : resolve(baseDir, repo.path))
        .catch(() => undefined);
      if (root !== undefined) roots.push(root);
      repos.set(repo.name, {
        name: repo.name,
        root,
        writable: repo.writable,
        trustOtherOwner: repo.trust_other_owner,
      });
    }
    const commands = await CommandPolicy.create({
      programs: { git: config.git },
      killer: config.kill,
      roots,
      env: GIT_ENV,
      timeoutMs: config.timeout_ms,
      maxOutputBytes: config.max_output_bytes,
    });
    return new Git(commands, repos, config.max_output_bytes);
  }

  /**
   * The repository a caller named.
   *
   * @param name The `repo` argument.
   * @returns The repository.
   * @throws {PolicyError} When no configured repository has that name, or its folder is missing.
   */
  repo(name: string): Repo & { readonly root: string } {
    const repo = typeof name === "string" ? this.#repos.get(name) : undefined;
    if (repo === undefined) {
      throw new PolicyError("outside-roots", `Cannot use repo ${quote(name)}: it is not a configured repository`);
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
   */
  async drivers(repo: Repo & { root: string }, signal?: AbortSignal): Promise<Drivers> {
    const parts = [arg.word("config"), arg.flag("--null"), arg.flag("--get-regexp"), arg.word(DRIVER_KEYS)];
    const result = await this.#commands.run("git", [...globalArgs(repo.root, this.#base(repo)), ...parts], {
      cwd: repo.root,
      signal,
    });
    // Exit 1: no such key. Anything else (a broken config) fails closed.
    if (result.code === 1 && result.stdout === "") return parseDrivers("");
    this.#check(repo, "config", result, [0]);
    if (result.stdoutCut) {
      throw new PolicyError("command", `Cannot use repo ${quote(repo.name)}: its config is too large`);
    }
    return parseDrivers(result.stdout);
  }

  /**
   * Runs one git subcommand in a repository, with every driver its config
   * defines pinned off.
   *
   * @param repo From {@linkcode Git.repo}.
   * @param parts The subcommand and its arguments, typed.
   * @param options See {@linkcode GitRunOptions}.
   * @returns What it printed.
   * @throws {PolicyError} When the repository defines a driver name git cannot pin, or filters on a write.
   * @throws {PolicyError} When git fails or runs past its deadline (code `command`).
   */
  async run(
    repo: Repo & { root: string },
    parts: readonly CommandArg[],
    options: GitRunOptions = {},
  ): Promise<GitOutput> {
    const drivers = await this.drivers(repo, options.signal);
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
    const settings = [...this.#base(repo), ...driverOverrides(drivers), ...(options.config ?? [])];
    const result = await this.#commands.run("git", [...globalArgs(repo.root, settings), ...parts], {
      cwd: repo.root,
      signal: options.signal,
    });
    const subcommand = parts[0]?.kind === "word" ? parts[0].text : "git";
    if (result.ended !== "output-cap") this.#check(repo, subcommand, result, options.okCodes ?? [0]);
    const cut = result.stdoutCut;
    const text = cut
      ? `${result.stdout}\n${truncationMarker(this.#maxOutputBytes, undefined, "bytes")}`
      : result.stdout;
    return { text, cut, code: result.code };
  }

  #base(repo: Repo & { root: string }): string[] {
    return repo.trustOtherOwner ? [`safe.directory=${repo.root}`] : [];
  }

  #check(repo: Repo & { root: string }, subcommand: string, result: CommandResult, ok: readonly number[]): void {
    const what = `Cannot run git ${subcommand} in repo ${quote(repo.name)}`;
    if (result.ended === "deadline") {
      throw new PolicyError("command", `${what}: it ran past its deadline and was stopped`);
    }
    if (result.ended === "aborted") throw new PolicyError("command", `${what}: the call was cancelled`);
    if (result.signal !== null || !ok.includes(result.code)) {
      // git's own message, with the host path of the work tree replaced by the repo's name.
      const reason = result.stderr.replaceAll(repo.root, `<${repo.name}>`).trim().split("\n").slice(0, 5).join("; ");
      throw new PolicyError("command", `${what}: ${reason.slice(0, 500) || `exit ${result.code}`}`);
    }
  }
}
