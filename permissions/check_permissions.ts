import type { PermissionSet } from "./permission_set.ts";
import { denyNetProbes, ENV_PROBES, netCovered, netProbes, pathProbes, runProbes, SYS_KINDS } from "./_probes.ts";

const UNSCOPED = ["read", "write", "net", "env", "run", "ffi", "sys", "import"] as const;

/** Options of {@linkcode checkPermissions}. */
export interface CheckOptions {
  /**
   * Kinds the caller revokes whole before it serves (`revokeUnneeded`). Only
   * an unscoped grant of such a kind is reported: every scoped grant of it,
   * one a probe would see or not, is gone with the revoke, so its probes are
   * not asked (each is several µs of a start).
   */
  revoking?: readonly Deno.PermissionDescriptor["name"][];
}

/**
 * Lists what the running process holds beyond `set`, by asking
 * `Deno.permissions.query` (which never prompts). It detects `-A`, every
 * unscoped grant, and scoped grants that reach a probe: `/`, the ancestors
 * of every root, the home and system folders, the working directory, the
 * roots themselves for write and ffi, loopback/private/metadata hosts and
 * other ports of allowed hosts, secret-looking env variables, shells and
 * interpreters, and every `--allow-sys` kind. It also reports each
 * `--deny-net` entry of `set` that is not in force over its whole range (first, last and random addresses), and a
 * permission broker (`DENO_PERMISSION_BROKER_PATH`), which answers checks the flags do not grant.
 *
 * Deno cannot list its grants, so a scoped grant of an unrelated path (say
 * `--allow-read=/opt/other`) is found only when it covers a probe.
 *
 * @param set From `derivePermissions`.
 * @param options The kinds the caller revokes whole, whose scoped grants are not asked about.
 * @returns One human-readable entry per excess grant; empty at least privilege.
 *
 * @example Under `deno test` without permissions nothing is excess
 * ```ts
 * import { checkPermissions } from "./check_permissions.ts";
 * import assert from "node:assert/strict";
 *
 * const excess = await checkPermissions({ read: [], write: [], net: [], denyNet: [], env: [] });
 * assert.ok(Array.isArray(excess));
 * ```
 */
export async function checkPermissions(set: PermissionSet, options: CheckOptions = {}): Promise<string[]> {
  // querySync(): query() is the same answer wrapped in a promise, and awaiting
  // each of the probes cost a server's start several milliseconds (docs/benchmarks.md).
  const granted = (descriptor: Deno.PermissionDescriptor) => Deno.permissions.querySync(descriptor).state === "granted";
  // Under a broker, query and revoke see only the flags while the broker allows what it likes: nothing below holds.
  if (brokered()) return [`a permission broker (${BROKER_VARIABLE}) decides every permission check, not the flags`];
  const unscoped = new Set<string>();
  for (const name of UNSCOPED) if (granted({ name })) unscoped.add(name);
  if (unscoped.size === UNSCOPED.length) return ["-A (--allow-all): every permission is granted"];
  const excess = [...unscoped].map((name) => `unscoped --allow-${name}`);
  // A kind granted whole is reported above; one revoked whole keeps no scoped grant to find.
  const revoking = new Set<string>(options.revoking ?? []);
  const probed = (name: string) => !unscoped.has(name) && !revoking.has(name);

  // Most specific first: a probe that answers "prompt" clears those above it (pathBelow, portOf), which are not asked.
  const ask = (descriptor: (probe: string) => Deno.PermissionDescriptor) => (probe: string) =>
    Deno.permissions.querySync(descriptor(probe)).state;
  if (probed("read") || probed("write") || probed("ffi")) {
    const anchors = [...set.read, ...set.write];
    // A set without paths needs no path arithmetic (nothing it holds can cover a probe): node:path is not loaded.
    const geometry = anchors.length === 0 ? undefined : await import("./_path_probes.ts");
    const pathCovered = (roots: readonly string[], path: string) => geometry?.pathCovered(roots, path) ?? false;
    const paths = pathProbes(geometry?.ancestorsOf(anchors) ?? []);
    if (probed("read")) {
      const probes = paths.filter((path) => !pathCovered(set.read, path));
      for (const path of grantedProbes(probes, ask((path) => ({ name: "read", path })), pathBelow)) {
        excess.push(`read ${q(path)}`);
      }
    }
    if (probed("write")) {
      const probes = [...paths, ...set.read].filter((path) => !pathCovered(set.write, path));
      for (const path of grantedProbes(probes, ask((path) => ({ name: "write", path })), pathBelow)) {
        excess.push(`write ${q(path)}`);
      }
    }
    if (probed("ffi")) {
      for (const path of grantedProbes([...paths, ...anchors], ask((path) => ({ name: "ffi", path })), pathBelow)) {
        excess.push(`ffi ${q(path)}`);
      }
    }
  }
  if (probed("net")) {
    const probes = netProbes(set.net).filter((host) => !netCovered(set.net, host));
    for (const host of grantedProbes(probes, ask((host) => ({ name: "net", host })), portOf)) {
      excess.push(`net ${q(host)}`);
    }
  }
  if (probed("env")) {
    for (const variable of ENV_PROBES) {
      if (!set.env.includes(variable) && granted({ name: "env", variable })) excess.push(`env ${q(variable)}`);
    }
  }
  if (probed("run")) {
    // A probe that names a program the set runs (`git` for `/usr/bin/git`) resolves to that grant.
    const names = new Set((set.run ?? []).flatMap((path) => [path, path.slice(path.lastIndexOf("/") + 1)]));
    for (const command of runProbes().filter((probe) => !names.has(probe))) {
      if (granted({ name: "run", command })) excess.push(`run ${q(command)}`);
    }
  }
  if (probed("sys")) {
    for (const kind of SYS_KINDS) if (granted({ name: "sys", kind })) excess.push(`sys ${q(kind)}`);
  }
  // Every address of a range must be denied, not only its first: `--deny-net=10.0.0.0` answers "denied" for
  // 10.0.0.0 and lets 10.0.0.5 through, so the range's last address and random ones inside it are asked too.
  // (Under a revoke of net, nothing is reachable, denied or not.)
  for (const entry of revoking.has("net") ? [] : set.denyNet) {
    const inForce = denyNetProbes(entry).every((host) =>
      Deno.permissions.querySync({ name: "net", host }).state === "denied"
    );
    if (!inForce) excess.push(`--deny-net ${q(entry)} is not in force`);
  }
  return [...new Set(excess)];
}

/**
 * Lists what `set` needs that the running process was not granted; the
 * server would fail on first use of each.
 *
 * @param set From `derivePermissions`.
 * @returns One entry per missing grant; empty when everything is granted.
 *
 * @example Without flags every path is missing
 * ```ts
 * import { missingPermissions } from "./check_permissions.ts";
 * import assert from "node:assert/strict";
 *
 * const missing = await missingPermissions({ read: ["/srv/data"], write: [], net: [], denyNet: [], env: [] });
 * assert.deepEqual(missing, ['read "/srv/data"']);
 * ```
 */
export function missingPermissions(set: PermissionSet): Promise<string[]> {
  const missing: string[] = [];
  const lacks = (descriptor: Deno.PermissionDescriptor) => Deno.permissions.querySync(descriptor).state !== "granted";
  for (const path of set.read) if (lacks({ name: "read", path })) missing.push(`read ${q(path)}`);
  for (const path of set.write) if (lacks({ name: "write", path })) missing.push(`write ${q(path)}`);
  for (const entry of set.net) {
    const host = entry.startsWith("*.") ? `probe${entry.slice(1)}` : entry;
    if (lacks({ name: "net", host })) missing.push(`net ${q(entry)}`);
  }
  for (const variable of set.env) if (lacks({ name: "env", variable })) missing.push(`env ${q(variable)}`);
  for (const command of set.run ?? []) if (lacks({ name: "run", command })) missing.push(`run ${q(command)}`);
  return Promise.resolve(missing);
}

/** The variable that hands every permission check of a Deno process to a broker (Deno 2.9.6, experimental). */
const BROKER_VARIABLE = "DENO_PERMISSION_BROKER_PATH";

/**
 * Whether a permission broker answers this process's checks. Deno sends each check to the broker, which may allow
 * what the flags do not, so reading the broker's variable is one: under a broker it shows a value, or succeeds where
 * the flags do not grant it. A broker that refuses that read is not seen (no query can see one), nor is one of a
 * process whose stdin is a terminal, where the read could prompt a human instead (no client is served there).
 */
function brokered(): boolean {
  if (Deno.stdin.isTerminal()) return false;
  try {
    if (Deno.env.get(BROKER_VARIABLE) !== undefined) return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) return false;
    throw err;
  }
  return Deno.permissions.querySync({ name: "env", variable: BROKER_VARIABLE }).state !== "granted";
}

/**
 * The probes Deno answers "granted", in the order given, each asked once, most specific first. A probe that answers
 * "prompt" proves that a probe it is below is not granted (a grant of a folder grants what is below it, one of a host
 * every port of it; only a deny makes what is below a granted probe answer otherwise, and that answer is "denied"), so
 * such a probe is not asked: a query costs a start several µs, and a start that probes every kind asks some 250 (docs/benchmarks.md).
 */
function grantedProbes(
  probes: readonly string[],
  ask: (probe: string) => Deno.PermissionState,
  below: (probe: string, other: string) => boolean,
): string[] {
  const unique = [...new Set(probes)];
  const granted = new Set<string>();
  const cleared: string[] = [];
  // What is below another is longer than it: by length, every probe is asked before those it can clear.
  for (const probe of [...unique].sort((a, b) => b.length - a.length)) {
    if (cleared.some((done) => below(done, probe))) continue;
    const state = ask(probe);
    if (state === "granted") granted.add(probe);
    else if (state === "prompt") cleared.push(probe);
  }
  return unique.filter((probe) => granted.has(probe));
}

/** Whether `path` is below `folder` (both absolute, as the probes are); never on another platform's paths. */
function pathBelow(path: string, folder: string): boolean {
  return folder === "/" ? path !== "/" && path.startsWith("/") : path.startsWith(`${folder}/`);
}

/** Whether `probe` is a port of `host`, a probe without one (`127.0.0.1:22` of `127.0.0.1`). */
function portOf(probe: string, host: string): boolean {
  return probe.length > host.length + 1 && probe.startsWith(host) && probe[host.length] === ":" &&
    !host.includes(":", host.startsWith("[") ? host.indexOf("]") : 0);
}

function q(value: string): string {
  return JSON.stringify(value);
}
