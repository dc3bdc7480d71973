import type { PermissionSet } from "./permission_set.ts";
import { denyNetProbes, ENV_PROBES, netCovered, netProbes, pathProbes, runProbes, SYS_KINDS } from "./_probes.ts";

const UNSCOPED = ["read", "write", "net", "env", "run", "ffi", "sys", "import"] as const;

/**
 * Lists what the running process holds beyond `set`, by asking
 * `Deno.permissions.query` (which never prompts). It detects `-A`, every
 * unscoped grant, and scoped grants that reach a probe: `/`, the ancestors
 * of every root, the home and system folders, the working directory, the
 * roots themselves for write and ffi, loopback/private/metadata hosts and
 * other ports of allowed hosts, secret-looking env variables, shells and
 * interpreters, and every `--allow-sys` kind. It also reports each
 * `--deny-net` entry of `set` that is not in force over its whole range (first, last and random addresses).
 *
 * Deno cannot list its grants, so a scoped grant of an unrelated path (say
 * `--allow-read=/opt/other`) is found only when it covers a probe.
 *
 * @param set From `derivePermissions`.
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
export async function checkPermissions(set: PermissionSet): Promise<string[]> {
  // querySync(): query() is the same answer wrapped in a promise, and awaiting
  // each of the probes cost a server's start several milliseconds (docs/benchmarks.md).
  const granted = (descriptor: Deno.PermissionDescriptor) => Deno.permissions.querySync(descriptor).state === "granted";
  const unscoped = new Set<string>();
  for (const name of UNSCOPED) if (granted({ name })) unscoped.add(name);
  if (unscoped.size === UNSCOPED.length) return ["-A (--allow-all): every permission is granted"];
  const excess = [...unscoped].map((name) => `unscoped --allow-${name}`);

  const anchors = [...set.read, ...set.write];
  // A set without paths needs no path arithmetic (nothing it holds can cover a probe): node:path is not loaded.
  const geometry = anchors.length === 0 ? undefined : await import("./_path_probes.ts");
  const pathCovered = (roots: readonly string[], path: string) => geometry?.pathCovered(roots, path) ?? false;
  const paths = pathProbes(geometry?.ancestorsOf(anchors) ?? []);
  if (!unscoped.has("read")) {
    for (const path of paths) {
      if (!pathCovered(set.read, path) && granted({ name: "read", path })) excess.push(`read ${q(path)}`);
    }
  }
  if (!unscoped.has("write")) {
    for (const path of [...paths, ...set.read]) {
      if (!pathCovered(set.write, path) && granted({ name: "write", path })) excess.push(`write ${q(path)}`);
    }
  }
  if (!unscoped.has("ffi")) {
    for (const path of [...paths, ...anchors]) {
      if (granted({ name: "ffi", path })) excess.push(`ffi ${q(path)}`);
    }
  }
  if (!unscoped.has("net")) {
    for (const host of netProbes(set.net)) {
      if (!netCovered(set.net, host) && granted({ name: "net", host })) excess.push(`net ${q(host)}`);
    }
  }
  if (!unscoped.has("env")) {
    for (const variable of ENV_PROBES) {
      if (!set.env.includes(variable) && granted({ name: "env", variable })) excess.push(`env ${q(variable)}`);
    }
  }
  if (!unscoped.has("run")) {
    // A probe that names a program the set runs (`git` for `/usr/bin/git`) resolves to that grant.
    const names = new Set((set.run ?? []).flatMap((path) => [path, path.slice(path.lastIndexOf("/") + 1)]));
    for (const command of runProbes().filter((probe) => !names.has(probe))) {
      if (granted({ name: "run", command })) excess.push(`run ${q(command)}`);
    }
  }
  if (!unscoped.has("sys")) {
    for (const kind of SYS_KINDS) if (granted({ name: "sys", kind })) excess.push(`sys ${q(kind)}`);
  }
  // Every address of a range must be denied, not only its first: `--deny-net=10.0.0.0` answers "denied" for
  // 10.0.0.0 and lets 10.0.0.5 through, so the range's last address and random ones inside it are asked too.
  for (const entry of set.denyNet) {
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

function q(value: string): string {
  return JSON.stringify(value);
}
