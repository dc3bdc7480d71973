// The servers the benchmark drives, each with the least Deno flags it needs.
// None of them needs a permission: the SDK runs from Deno's npm cache, which
// Deno reads for itself, and stdio needs no grant.
import { RUNTIME_FLAGS } from "../permissions/runtime_flags.ts";

/** One server under test. */
export interface ServerSpec {
  /** The name used by `--only` and in the JSON. */
  name: string;
  /** The column header. */
  label: string;
  /** The entry file, relative to the repository root. */
  file: string;
  /** Deno permission flags it runs with. */
  permissions: string[];
  /**
   * Deno runtime flags before them: the toolkit's servers run with
   * `RUNTIME_FLAGS`, as every launch line the toolkit writes starts them
   * (`deno task start`, `--print-host-config`, compile, bundle); the others
   * with Deno's defaults.
   */
  runtime?: readonly string[];
  /** Whether it answers `--health` (the toolkit's and the floor's do; the SDK has no such flag). */
  health: boolean;
  /**
   * The largest line it reads; a larger request gets no reply at all. The
   * SDK's `StdioServerTransport` drops anything over its 10 MiB read buffer
   * and closes, so "no answer" there is the finding, not a benchmark fault.
   */
  readsUpTo?: number;
  /** Exit code meaning "this build cannot run this server" (reported as unavailable, not as a failure). */
  unavailableCode?: number;
  /** Whether it serves the 2026-07-28 era (a per-request `_meta` envelope, no `initialize`); only these get its rows. */
  modern?: boolean;
}

const SDK_READ_BUFFER = 10 * 1024 * 1024;

/** Every server, in table order. The baseline of every ratio is `sdk-lowlevel`. */
export const SERVERS: readonly ServerSpec[] = [
  {
    name: "toolkit",
    label: "toolkit run()",
    file: "bench/servers/toolkit_server.ts",
    permissions: [],
    runtime: RUNTIME_FLAGS,
    health: true,
    modern: true,
  },
  {
    name: "sdk-lowlevel",
    label: "SDK Server",
    file: "bench/servers/sdk_lowlevel_server.ts",
    permissions: [],
    health: false,
    readsUpTo: SDK_READ_BUFFER,
  },
  {
    name: "sdk-mcpserver",
    label: "SDK McpServer",
    file: "bench/servers/sdk_mcpserver_server.ts",
    permissions: [],
    health: false,
    readsUpTo: SDK_READ_BUFFER,
  },
  {
    name: "raw-floor",
    label: "raw floor",
    file: "bench/servers/raw_floor_server.ts",
    permissions: [],
    health: true,
    modern: true,
  },
  {
    name: "cat-loop",
    label: "cat loop (driver ceiling)",
    file: "bench/servers/cat_loop_server.ts",
    permissions: [],
    health: true,
    modern: true,
  },
  {
    name: "sdk-on-toolkit",
    label: "SDK Server on toolkit StdioTransport",
    file: "bench/servers/sdk_toolkit_transport_server.ts",
    permissions: [],
    health: false,
    unavailableCode: 3,
  },
];

/**
 * The typed-arguments servers, measured in a phase of their own: the same
 * four-argument `echo`, validated against its declared schema (built with the
 * helpers, or hand-written with `$defs` and `$ref`) or not. Their ratio to
 * the unvalidated one is the cost of validation, which must stay within 5 %.
 */
export const TYPED_SERVERS: readonly ServerSpec[] = [
  {
    name: "typed",
    label: "four typed arguments, validated",
    file: "bench/servers/typed_server.ts",
    permissions: [],
    runtime: RUNTIME_FLAGS,
    health: true,
  },
  {
    name: "typed-refs",
    label: "the same arguments as $defs reached by $ref, validated",
    file: "bench/servers/typed_refs_server.ts",
    permissions: [],
    runtime: RUNTIME_FLAGS,
    health: true,
  },
  {
    name: "typed-unvalidated",
    label: "the same tool, unvalidated",
    file: "bench/servers/typed_unvalidated_server.ts",
    permissions: [],
    runtime: RUNTIME_FLAGS,
    health: true,
  },
];

/** The typed server the validated ones are compared with. */
export const UNVALIDATED = "typed-unvalidated";

/** The name of the server every ratio is taken against. */
export const BASELINE = "sdk-lowlevel";

/** The name of the server the toolkit's speed is judged against: no checks at all. */
export const FLOOR = "raw-floor";

/** Where the bundled toolkit server is built: under bench/results, the one folder the benchmark may write. */
export const BUNDLE_DIR = "bench/results/bundle/toolkit";

/**
 * The toolkit's server as `deno task bundle` ships it (`deno bundle
 * --code-splitting --minify`), built from the toolkit's entry file when a run selects
 * the toolkit (its file is the bundle's entry): measured in the cold-start
 * and `--health` phases only, where reading a few bundled files instead of a
 * graph of modules is what differs.
 */
export const BUNDLED: Omit<ServerSpec, "file"> = {
  name: "toolkit-bundled",
  label: "toolkit run(), bundled",
  permissions: [],
  runtime: RUNTIME_FLAGS,
  health: true,
};

/** The file `deno run` starts for the `--health` reference. */
export const EMPTY_FILE = "bench/servers/empty.ts";

/** The `deno` arguments that start `spec` (extra arguments go to the server). */
export function denoArgs(
  spec: { file: string; permissions: string[]; runtime?: readonly string[] },
  extra: string[] = [],
): string[] {
  // --no-lock: the benchmark must not write the repository's lock file.
  return ["run", "--quiet", "--no-lock", ...spec.runtime ?? [], ...spec.permissions, spec.file, ...extra];
}
