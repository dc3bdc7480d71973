import { quote } from "../internal/quote.ts";
import { inPrefix, ipv4Bytes, ipv6Bytes } from "../internal/ip.ts";

/** Why an address is not a public one. */
export type AddressClass =
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "cloud-metadata"
  | "multicast"
  | "documentation"
  | "reserved"
  | "ipv4-mapped";

/** An IPv4 range in CIDR notation and its class. */
export interface AddressRange {
  /** E.g. `10.0.0.0/8`. */
  readonly cidr: string;
  /** Why it is blocked. */
  readonly class: AddressClass;
}

/**
 * The IPv4 ranges that are never fetched unless a host is explicitly allowed
 * as private. The permissions layer turns them into `--deny-net`, which Deno
 * 2.9.6 checks against the resolved address of every connection.
 *
 * @example Find the metadata address
 * ```ts
 * import { BLOCKED_IPV4_RANGES } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(BLOCKED_IPV4_RANGES.some((r) => r.cidr === "169.254.169.254/32"));
 * ```
 */
export const BLOCKED_IPV4_RANGES: readonly AddressRange[] = Object.freeze(
  [
    { cidr: "0.0.0.0/8", class: "unspecified" },
    { cidr: "10.0.0.0/8", class: "private" },
    { cidr: "100.64.0.0/10", class: "shared" },
    { cidr: "127.0.0.0/8", class: "loopback" },
    { cidr: "169.254.169.254/32", class: "cloud-metadata" },
    { cidr: "169.254.0.0/16", class: "link-local" },
    { cidr: "172.16.0.0/12", class: "private" },
    { cidr: "192.0.0.0/24", class: "reserved" },
    { cidr: "192.0.2.0/24", class: "documentation" },
    { cidr: "192.88.99.0/24", class: "reserved" },
    { cidr: "192.168.0.0/16", class: "private" },
    { cidr: "198.18.0.0/15", class: "reserved" },
    { cidr: "198.51.100.0/24", class: "documentation" },
    { cidr: "203.0.113.0/24", class: "documentation" },
    { cidr: "224.0.0.0/4", class: "multicast" },
    { cidr: "240.0.0.0/4", class: "reserved" },
  ] as const,
);

/**
 * IPv6 addresses denied one by one: Deno 2.9.6 accepts IPv6 literals in
 * `--deny-net` but no IPv6 CIDR ranges.
 *
 * @example The loopback address is listed
 * ```ts
 * import { BLOCKED_IPV6_ADDRESSES } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(BLOCKED_IPV6_ADDRESSES.includes("::1"));
 * ```
 */
export const BLOCKED_IPV6_ADDRESSES: readonly string[] = Object.freeze(["::", "::1", "fd00:ec2::254"]);

interface Net {
  bytes: number[];
  bits: number;
  class: AddressClass;
}

const V4: Net[] = BLOCKED_IPV4_RANGES.map((r) => {
  const [ip, bits] = r.cidr.split("/");
  return { bytes: ipv4Bytes(ip)!, bits: Number(bits), class: r.class };
});

const V6: Net[] = [
  { bytes: v6("::"), bits: 128, class: "unspecified" },
  { bytes: v6("::1"), bits: 128, class: "loopback" },
  { bytes: v6("fd00:ec2::254"), bits: 128, class: "cloud-metadata" },
  { bytes: v6("::"), bits: 96, class: "reserved" },
  { bytes: v6("64:ff9b:1::"), bits: 48, class: "private" },
  { bytes: v6("100::"), bits: 64, class: "reserved" },
  { bytes: v6("2001::"), bits: 32, class: "reserved" },
  { bytes: v6("2001:db8::"), bits: 32, class: "documentation" },
  { bytes: v6("fc00::"), bits: 7, class: "private" },
  { bytes: v6("fe80::"), bits: 10, class: "link-local" },
  { bytes: v6("fec0::"), bits: 10, class: "private" },
  { bytes: v6("ff00::"), bits: 8, class: "multicast" },
];

/**
 * Classifies an IP address: `undefined` for a public unicast address,
 * otherwise why it must not be fetched. IPv4 addresses embedded in IPv6
 * (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are
 * judged by the IPv4 inside; a mapped address is refused even when that is
 * public. IPv6 outside `2000::/3` counts as reserved.
 *
 * @param address A dotted IPv4 or an IPv6 address without brackets.
 * @returns The class, or `undefined` when public.
 * @throws {TypeError} When `address` is not an IP address.
 *
 * @example Classify addresses
 * ```ts
 * import { classifyAddress } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(classifyAddress("169.254.169.254"), "cloud-metadata");
 * assert.equal(classifyAddress("::ffff:10.0.0.1"), "private");
 * assert.equal(classifyAddress("93.184.215.14"), undefined);
 * ```
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = ipv4Bytes(address);
  if (v4) return match(V4, v4);
  // A zone index (`fe80::1%eth0`) says which interface, not which address.
  const bytes = ipv6Bytes(address.split("%")[0]);
  if (!bytes) {
    throw new TypeError(`Cannot classify address: ${quote(address)} is not an IP address`);
  }
  const embedded = embeddedIPv4(bytes);
  if (embedded) return match(V4, embedded.v4) ?? (embedded.mapped ? "ipv4-mapped" : undefined);
  const known = match(V6, bytes);
  if (known) return known;
  // Only 2000::/3 is global unicast; anything else is not for us to fetch.
  return (bytes[0] & 0xe0) === 0x20 ? undefined : "reserved";
}

function embeddedIPv4(b: number[]): { v4: number[]; mapped: boolean } | undefined {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return { v4: b.slice(12), mapped: true };
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) {
    return { v4: b.slice(12), mapped: false };
  }
  if (b[0] === 0x20 && b[1] === 0x02) return { v4: b.slice(2, 6), mapped: false };
  return undefined;
}

function match(nets: readonly Net[], bytes: number[]): AddressClass | undefined {
  for (const net of nets) {
    if (net.bytes.length === bytes.length && inPrefix(bytes, net.bytes, net.bits)) return net.class;
  }
  return undefined;
}

function v6(text: string): number[] {
  return ipv6Bytes(text)!;
}
