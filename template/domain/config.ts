// The config schema. Every allow-list defaults to nothing: without a config
// file the server may touch no note.
import { z } from "zod";

/** The server's config, as validated. */
export const ConfigSchema = z.strictObject({
  /** The one directory the notes live in (absolute, or relative to the config file). */
  notes_dir: z.string().min(1).optional(),
  /** The largest note read or written, in bytes. */
  max_bytes: z.number().int().min(1).max(16 * 1024 * 1024).default(64 * 1024),
  /** An append-only audit file for writes; stderr when absent. */
  audit_file: z.string().min(1).optional(),
});

/** The validated config. */
export type Config = z.infer<typeof ConfigSchema>;
