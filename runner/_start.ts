// What run() loads when it starts, as one import: the serving half and the
// start-up check. One import is one entry of a bundle (`deno task bundle`),
// so its modules load as a few chunks rather than as the chunks of three
// entries, each a file Deno reads, looks up in its code cache and compiles.

export {
  callsSettled,
  DEFAULT_SHUTDOWN_GRACE_MS,
  FLUSH_MS,
  LAST_LOG_MS,
  serve,
  shutdownStartedAt,
} from "../stdio/serve_core.ts";
export { processStdio } from "../stdio/process_stdio.ts";
export {
  enforceLeastPrivilege,
  EXCESS_PERMISSIONS_EXIT_CODE,
  PRINT_PERMISSIONS_FLAG,
} from "../permissions/least_privilege.ts";
export { formatPermissionFlags } from "../permissions/permission_flags.ts";
