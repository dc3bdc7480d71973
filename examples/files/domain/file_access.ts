// What the server says, or refuses, at start about how it reaches files:
// through the descriptor anchor (race-free), or by path (not race-free).
import { PathJail } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { fdAnchorOf, policyFor } from "./policy.ts";

/**
 * Checks the config's `fd_anchor` before the server serves: a wrong anchor,
 * or a missing one under `require_fd_anchor`, refuses the start. Returns the
 * notes the server prints once on stderr: file access is not race-free
 * without an anchor, or the anchor's folder could not be checked.
 *
 * @param config The config at start.
 * @param configPath The config file: a relative `fd_anchor` starts at its folder.
 * @returns The notes, one line each.
 * @throws {Error} When the anchor is wrong, or required and absent.
 */
export function checkFileAccess(config: Config, configPath: string | undefined): string[] {
  const anchor = fdAnchorOf(config, configPath);
  if (anchor === undefined) {
    const why = "no fd_anchor is configured";
    if (config.require_fd_anchor) throw new Error(`Cannot start: require_fd_anchor is set and ${why}`);
    return [
      `file access is not race-free: ${why}, so a local process that can write inside a root can, with luck, ` +
      'redirect a call by swapping a folder for a link; on Linux run "ln -s /proc/self/fd <private folder>/fd", set ' +
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
