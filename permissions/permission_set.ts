import { fetchesDirectly, NO_PROXY_VARIABLES } from "../internal/direct_fetch.ts";
import { inPrefix, ipv4Bytes, ipv6Bytes, isIPv4 } from "../internal/ip.ts";
import { BLOCKED_IPV4_RANGES, BLOCKED_IPV6_ADDRESSES } from "../validate/address.ts";
import type { Policy } from "../validate/policy.ts";

/**
 * Exactly the Deno permissions a policy needs. Lists are sorted (or in a
 * fixed order) so the derived flags are deterministic.
 */
export interface PermissionSet {
  /** Paths for `--allow-read`: readable and writable roots, and the files the server reads. */
  readonly read: readonly string[];
  /** Paths for `--allow-write`: writable roots and the files the server writes. */
  readonly write: readonly string[];
  /** Entries for `--allow-net`: `host` (all ports, needed to resolve it), `*.suffix`, or `host:port`. */
  readonly net: readonly string[];
  /** Entries for `--deny-net`: internal ranges Deno refuses on the resolved address of every connection. */
  readonly denyNet: readonly string[];
  /** Names for `--allow-env`. */
  readonly env: readonly string[];
  /** Absolute program paths for `--allow-run`; absent or empty grants no program. */
  readonly run?: readonly string[];
}

// Classes that no explicitly private host name is expected to resolve to, so
// their denial stays even when such a host is allowed.
const ALWAYS_DENIED = new Set(["cloud-metadata", "multicast", "unspecified"]);

/**
 * Derives the least Deno permissions that let a server do what its policy
 * allows, and nothing else. Notes on the net entries (checked on Deno 2.9.6):
 * resolving a name through `node:dns` needs `--allow-net=<name>` for all
 * ports, so names that the URL policy resolves are granted without a port;
 * IP literals and `privateHosts` (which are not resolved) get `host:port`.
 * `--deny-net` lists the internal IPv4 ranges (Deno checks them on the
 * address it actually connects to, which is the layer-2 defence against DNS
 * rebinding) and a few IPv6 addresses (Deno takes no IPv6 ranges). A range
 * that holds an explicitly private IP is left out; when a private host is a
 * name, only the metadata, multicast and unspecified entries stay.
 *
 * A policy that allows a host, unless it sets `net.environmentProxy`, also
 * gets `NO_PROXY` and `no_proxy` in `env`: `run()` sets both to
 * `*,0.0.0.0/0,::/0` (every name and address) at start,
 * so `fetch` connects to the address layer 1 checked, never to a proxy the
 * environment names (docs/security.md, note 10).
 *
 * @param policy The policy from `definePolicy`.
 * @returns The permission set.
 *
 * @example A read-only file server
 * ```ts
 * import { derivePermissions } from "@forge/toolkit/permissions";
 * import { definePolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const set = derivePermissions(definePolicy({ readRoots: ["/srv/data"], readFiles: ["/etc/files.json"] }));
 * assert.deepEqual(set.read, ["/etc/files.json", "/srv/data"]);
 * assert.deepEqual(set.write, []);
 * assert.deepEqual(set.env, ["FORGE_TENANT_CONFIG"]);
 * ```
 */
export function derivePermissions(policy: Policy): PermissionSet {
  const { net } = policy;
  const allowNet: string[] = [];
  for (const host of net.hosts) {
    const resolved = !net.privateHosts.includes(host) && !isIPv4(host) && !host.startsWith("[");
    if (resolved) allowNet.push(host);
    else for (const port of net.ports) allowNet.push(`${host}:${port}`);
  }
  return Object.freeze({
    read: sorted([...policy.readRoots, ...policy.writeRoots, ...policy.readFiles, ...policy.writeFiles]),
    write: sorted([...policy.writeRoots, ...policy.writeFiles]),
    net: sorted(allowNet),
    denyNet: Object.freeze(allowNet.length === 0 ? [] : denied(net.privateHosts)),
    env: sorted([...policy.env, ...(fetchesDirectly(net) ? NO_PROXY_VARIABLES : [])]),
    run: sorted(policy.run ?? []),
  });
}

function denied(privateHosts: readonly string[]): string[] {
  const names = privateHosts.some((h) => !isIPv4(h) && !h.startsWith("["));
  const v4 = privateHosts.filter((h) => isIPv4(h));
  const v6 = privateHosts.filter((h) => h.startsWith("[")).map((h) => h.slice(1, -1));
  const ranges = BLOCKED_IPV4_RANGES.filter((range) => {
    if (names && !ALWAYS_DENIED.has(range.class)) return false;
    const [base, bits] = range.cidr.split("/");
    const prefix = ipv4Bytes(base)!;
    return !v4.some((ip) => inPrefix(ipv4Bytes(ip)!, prefix, Number(bits)));
  }).map((range) => range.cidr);
  const addresses = BLOCKED_IPV6_ADDRESSES
    .filter((ip) => !v6.some((allowed) => sameIPv6(allowed, ip)))
    .filter((ip) => !names || ip !== "::1")
    .map((ip) => `[${ip}]`);
  return [...ranges, ...addresses];
}

function sameIPv6(a: string, b: string): boolean {
  const x = ipv6Bytes(a);
  const y = ipv6Bytes(b);
  return x !== undefined && y !== undefined && x.every((byte, i) => byte === y[i]);
}

function sorted(list: readonly string[]): readonly string[] {
  return Object.freeze([...new Set(list)].sort());
}
