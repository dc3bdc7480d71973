// Read by the config resolver, granted by every policy and named in the
// printed flags and host entries: one spelling, so the three cannot drift.

/**
 * The environment variable that names a tenant's config directory: a server
 * named `files` reads `$FORGE_TENANT_CONFIG/files.json` when it exists.
 *
 * @example Grant it
 * ```ts
 * import { TENANT_CONFIG_VARIABLE } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * assert.equal(`--allow-env=${TENANT_CONFIG_VARIABLE}`, "--allow-env=FORGE_TENANT_CONFIG");
 * ```
 */
export const TENANT_CONFIG_VARIABLE = "FORGE_TENANT_CONFIG";
