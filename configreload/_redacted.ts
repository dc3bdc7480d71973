// The ConfigErrors whose issues were redacted where they were made (by
// fromSchema()), so the Loader does not redact them again: a second pass would
// redact text that was never derived from the environment (the keys of the
// file an unknown-key issue names), and what a redactor does to such text
// tells whoever wrote it something about the environment's values.
import type { ConfigError } from "./config_error.ts";

/** ConfigErrors already redacted where they were made. */
export const REDACTED: WeakSet<ConfigError> = new WeakSet();
