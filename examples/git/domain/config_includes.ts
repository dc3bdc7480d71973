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

/**
 * Refuses a repository whose config (`config` in the common directory,
 * `config.worktree` in the git directory) has an include section. git writes
 * a section name right after `[` in any case (`[Include]`, `[includeIf …]`),
 * so any `[` followed by `include` is refused, even inside a value: a few
 * configs are refused that git would read as no include, none is let through
 * that git would read as one.
 *
 * @param name The repository's configured name, for messages.
 * @param layout Its folders, from `gitLayout` (links inside them already refused).
 * @throws {PolicyError} When a config file includes others, is too large or cannot be read (code `no-permission`).
 *
 * @example Check a repository before running git in it
 * ```ts ignore
 * await assertNoIncludes("app", await gitLayout("app", "/srv/app"));
 * ```
 */
export async function assertNoIncludes(name: string, layout: GitLayout): Promise<void> {
  for (const file of [join(layout.commonDir, "config"), join(layout.gitDir, "config.worktree")]) {
    const info = await Deno.stat(file).catch(() => undefined);
    if (info === undefined) continue;
    const refuse = (why: string) =>
      new PolicyError("no-permission", `Cannot use repo ${quote(name)}: its config ${why}`);
    if (!info.isFile || info.size > MAX_CONFIG_BYTES) throw refuse("is not a file of at most 1 MiB");
    const text = await Deno.readTextFile(file).catch(() => {
      throw refuse("cannot be read");
    });
    if (/\[\s*include/i.test(text)) {
      throw refuse("includes other files (include.path or includeIf), which git would read from anywhere");
    }
  }
}
