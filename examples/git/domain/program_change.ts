// What a reloaded config may not change: the programs, which the command
// policy and Deno's --allow-run were fixed to at start.
import { quote } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

const PROGRAMS = ["git", "kill", "setsid"] as const;

/**
 * Why a reloaded config may not be used: it changes `git`, `kill` or
 * `setsid` from the config at start. The process may run only the programs
 * it was started with, so a new one fails every call, and swapping two of
 * them (`git` and `kill`) would run one in the other's place.
 *
 * @param first The config at start.
 * @param next A reloaded config.
 * @returns The reason, to follow "Cannot reload config: ", or undefined when `next` may be used.
 *
 * @example A version that names another git is refused
 * ```ts
 * import { programChange } from "./program_change.ts";
 * import { ConfigSchema } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const first = ConfigSchema.parse({});
 * assert.equal(programChange(first, { ...first, timeout_ms: 500 }), undefined);
 * assert.equal(
 *   programChange(first, { ...first, git: "/usr/bin/env" }),
 *   'it changes git from "/usr/bin/git" to "/usr/bin/env", which needs a restart',
 * );
 * ```
 */
export function programChange(first: Config, next: Config): string | undefined {
  const changed = PROGRAMS.find((name) => first[name] !== next[name]);
  if (changed === undefined) return undefined;
  return `it changes ${changed} from ${quote(first[changed], 256)} to ${
    quote(next[changed], 256)
  }, which needs a restart`;
}
