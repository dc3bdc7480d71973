// What the server says, or refuses, at start about how it reaches files:
// through the descriptor anchor (race-free), or by path (not race-free).
import { PathJail, quote } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { fdAnchorOf, policyFor } from "./policy.ts";

/**
 * The descriptor anchor the jail uses: the configured `fd_anchor` on Linux,
 * none elsewhere (there is no /proc/self/fd; {@linkcode checkFileAccess} says so at start).
 *
 * @param config The current config.
 * @param configPath The config file: a relative `fd_anchor` starts at its folder.
 * @param os The platform.
 * @returns The absolute path of the anchor, or undefined.
 */
export function anchorInUse(
  config: Config,
  configPath: string | undefined,
  os: typeof Deno.build.os = Deno.build.os,
): string | undefined {
  return os === "linux" ? fdAnchorOf(config, configPath) : undefined;
}

/**
 * Checks the config's `fd_anchor` before the server serves: a wrong anchor,
 * or a missing one under `require_fd_anchor`, refuses the start. Returns the
 * notes the server prints once on stderr: file access is not race-free
 * without an anchor (or off Linux, where one cannot work), or the anchor's
 * folder could not be checked.
 *
 * @param config The config at start.
 * @param configPath The config file: a relative `fd_anchor` starts at its folder.
 * @param os The platform.
 * @returns The notes, one line each.
 * @throws {Error} When the anchor is wrong, or required and unusable.
 */
export function checkFileAccess(
  config: Config,
  configPath: string | undefined,
  os: typeof Deno.build.os = Deno.build.os,
): string[] {
  const anchor = anchorInUse(config, configPath, os);
  if (anchor === undefined) {
    const why = config.fd_anchor === undefined
      ? "no fd_anchor is configured"
      : `fd_anchor needs Linux's /proc/self/fd, and this is ${os}`;
    if (config.require_fd_anchor) throw new Error(`Cannot start: require_fd_anchor is set and ${why}`);
    return [
      `file access is not race-free: ${why}, so a local process that can write inside a root can, with luck, ` +
      "redirect a call by swapping a folder for a link: a read then returns a file outside the roots, and a write " +
      'puts its file outside and says it was written; on Linux run "ln -s /proc/self/fd <private folder>/fd", set ' +
      '"fd_anchor" to that link and grant it (--print-permissions shows how)',
    ];
  }
  const jail = new PathJail(policyFor(config, configPath), { descriptorAnchor: anchor });
  const { folderChecked } = jail.checkDescriptorAnchor();
  if (folderChecked) return [];
  return [
    `the folder of fd_anchor could not be checked (this process may not stat it): make sure no other user can ` +
    "write it, or they could replace the link",
  ];
}

/**
 * Why a reloaded config may not be used: it changes `fd_anchor` (as
 * resolved) or `require_fd_anchor` from the config at start. Both are fixed
 * at start, where {@linkcode checkFileAccess} checked them: a version without
 * the anchor would serve by path (not race-free) without a word, and a new
 * anchor was never checked.
 *
 * @param first The config at start.
 * @param next A reloaded config.
 * @param configPath The config file: a relative `fd_anchor` starts at its folder.
 * @returns The reason, to follow "Cannot reload config: ", or undefined when `next` may be used.
 *
 * @example A version that drops the anchor is refused
 * ```ts
 * import { anchorChange } from "./file_access.ts";
 * import { ConfigSchema } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const first = ConfigSchema.parse({ roots: ["/srv"], fd_anchor: "/etc/forge/anchor/fd" });
 * assert.equal(anchorChange(first, { ...first, max_bytes: 10 }, "/etc/forge/files.json"), undefined);
 * assert.match(anchorChange(first, { ...first, fd_anchor: undefined }, "/etc/forge/files.json")!, /needs a restart/);
 * ```
 */
export function anchorChange(first: Config, next: Config, configPath: string | undefined): string | undefined {
  const [was, now] = [fdAnchorOf(first, configPath), fdAnchorOf(next, configPath)];
  if (was !== now) {
    const shown = (anchor: string | undefined) => anchor === undefined ? "none" : quote(anchor, 256);
    return `it changes fd_anchor from ${shown(was)} to ${shown(now)}, which needs a restart`;
  }
  const [required, requires] = [first.require_fd_anchor === true, next.require_fd_anchor === true];
  if (required === requires) return undefined;
  return `it changes require_fd_anchor from ${required} to ${requires}, which needs a restart`;
}
