import assert from "node:assert/strict";
import { type AddressClass, BLOCKED_IPV4_RANGES, BLOCKED_IPV6_ADDRESSES, classifyAddress } from "./address.ts";

const table: [string, AddressClass | undefined][] = [
  ["93.184.215.14", undefined],
  ["8.8.8.8", undefined],
  ["2606:4700:4700::1111", undefined],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", undefined],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "shared"],
  ["100.100.100.200", "shared"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "cloud-metadata"],
  ["169.254.0.1", "link-local"],
  ["192.0.2.1", "documentation"],
  ["198.18.0.1", "reserved"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:8.8.8.8", "ipv4-mapped"],
  ["::127.0.0.1", "reserved"],
  ["64:ff9b::a9fe:a9fe", "cloud-metadata"],
  ["64:ff9b::808:808", undefined],
  ["2002:7f00:1::", "loopback"],
  ["2001:db8::1", "documentation"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["fc00::1", "private"],
  ["fd00:ec2::254", "cloud-metadata"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["fe80::1%eth_0", "link-local"],
  ["fe80::1%", "link-local"],
  ["ff02::1", "multicast"],
  ["100::1", "reserved"],
  ["4000::1", "reserved"],
];

for (const [address, expected] of table) {
  Deno.test(`classifyAddress() says ${expected ?? "public"} for ${address}`, () => {
    assert.equal(classifyAddress(address), expected);
  });
}

Deno.test("classifyAddress() throws a TypeError for a non-address", () => {
  assert.throws(() => classifyAddress("localhost"), TypeError);
  assert.throws(() => classifyAddress("2130706433"), TypeError);
  assert.throws(() => classifyAddress("0x7f.1"), TypeError);
});

Deno.test("BLOCKED_IPV4_RANGES are valid CIDRs whose base address has their own class", () => {
  for (const range of BLOCKED_IPV4_RANGES) {
    const [base, bits] = range.cidr.split("/");
    assert.ok(Number(bits) >= 4 && Number(bits) <= 32, range.cidr);
    assert.equal(classifyAddress(base), range.cidr === "169.254.0.0/16" ? "link-local" : range.class);
  }
  for (const address of BLOCKED_IPV6_ADDRESSES) assert.notEqual(classifyAddress(address), undefined);
});
