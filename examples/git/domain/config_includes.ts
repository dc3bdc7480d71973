// A repository's config can include other files (`[include] path = …`,
// `[includeIf "…"] path = …`), from anywhere the server's user can read. git
// reads them in every run, before any option of ours applies (`git config
// --no-includes` too), and quotes what it cannot parse in its error: a line of
// the included file would reach the caller. So the config files are read here,
// never by git, and a repository whose config includes anything is refused.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";
import type { GitLayout } from "./git_layout.ts";

/** The largest config file read; git reads larger ones, this server refuses them. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** One config file git reads for a repository, as this server read it. */
export interface ConfigFile {
  /** Its bytes. */
  readonly bytes: Uint8Array;
  /** The same bytes, one character each (windows-1252, which tells every byte apart): what two readings compare. */
  readonly text: string;
}

/** The config files git reads for a repository, as {@linkcode assertNoIncludes} read them. */
export interface ConfigFiles {
  /** `config` in the common directory, or undefined when there is none. */
  readonly common: ConfigFile | undefined;
  /** `config.worktree` in the git directory, or undefined when there is none. */
  readonly worktree: ConfigFile | undefined;
}

const bytewise = new TextDecoder("windows-1252");

/**
 * Refuses a repository whose config (`config` in the common directory,
 * `config.worktree` in the git directory) has an include section. git writes
 * a section name right after `[` in any case (`[Include]`, `[includeIf …]`),
 * so any `[` followed by `include` is refused, even inside a value: a few
 * configs are refused that git would read as no include, none is let through
 * that git would read as one.
 *
 * The files are read as bytes and returned, so that what is asked of git
 * about them (the drivers they define) is asked of exactly these bytes.
 *
 * @param name The repository's configured name, for messages.
 * @param layout Its folders, from `gitLayout` (links inside them already refused).
 * @returns The config files as read.
 * @throws {PolicyError} When a config file includes others, is too large or cannot be read (code `no-permission`).
 *
 * @example Check a repository before running git in it
 * ```ts ignore
 * const files = await assertNoIncludes("app", await gitLayout("app", "/srv/app"));
 * ```
 */
export async function assertNoIncludes(name: string, layout: GitLayout): Promise<ConfigFiles> {
  const refuse = (why: string) => new PolicyError("no-permission", `Cannot use repo ${quote(name)}: its config ${why}`);
  const read = async (file: string): Promise<ConfigFile | undefined> => {
    const info = await Deno.stat(file).catch(() => undefined);
    if (info === undefined) return undefined;
    if (!info.isFile || info.size > MAX_CONFIG_BYTES) throw refuse("is not a file of at most 1 MiB");
    const bytes = await Deno.readFile(file).catch(() => {
      throw refuse("cannot be read");
    });
    // It may have grown between the stat and the read.
    if (bytes.length > MAX_CONFIG_BYTES) throw refuse("is not a file of at most 1 MiB");
    const text = bytewise.decode(bytes);
    // git's whitespace is ASCII's, which a bytewise reading keeps where it is.
    if (/\[\s*include/i.test(text)) {
      throw refuse("includes other files (include.path or includeIf), which git would read from anywhere");
    }
    return { bytes, text };
  };
  return {
    common: await read(join(layout.commonDir, "config")),
    worktree: await read(join(layout.gitDir, "config.worktree")),
  };
}
