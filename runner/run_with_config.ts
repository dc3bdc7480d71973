import type { ConfigSchema } from "../configreload/from_schema.ts";
import type { Loader, LoaderOptions } from "../configreload/loader.ts";
import { quote } from "../internal/quote.ts";
import type { Policy } from "../validate/policy.ts";
import { run, type RunOptions } from "./run.ts";
import type { Server } from "../toolkit/server.ts";

const PRINT_PERMISSIONS = "--print-permissions";

/** Where the config came from, as the policy and the Manager see it. */
export interface ConfigSource {
  /** The config file, or `undefined` when there is none (the defaults). */
  readonly path: string | undefined;
  /** Where `path` came from: `-config FILE`, the tenant directory, or nothing. */
  readonly source: "flag" | "tenant" | "none";
  /** The names of the environment variables the config references, sorted. */
  readonly variables: readonly string[];
}

/** What {@linkcode RunWithConfigOptions.manager} gets to build the server's Manager. */
export interface LoadedConfig<T> extends ConfigSource {
  /** The config the server started with. */
  readonly initial: T;
  /**
   * The current config, re-read when the file changed: call it at the start of
   * each tool call. A version whose `auditFile` differs from the one at start
   * is not used (the trail cannot move while it runs, so the files the
   * Manager guards stay the ones it writes): a stderr line says to restart.
   */
  readonly get: () => Promise<T>;
  /** Hides values that came from the environment (`${NAME}`): use it before printing anything from the config. */
  readonly redact: (text: string) => string;
  /** The policy of a config version (the `policy` option, bound to this source, with {@linkcode LoadedConfig.ownFiles}). */
  readonly policyOf: (config: T) => Policy;
  /**
   * The server's own files, absolute: the config file, the tenant file looked
   * for at start and the audit file. Every policy {@linkcode policyOf} builds
   * lists them (a jail built from it never serves them); a Manager that builds
   * its jails otherwise must keep its tools off them too.
   */
  readonly ownFiles: readonly string[];
}

/** What a Manager may release at shutdown. */
export interface Closable {
  /** Releases pools, handles and timers; awaited at shutdown. */
  close?(): void | Promise<void>;
}

/** Options of {@linkcode runWithConfig}; the rest are {@linkcode RunOptions}. */
export interface RunWithConfigOptions<T, M extends Closable> extends Omit<RunOptions, "policy"> {
  /** The config's schema (a zod schema fits): every allow-list must default to nothing. */
  schema: ConfigSchema<T>;
  /**
   * Fields that hold secrets and so must come from `${VAR}`, never literal
   * text (see `fromSchema` in `@forge/toolkit/configreload`).
   * @default {[]}
   */
  secretFields?: readonly string[];
  /**
   * The loader's bounds on what a config file may hold, for a server whose
   * real configs pass a default (see `LoaderOptions` in
   * `@forge/toolkit/configreload`): a refusal names the one it passed.
   * @default {the loader's: 4 MiB, 64 levels, 100,000 values, 10,000 references, 4 MiB added}
   */
  configLimits?: Pick<LoaderOptions, "maxBytes" | "maxDepth" | "maxValues" | "maxReferences" | "maxExpandedChars">;
  /**
   * The policy both security layers enforce for a config version. The config
   * file and the tenant file looked for at start (read) and the audit file
   * (write) are added to it by {@linkcode runWithConfig}: it reads and writes
   * them itself, so the printed flags grant them and the jail never serves
   * them, whether or not the policy names them.
   */
  policy: (config: T, source: ConfigSource) => Policy;
  /**
   * Says why a reloaded config version may not be used — it changes
   * something fixed at start, such as a program the server runs or a
   * descriptor anchor — or `undefined` when it may. A refused version is not
   * used: the last good config stays, and stderr says
   * `<name>: keeping the last good config: Cannot load config "<file>": <why>`
   * once per version, until a restart. A version that moves the audit file is
   * refused this way already.
   *
   * @param next The reloaded config, valid by the schema.
   * @param first The config the server started with.
   * @param source Where the config came from.
   */
  refuseReload?: (next: T, first: T, source: ConfigSource) => string | undefined;
  /** Builds the Manager the tools share; its `close()`, if any, runs at shutdown. */
  manager: (config: LoadedConfig<T>) => M;
  /** Adds the tools. */
  register: (server: Server, manager: M) => void | Promise<void>;
  /**
   * The audit trail's file for the config at start (absolute, or relative to
   * the working directory). It is fixed while the server runs: a reloaded
   * config that names another (or none) is refused, and the last good config
   * stays, until a restart.
   * @default {stderr}
   */
  auditFile?: (config: T, source: ConfigSource) => string | undefined;
}

/**
 * Starts a config-driven server: what every `main.ts` with a config needs, in
 * one call. It resolves the config (`$FORGE_TENANT_CONFIG/<name>.json`, else
 * `-config FILE`), loads it with live reload, builds the Manager, puts the
 * audit trail first in the middleware, serves with the config's policy, and on
 * shutdown closes the Manager, the audit trail and the loader, in that order.
 *
 * A config that cannot be resolved or loaded, or a policy or Manager that
 * cannot be built, ends the process with one stderr line (`<name>: <reason>`)
 * and exit code 1. `--print-permissions` prints the flags the config needs and
 * `--print-host-config claude|vscode` prints a host entry (see the toolkit's
 * docs/permissions.md), both with the values of the config's `${VAR}`s, so
 * what they print runs as pasted. Both need only read access to the config
 * file and its variables (a variable the printing run may not read, or one
 * that is unset, ends it with one line naming the variable), and both skip the
 * config file's safety check and its log lines: printing grants nothing.
 * `--allow-unsafe-config` turns the check off for development.
 *
 * @typeParam T The validated config.
 * @typeParam M The Manager.
 * @param name The server's name: the tenant file is `<name>.json`.
 * @param options See {@linkcode RunWithConfigOptions}.
 * @returns Resolves after shutdown (when `exit` is false).
 * @throws {Error} When `exit` is false and the server cannot start: the error
 *   that would have ended the process.
 *
 * @example A complete main.ts (the template's, `deno task new`)
 * ```ts ignore
 * import { health, runWithConfig } from "@forge/toolkit";
 * import { ConfigSchema } from "./domain/config.ts";
 * import { Manager } from "./domain/notes.ts";
 * import { policyFor } from "./domain/policy.ts";
 * import { registerAll } from "./tools/register.ts";
 *
 * if (!health()) {
 *   await runWithConfig("my-server", {
 *     version: "0.1.0",
 *     schema: ConfigSchema,
 *     policy: (config, source) => policyFor(config, source.path, source.variables),
 *     auditFile: (config, source) => policyFor(config, source.path, source.variables).writeFiles[0],
 *     manager: (config) => new Manager(config),
 *     register: registerAll,
 *   });
 * }
 * ```
 */
export async function runWithConfig<T, M extends Closable>(
  name: string,
  options: RunWithConfigOptions<T, M>,
): Promise<void> {
  const args = options.args ?? Deno.args;
  const { schema, secretFields, configLimits, policy, manager, register, auditFile, refuseReload, ...rest } = options;
  // Loaded on start, not at import, so `--health` stays as cheap as with run().
  // node:path too: a static import would load part of Deno's Node layer in every server that imports mod.ts.
  const [start, { resolve: resolvePath }] = await Promise.all([import("./_config_start.ts"), import("node:path")]);
  const { fromSchema, Loader, resolveConfigPath, auditTrail, hostConfigRequested, printHostConfig, withOwnFiles } =
    start;
  const printing = args.includes(PRINT_PERMISSIONS) || hostConfigRequested(args);
  let started: Started;
  // Once the config has loaded, what ends the start (a policy's refusal quotes a value) shows its variables as names.
  let hide = (text: string) => text;
  try {
    const { path, source, tenantFile } = resolveConfigPath(name, { args });
    const from = (): ConfigSource => ({ path, source, variables: loader.variables });
    // The trail keeps the file it opened at start: a version naming another would have the Manager guard
    // (deny the model) that one while the live trail sat unguarded, so such a version is not used.
    const trailFile = (config: T) => {
      const file = auditFile?.(config, from());
      return file === undefined ? undefined : resolvePath(file);
    };
    const loader: Loader<T> = new Loader(path, fromSchema(schema, { secretFields }), {
      ...configLimits,
      name,
      optional: source === "tenant",
      allowUnsafeFile: printing || args.includes("--allow-unsafe-config"),
      log: printing ? () => {} : undefined,
      refuseReload: (next, first) => {
        const [was, now] = [trailFile(first), trailFile(next)];
        if (was === now) return refuseReload?.(next, first, from());
        const where = (file: string | undefined) => file === undefined ? "stderr" : quote(file, 256);
        return `it moves the audit trail from ${where(was)} to ${where(now)}, which needs a restart`;
      },
    });
    const initial = await loader.get();
    hide = (text) => loader.redact(text, true);
    // The config file, the tenant file looked for at start (a -config server checks it each time it starts) and
    // the trail's file are this function's own: granted whatever the policy names.
    const trail = trailFile(initial);
    const configFiles = [path, tenantFile].filter((file) => file !== undefined).map((file) => resolvePath(file));
    const policyOf = (config: T) => withOwnFiles(policy(config, from()), configFiles, trail);
    const atStart = policyOf(initial);
    if (hostConfigRequested(args)) {
      await printHostConfig(name, atStart, { ...from(), args });
      if (options.exit !== false) Deno.exit(0);
      return;
    }
    if (args.includes(PRINT_PERMISSIONS)) {
      // run() prints the flags and exits: no Manager, audit file or watcher is made for that.
      started = { policy: atStart, register: () => {}, close: () => {} };
    } else {
      const redact = (text: string) => loader.redact(text);
      const ownFiles = trail === undefined ? configFiles : [...configFiles, trail];
      const mgr = manager({ ...from(), initial, get: () => loader.get(), redact, policyOf, ownFiles });
      const audit = auditTrail({ server: name, file: trail });
      started = {
        policy: atStart,
        middleware: [audit, ...(rest.middleware ?? [])],
        register: (server: Server) => register(server, mgr),
        close: async () => {
          await mgr.close?.();
          await audit.close();
          await loader.close();
        },
      };
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const shown = hide(message);
    // The cause would carry the value: a hidden one is rethrown without it.
    if (options.exit === false) throw shown === message ? err : new Error(shown);
    console.error(`${name}: ${shown}`);
    Deno.exit(1);
  }
  const { close } = started;
  await run(name, started.register, {
    ...rest,
    policy: started.policy,
    middleware: started.middleware ?? rest.middleware,
    onClose: async () => {
      await rest.onClose?.();
      await close();
    },
  });
}

interface Started {
  policy: Policy;
  middleware?: RunOptions["middleware"];
  register: (server: Server) => void | Promise<void>;
  close: () => void | Promise<void>;
}
