// The config of the git server. Every allow-list defaults to empty: with no
// file (or an empty one) the server serves no repository.
import { definePolicy } from "@forge/toolkit/validate";
import { z } from "zod";
import { hasControl } from "./_has_control.ts";

/**
 * The largest `max_output_bytes` a config may set, per stream of one git run.
 * A tool's reply must fit in one message (the toolkit's default
 * `maxMessageBytes`, 64 MiB), and JSON writes a control character as six
 * bytes (`\u0001`): 10 MiB of them is a 60 MiB reply. At 16 MiB a blob of
 * control characters shown whole was a 96 MiB reply, refused as too large
 * instead of shown cut.
 */
export const MAX_OUTPUT_CEILING = 10 * 1024 * 1024;

const path = z.string().min(1, "must be a non-empty path");
// One line of plain text: git writes it into commit headers.
const identity = z.string().min(1).max(200).refine(
  (text) => !hasControl(text) && !/[<>]/.test(text),
  "must be one line without < or >",
);

/** One repository the tools may use. */
export const RepoSchema = z.strictObject({
  /** The name tools take as `repo` (letters, digits, `.`, `_`, `-`). */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "must be 1-64 of A-Z a-z 0-9 . _ - (not first)"),
  /** The work tree (the folder that holds `.git`), absolute or relative to the config file. */
  path,
  /** Whether `git_commit` may commit here. */
  writable: z.boolean().default(false),
  /**
   * Whether to serve the repository when another user owns its work tree,
   * git directory or object stores. Off: such a repository is refused (git's
   * `safe.directory` rule, which git itself skips once `--git-dir` is named).
   */
  trust_other_owner: z.boolean().default(false),
  /**
   * Folders outside `path` where its git directory, common directory or
   * object stores may be (a linked worktree's repository, a shared
   * alternates store). Empty: all of them must be inside `path`.
   */
  allow_outside: z.array(path).max(16).default([]),
});

/** The validated shape of `git.json` (JSONC). Relative paths start at the config file's folder. */
export const ConfigSchema = z.strictObject({
  /** The repositories; a `repo` argument must name one of them. */
  repos: z.array(RepoSchema).default([]),
  /** The git program, as an absolute path (PATH is never searched). */
  git: path.default("/usr/bin/git"),
  /** The program that kills a timed-out git's process group. */
  kill: path.default("/usr/bin/kill"),
  /**
   * The program that starts each git run in a process group of its own
   * without a fork of the server (about half the server's CPU per call); a
   * system without it falls back to the fork. It can start any program, as
   * git itself can, so it widens `--allow-run` no further. Its name must be
   * `setsid`: `/bin/true` there would answer every call with nothing.
   */
  setsid: path.refine(
    (value) => value.split("/").at(-1) === "setsid",
    "must be the path of a setsid program (named setsid): another program in its place would run instead of git",
  ).default("/usr/bin/setsid"),
  /** Deadline of one git run, in milliseconds (a tool's own deadline may end it sooner). */
  timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  /**
   * The most git may allocate at once, in MiB (`GIT_ALLOC_LIMIT`): what git would read whole past it (a commit
   * message, a tree, a file stored as a delta) fails the run in the server's words. Under 64, a diff of a 1 MiB
   * file of short lines (a 32 MiB table) fails too. Also the most git may hold of the index (its entries, names
   * expanded): a repository whose index would take more is refused by the tools that read it.
   */
  alloc_limit_mib: z.number().int().min(1).max(4096).default(64),
  /** Most bytes kept of one git run's output; longer output is cut and says so. */
  max_output_bytes: z.number().int().min(1024).max(MAX_OUTPUT_CEILING).default(1024 * 1024),
  /** Author and committer of `git_commit`. */
  author: z.strictObject({ name: identity, email: identity }).default({
    name: "forge-git",
    email: "forge-git@localhost",
  }),
  /**
   * Whether files with more than one name (hard links) are read: off, a
   * diff, grep, blame or commit that would read such a work-tree file is
   * refused, and so is a repository whose git data holds one (a clone from a
   * local path shares its objects so), because its other name may be a file
   * outside every repository.
   */
  allow_hard_links: z.boolean().default(false),
  /** An append-only file for the audit trail of commits; stderr when absent. */
  audit_file: path.optional(),
}).superRefine((config, ctx) => {
  const names = new Set<string>();
  for (const repo of config.repos) {
    if (names.has(repo.name)) ctx.addIssue({ code: "custom", message: `repo name "${repo.name}" is used twice` });
    names.add(repo.name);
  }
  try {
    definePolicy({
      readRoots: config.repos.flatMap((r) => [r.path, ...r.allow_outside]),
      run: [config.git, config.kill, config.setsid],
      writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
      baseDir: "/",
    });
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

/** The git server's config, as validated. */
export type Config = z.infer<typeof ConfigSchema>;

/** One configured repository, as validated. */
export type RepoConfig = z.infer<typeof RepoSchema>;
