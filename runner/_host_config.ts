import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { derivePermissions } from "../permissions/permission_set.ts";
import { fileGrantProblems } from "../permissions/file_grants.ts";
import { permissionFlags } from "../permissions/permission_flags.ts";
import { RUNTIME_FLAGS } from "../permissions/runtime_flags.ts";
import type { Policy } from "../validate/policy.ts";
import { quote } from "../internal/quote.ts";
import { TENANT_CONFIG_VARIABLE } from "../internal/tenant_variable.ts";

/** The flag that prints a ready-to-paste host entry and exits. */
export const PRINT_HOST_CONFIG_FLAG = "--print-host-config";

// npx unpacks a package into a cache folder named by a hash (`~/.npm/_npx/<hash>/`, on
// Windows `%LocalAppData%\npm-cache\_npx\<hash>\`), which `npm cache clean` or a
// version bump removes: a host entry must not name a Deno binary in there.
const NPX_CACHE = /[\\/]_npx[\\/]/;

// Claude Code expands `${NAME}` and `${NAME:-default}` in an entry's command, args and env, and VS Code expands
// `${userHome}`, `${env:NAME}`, `${input:id}` and the like; neither can write a `${` that stays. A path holding one
// would reach Deno as another path than the one printed and checked (`<root>/${N:-..}/${N:-..}/x` as `<root>/../../x`).
const HOST_VARIABLE = "${";

/** The hosts whose config format is known. */
export const HOST_KINDS = ["claude", "vscode"] as const;

/** A host whose config format is known. */
export type HostKind = typeof HOST_KINDS[number];

/** Where the config came from and how the process was started. */
export interface HostConfigSource {
  path: string | undefined;
  source: "flag" | "tenant" | "none";
  variables: readonly string[];
  args: readonly string[];
}

/** What a host entry is built from; everything the process knows about itself, passed in so tests can pin it. */
export interface HostConfigFacts {
  /** The deno binary. */
  execPath: string;
  /** The Deno version `npx -y deno@<version>` pins. */
  denoVersion: string;
  /** The server's entry point (a file URL or path). */
  mainModule: string;
  /** Reads an environment variable. */
  env: (name: string) => string | undefined;
}

/**
 * Whether the arguments ask for a host entry.
 *
 * @param args The command-line arguments.
 * @returns True when `--print-host-config` is among them.
 */
export function hostConfigRequested(args: readonly string[]): boolean {
  return args.some((arg) => arg === PRINT_HOST_CONFIG_FLAG || arg.startsWith(`${PRINT_HOST_CONFIG_FLAG}=`));
}

/**
 * The host entry as JSON text: `mcpServers` (Claude Desktop, Claude Code) or
 * `servers` (VS Code). The flags carry resolved values (a host runs no shell,
 * and the `${NAME}`s it does expand are its own environment's); a value
 * holding `${` is refused, since the host would expand it into another path.
 * The `env` block names every variable the config uses, with its value only
 * when the flags already show that exact value (a path or a host) and a
 * placeholder otherwise, so no secret is ever printed. The
 * command is the running Deno, or `npx -y deno@<version>` under `--npx` and
 * whenever the running Deno lives in npx's cache (a path that does not last).
 *
 * @param name The server's name, the entry's key.
 * @param policy The policy of the config at start.
 * @param from Where the config came from, and the arguments.
 * @param facts The process's own facts.
 * @returns Pretty-printed JSON, ending with a newline.
 * @throws {TypeError} When the host kind is missing or unknown, or a value holds `${`, which the host would expand.
 */
export function hostConfig(name: string, policy: Policy, from: HostConfigSource, facts: HostConfigFacts): string {
  const kind = hostKindOf(from.args);
  const flags = permissionFlags(derivePermissions(policy));
  const script = facts.mainModule.startsWith("file:") ? fileURLToPath(facts.mainModule) : facts.mainModule;
  const args = ["run", "--quiet", "--no-prompt", ...RUNTIME_FLAGS, ...flags, script];
  if (from.source === "flag" && from.path !== undefined) {
    args.push("-config", isAbsolute(from.path) ? from.path : resolve(from.path));
  }
  const shown = new Set(flags.flatMap((flag) => flag.slice(flag.indexOf("=") + 1).split(",")));
  const names = from.source === "tenant" ? [TENANT_CONFIG_VARIABLE, ...from.variables] : [...from.variables];
  const env: Record<string, string> = {};
  for (const variable of names) {
    const value = facts.env(variable);
    env[variable] = value !== undefined && shown.has(value) ? value : `<the value of ${variable}>`;
  }
  const npx = from.args.includes("--npx") || NPX_CACHE.test(facts.execPath);
  const entry = {
    ...(kind === "vscode" ? { type: "stdio" } : {}),
    command: npx ? "npx" : facts.execPath,
    args: npx ? ["-y", `deno@${facts.denoVersion}`, ...args] : args,
    env,
  };
  for (const value of [entry.command, ...entry.args, ...Object.values(env)]) {
    // The list entry that holds it, not the whole flag: a long flag would be cut before it.
    const part = value.split(",").find((piece) => piece.includes(HOST_VARIABLE));
    if (part !== undefined) {
      throw new TypeError(
        `Cannot print host config: ${
          quote(part, 200)
        } holds "\${", which the host would expand as a variable, so it would start the server with other grants than these`,
      );
    }
  }
  const root = kind === "vscode" ? { servers: { [name]: entry } } : { mcpServers: { [name]: entry } };
  return `${JSON.stringify(root, null, 2)}\n`;
}

/**
 * Prints {@linkcode hostConfig} for this process on stdout.
 *
 * @param name The server's name.
 * @param policy The policy of the config at start.
 * @param from Where the config came from, and the arguments.
 * @returns Resolves once written.
 * @throws {TypeError} When the host kind is missing or unknown, a value holds `${`, or a file grant is the root, a
 * folder or a link (what `--print-permissions` refuses too).
 */
export async function printHostConfig(name: string, policy: Policy, from: HostConfigSource): Promise<void> {
  // A file grant that is a folder or a link grants what is below it: refused as --print-permissions refuses it.
  const problems = policy.readFiles.length + policy.writeFiles.length === 0 ? [] : await fileGrantProblems(policy);
  if (problems.length > 0) throw new TypeError(`Cannot print host config: ${problems.join("; ")}`);
  const text = hostConfig(name, policy, from, {
    execPath: Deno.execPath(),
    denoVersion: Deno.version.deno,
    mainModule: Deno.mainModule,
    env: (variable) => Deno.env.get(variable),
  });
  await Deno.stdout.write(new TextEncoder().encode(text));
}

function hostKindOf(args: readonly string[]): HostKind {
  const at = args.findIndex((arg) => arg === PRINT_HOST_CONFIG_FLAG || arg.startsWith(`${PRINT_HOST_CONFIG_FLAG}=`));
  const value = args[at] === PRINT_HOST_CONFIG_FLAG ? args[at + 1] : args[at].slice(PRINT_HOST_CONFIG_FLAG.length + 1);
  if (!(HOST_KINDS as readonly string[]).includes(value ?? "")) {
    throw new TypeError(
      `Cannot print host config: ${value === undefined ? "no host" : quote(value)} is not one of ${
        HOST_KINDS.join(", ")
      } (write ${PRINT_HOST_CONFIG_FLAG} claude)`,
    );
  }
  return value as HostKind;
}
