// The config of the files server. Every allow-list defaults to empty: with no
// file (or an empty one) the server may read and write nothing.
import { definePolicy } from "@forge/toolkit/validate";
import { z } from "zod";

/**
 * The largest `max_bytes` a config may set: one read or write, in bytes.
 * A read's reply must fit in one message (the toolkit's default
 * `maxMessageBytes`, 64 MiB), and JSON writes a control character as six
 * bytes (`\u0001`): 10 MiB of them is a 60 MiB reply. At 16 MiB a file of
 * control characters was a 96 MiB reply, refused as too large instead of
 * shown cut.
 */
export const MAX_BYTES_CEILING = 10 * 1024 * 1024;

const folder = z.string().min(1, "must be a non-empty path");

/** The validated shape of `files.json` (JSONC). Relative paths start at the config file's folder. */
export const ConfigSchema = z.strictObject({
  /** Folders whose contents the tools may read. The first is where relative paths start. */
  roots: z.array(folder).default([]),
  /** Folders whose contents `write_file` may replace or create (and the tools may read). */
  writable_roots: z.array(folder).default([]),
  /** Globs over root-relative paths that are refused even inside a root, on top of the defaults. */
  deny: z.array(z.string().min(1, "must be a non-empty glob")).default([]),
  /** The most bytes one read returns (longer files are cut, marked) and one write accepts. */
  max_bytes: z.number().int().min(1).max(MAX_BYTES_CEILING).default(1024 * 1024),
  /**
   * Whether regular files with more than one name (hard links) are read and described. Off, they are
   * refused: another name of the same file may lie outside every root, and no path check can see it.
   */
  allow_hard_links: z.boolean().default(false),
  /**
   * A symbolic link to `/proc/self/fd` the operator made (`ln -s /proc/self/fd <folder>/fd`), in a folder no
   * other user can write. With it (Linux only) every file is reached through descriptors of its folders, so a
   * racing process that swaps a folder for a link cannot redirect a call. Without it the server says so at start.
   */
  fd_anchor: folder.optional(),
  /** Refuse to start without a working `fd_anchor` (instead of saying on stderr that file access is not race-free); off by default. */
  require_fd_anchor: z.boolean().optional(),
  /** An append-only file for the audit trail of writes; stderr when absent. */
  audit_file: folder.optional(),
}).superRefine((config, ctx) => {
  // The same checks the policy makes (commas and NUL bytes in paths, bad globs),
  // so a config that could not become a policy is refused at load, not mid-call.
  try {
    definePolicy({
      readRoots: config.roots,
      writeRoots: config.writable_roots,
      deny: config.deny,
      writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
      baseDir: "/",
    });
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

/** The files server's config, as validated. */
export type Config = z.infer<typeof ConfigSchema>;
