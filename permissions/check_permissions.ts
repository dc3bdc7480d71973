import type { PermissionSet } from "./permission_set.ts";
import { ENV_PROBES, netCovered, netProbes, pathCovered, pathProbes, runProbes, SYS_KINDS } from "./_probes.ts";

const UNSCOPED = ["read", "write", "net", "env", "run", "ffi", "sys", "import"] as const;

/**
 * Lists what the running process holds beyond `set`, by asking
 * `Deno.permissions.query` (which never prompts). It detects `-A`, every
 * unscoped grant, and scoped grants that reach a probe: `/`, the ancestors
 * of every root, the home and system folders, the working directory, the
 * roots themselves for write and ffi, loopback/private/metadata hosts and
 * other ports of allowed hosts, secret-looking env variables, shells and
 * interpreters, and every `--allow-sys` kind. It also reports each
 * `--deny-net` entry of `set` that is not in force.
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
  const granted = async (descriptor: Deno.PermissionDescriptor) =>
    (await Deno.permissions.query(descriptor)).state === "granted";
  const unscoped = new Set<string>();
  for (const name of UNSCOPED) if (await granted({ name })) unscoped.add(name);
  if (unscoped.size === UNSCOPED.length) return ["-A (--allow-all): every permission is granted"];
  const excess = [...unscoped].map((name) => `unscoped --allow-${name}`);

  const anchors = [...set.read, ...set.write];
  const paths = pathProbes(anchors);
  if (!unscoped.has("read")) {
    for (const path of paths) {
      if (!pathCovered(set.read, path) && await granted({ name: "read", path })) excess.push(`read ${q(path)}`);
    }
  }
  if (!unscoped.has("write")) {
    for (const path of [...paths, ...set.read]) {
      if (!pathCovered(set.write, path) && await granted({ name: "write", path })) excess.push(`write ${q(path)}`);
    }
  }
  if (!unscoped.has("ffi")) {
    for (const path of [...paths, ...anchors]) {
      if (await granted({ name: "ffi", path })) excess.push(`ffi ${q(path)}`);
    }
  }
  if (!unscoped.has("net")) {
    for (const host of netProbes(set.net)) {
      if (!netCovered(set.net, host) && await granted({ name: "net", host })) excess.push(`net ${q(host)}`);
    }
  }
  if (!unscoped.has("env")) {
    for (const variable of ENV_PROBES) {
      if (!set.env.includes(variable) && await granted({ name: "env", variable })) excess.push(`env ${q(variable)}`);
    }
  }
  if (!unscoped.has("run")) {
    // A probe that names a program the set runs (`git` for `/usr/bin/git`) resolves to that grant.
    const names = new Set((set.run ?? []).flatMap((path) => [path, path.slice(path.lastIndexOf("/") + 1)]));
    for (const command of runProbes().filter((probe) => !names.has(probe))) {
      if (await granted({ name: "run", command })) excess.push(`run ${q(command)}`);
    }
  }
  if (!unscoped.has("sys")) {
    for (const kind of SYS_KINDS) if (await granted({ name: "sys", kind })) excess.push(`sys ${q(kind)}`);
  }
  for (const entry of set.denyNet) {
    const host = entry.split("/")[0];
    const state = (await Deno.permissions.query({ name: "net", host })).state;
    if (state !== "denied") excess.push(`--deny-net ${q(entry)} is not in force`);
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
export async function missingPermissions(set: PermissionSet): Promise<string[]> {
  const missing: string[] = [];
  const lacks = async (descriptor: Deno.PermissionDescriptor) =>
    (await Deno.permissions.query(descriptor)).state !== "granted";
  for (const path of set.read) if (await lacks({ name: "read", path })) missing.push(`read ${q(path)}`);
  for (const path of set.write) if (await lacks({ name: "write", path })) missing.push(`write ${q(path)}`);
  for (const entry of set.net) {
    const host = entry.startsWith("*.") ? `probe${entry.slice(1)}` : entry;
    if (await lacks({ name: "net", host })) missing.push(`net ${q(entry)}`);
  }
  for (const variable of set.env) if (await lacks({ name: "env", variable })) missing.push(`env ${q(variable)}`);
  for (const command of set.run ?? []) if (await lacks({ name: "run", command })) missing.push(`run ${q(command)}`);
  return missing;
}

function q(value: string): string {
  return JSON.stringify(value);
}
