// The config schema. Every allow-list defaults to nothing: without a config
// file the server may touch no note and no folder.
import { z } from "zod";

/** A folder's name in `folders`: what a tool asks the Manager for. */
export const FOLDER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** The server's config, as validated. */
export const ConfigSchema = z.strictObject({
  /** The one directory the notes live in (absolute, or relative to the config file). */
  notes_dir: z.string().min(1).optional(),
  /**
   * More folders, by name: each is a root of its own, which a tool opens with
   * `mgr.folder(name)` (read-only unless `writable`).
   */
  folders: z.record(
    z.string().regex(FOLDER_NAME, "a folder's name is 1-32 of a-z, 0-9, '_' or '-', starting with a letter"),
    z.strictObject({ path: z.string().min(1), writable: z.boolean().default(false) }),
  ).refine((folders) => !Object.hasOwn(folders, "notes"), '"notes" names the notes directory; choose another name')
    .default({}),
  /** The largest note or file read or written, in bytes. */
  max_bytes: z.number().int().min(1).max(16 * 1024 * 1024).default(64 * 1024),
  /** An append-only audit file for writes; stderr when absent. */
  audit_file: z.string().min(1).optional(),
});

/** The validated config. */
export type Config = z.infer<typeof ConfigSchema>;
