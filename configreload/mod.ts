/**
 * A server's config: where it comes from, `${VAR}` expansion that fails
 * closed, validation with the author's schema, and a loader that reloads on
 * each call when the file's SHA-256 changes and never uses a version that did
 * not validate.
 *
 * The pattern: resolve the path once at start, build one {@linkcode Loader},
 * and call `get()` at the start of each tool call.
 *
 * - {@linkcode resolveConfigPath}: the tenant's `$FORGE_TENANT_CONFIG/<server>.json`
 *   when it exists, else the static `-config FILE`, else none (defaults that
 *   allow nothing).
 * - {@linkcode expand}: `${VAR}` per string value, with provenance.
 * - {@linkcode fromSchema}: a parser from a zod schema; refuses fields that
 *   used a missing or empty variable, and literal secrets.
 * - {@linkcode Loader}: JSONC files, sha256-keyed reload, last good config kept.
 * - {@linkcode configVariables}: the variable names to grant with `--allow-env`.
 *
 * @example Resolve, load, and read the config on each call
 * ```ts
 * import { fromSchema, Loader, resolveConfigPath } from "@forge/toolkit/configreload";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * // Every allow-list defaults to empty: no file means nothing is allowed.
 * const schema = z.strictObject({ roots: z.array(z.string()).default([]) });
 *
 * // At start (here with no flag and no tenant directory):
 * const { path, source } = resolveConfigPath("files", { args: [], env: new Map() });
 * const loader = new Loader(path, fromSchema(schema), { optional: source === "tenant", name: "files" });
 * assert.equal(source, "none");
 *
 * // In each tool handler:
 * const config = await loader.get();
 * assert.deepEqual(config.roots, []);
 * ```
 *
 * @module
 */
export { ConfigError, type ConfigErrorOptions, type ConfigIssue } from "./config_error.ts";
export { configVariables } from "./config_variables.ts";
export {
  type EnvReader,
  expand,
  type ExpandedField,
  type ExpandOptions,
  type Expansion,
  type FieldPath,
  type VariableState,
  type VariableUse,
} from "./expand.ts";
export {
  type ConfigParser,
  type ConfigSchema,
  fromSchema,
  type FromSchemaOptions,
  type SchemaIssue,
  type SchemaResult,
} from "./from_schema.ts";
export { Loader, type LoaderOptions } from "./loader.ts";
export { type ConfigPath, resolveConfigPath, type ResolveConfigPathOptions } from "./resolve_config_path.ts";
export { TENANT_CONFIG_VARIABLE } from "../internal/tenant_variable.ts";
