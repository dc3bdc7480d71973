import assert from "node:assert/strict";
import * as net from "node:net";
import { inPrefix, ipv4Bytes, ipv6Bytes, isIPv4, isIPv6 } from "./ip.ts";

// Hand-picked edge cases; node:net's own predicates are the oracle.
const corpus = [
  "",
  "0.0.0.0",
  "127.0.0.1",
  "255.255.255.255",
  "256.0.0.1",
  "1.2.3",
  "1.2.3.4.5",
  "01.2.3.4",
  "1.2.3.04",
  "1.2.3.-4",
  "1.2.3.4 ",
  " 1.2.3.4",
  "1..3.4",
  "0x7f.0.0.1",
  "2130706433",
  "1.2.3.4\n",
  "١.٢.٣.٤",
  "::",
  ":",
  ":::",
  "::1",
  "1::",
  "1::1",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6:7",
  "1:2:3:4:5:6:7::",
  "::2:3:4:5:6:7:8",
  "1::3:4:5:6:7:8",
  "1::2::3",
  "1:::2",
  ":1:2:3:4:5:6:7",
  "1:2:3:4:5:6:7:",
  "12345::",
  "abcd:ef01:2345:6789:ABCD:EF01:2345:6789",
  "g::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::127.0.0.1",
  "1:2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6:7:1.2.3.4",
  "1:2:3:4:5:1.2.3.4",
  "1::1.2.3.4",
  "1.2.3.4::",
  "1.2.3.4::1",
  "::1.2.3",
  "::01.2.3.4",
  "::1.2.3.256",
  "fe80::1%eth0",
  "fe80::1%",
  "fe80::1%en0.1:x-y",
  "fe80::1%a b",
  "fe80::1%%",
  "::1%1",
  "[::1]",
  "fd00:ec2::254",
  "64:ff9b:1::",
  "0:0:0:0:0:0:0:0",
  "0000:0000:0000:0000:0000:0000:0000:0000",
  "00000::",
  "1:2:3:4:5:6::1.2.3.4",
  "::1.2.3.4%z",
  "1.2.3.4%z",
];

/** Asserts that both predicates answer as node:net's do for `text`. */
function agrees(text: string): void {
  assert.equal(isIPv4(text), net.isIPv4(text), `isIPv4(${JSON.stringify(text)})`);
  assert.equal(isIPv6(text), net.isIPv6(text), `isIPv6(${JSON.stringify(text)})`);
}

/** A seeded 32-bit generator, so a failure names an input that reproduces. */
function seeded(seed: number): () => number {
  return () => (seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0);
}

Deno.test("isIPv4() and isIPv6() agree with node:net on hand-picked edge cases", () => {
  for (const text of corpus) agrees(text);
});

Deno.test("isIPv4() and isIPv6() agree with node:net on 50,000 seeded random strings", () => {
  const next = seeded(0x9e3779b9);
  const alphabet = "0123456789abcdefABCDEFg:::...%%z- ";
  const pieces = ["::", "ffff", "1.2.3.4", "255", "0", "00", "127.0.0.1", "%eth0", "fe80", ":", "."];
  for (let n = 0; n < 50_000; n++) {
    let text = "";
    const length = next() % 14;
    for (let i = 0; i < length; i++) {
      text += next() % 3 === 0 ? pieces[next() % pieces.length] : alphabet[next() % alphabet.length];
    }
    agrees(text);
  }
});

Deno.test("isIPv6() agrees with node:net on 50,000 seeded address-shaped strings, valid ones included", () => {
  const next = seeded(12345);
  const hex = "0123456789abcdefABCDEF";
  const group = () => Array.from({ length: next() % 6 }, () => hex[next() % hex.length]).join("");
  const quad = () => Array.from({ length: 3 + (next() % 3) }, () => String(next() % 300)).join(".");
  let valid = 0;
  for (let n = 0; n < 50_000; n++) {
    const parts = Array.from({ length: next() % 10 }, group);
    if (next() % 3 === 0) parts.splice(next() % (parts.length + 1), 0, "");
    let text = parts.join(":");
    if (next() % 5 === 0) text += (text.endsWith(":") ? "" : ":") + quad();
    if (next() % 7 === 0) text += `%${group() || "eth0"}`;
    if (net.isIPv6(text)) valid++;
    agrees(text);
  }
  assert.ok(valid > 1_000, `only ${valid} valid addresses were generated`);
});

Deno.test("ipv4Bytes() and ipv6Bytes() return the address's bytes", () => {
  assert.deepEqual(ipv4Bytes("169.254.169.254"), [169, 254, 169, 254]);
  assert.equal(ipv4Bytes("1.2.3"), undefined);
  assert.deepEqual(ipv6Bytes("::1"), [...Array(15).fill(0), 1]);
  assert.deepEqual(ipv6Bytes("::ffff:127.0.0.1"), [...Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 1]);
  assert.deepEqual(ipv6Bytes("fd00:ec2::254%eth0"), [0xfd, 0, 0x0e, 0xc2, ...Array(10).fill(0), 0x02, 0x54]);
  assert.deepEqual(ipv6Bytes("1:2:3:4:5:6:7:8"), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
  assert.equal(ipv6Bytes("1::2::3"), undefined);
});

Deno.test("inPrefix() compares the leading bits only", () => {
  assert.ok(inPrefix([10, 1, 2, 3], [10, 0, 0, 0], 8));
  assert.ok(!inPrefix([11, 1, 2, 3], [10, 0, 0, 0], 8));
  assert.ok(inPrefix([172, 31, 0, 1], [172, 16, 0, 0], 12));
  assert.ok(!inPrefix([172, 32, 0, 1], [172, 16, 0, 0], 12));
  assert.ok(inPrefix([1, 2, 3, 4], [9, 9, 9, 9], 0));
});
