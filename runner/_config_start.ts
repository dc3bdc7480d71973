// What runWithConfig() loads when it starts, as one import: one entry of a
// bundle (`deno task bundle`), whose modules load as a few chunks rather than
// as the chunks of six entries (./_start.ts says why that matters).

export { fromSchema } from "../configreload/from_schema.ts";
export { Loader } from "../configreload/loader.ts";
export { resolveConfigPath } from "../configreload/resolve_config_path.ts";
export { auditTrail } from "../middleware/audit_trail.ts";
export { hostConfigRequested, printHostConfig } from "./_host_config.ts";
export { withOwnFiles } from "./_own_files.ts";
