// IP address literals, parsed by hand instead of through node:net: loading
// node:net is a start-up cost every server would pay for two predicates
// (docs/benchmarks.md, "Findings").
// What is accepted matches node:net's isIPv4/isIPv6 exactly (a differential
// test pins it): dotted decimal without leading zeros, and IPv6 with at most
// one `::`, an optional dotted-quad tail and an optional `%zone`.

/** Whether `text` is a dotted-decimal IPv4 address (no leading zeros, each part 0–255). */
export function isIPv4(text: string): boolean {
  return ipv4Bytes(text) !== undefined;
}

/** Whether `text` is an IPv6 address, optionally with a `%zone` suffix. */
export function isIPv6(text: string): boolean {
  return ipv6Bytes(text) !== undefined;
}

/** The four bytes of a dotted-decimal IPv4 address, or undefined. */
export function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (part.length === 0 || part.length > 3 || (part.length > 1 && part[0] === "0")) return undefined;
    let n = 0;
    for (const c of part) {
      if (c < "0" || c > "9") return undefined;
      n = n * 10 + (c.charCodeAt(0) - 48);
    }
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** The sixteen bytes of an IPv6 address (a `%zone` suffix is checked, then dropped), or undefined. */
export function ipv6Bytes(text: string): number[] | undefined {
  const percent = text.indexOf("%");
  const address = percent === -1 ? text : text.slice(0, percent);
  if (percent !== -1 && !validZone(text.slice(percent + 1))) return undefined;
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const left = groups(halves[0], halves.length === 2 ? "head" : "whole");
  const right = halves.length === 2 ? groups(halves[1], "tail") : [];
  if (left === undefined || right === undefined) return undefined;
  const count = left.length + right.length;
  // Without `::` there must be eight groups; with it, `::` stands for at least one.
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const words = [...left, ...Array<number>(8 - count).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

/**
 * The 16-bit groups of one side of `::`. A dotted-quad IPv4 tail counts as
 * two groups and may only end the address (so not in the head before `::`).
 */
function groups(side: string, where: "whole" | "head" | "tail"): number[] | undefined {
  if (side === "") return where === "whole" ? undefined : [];
  const pieces = side.split(":");
  const out: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (i === pieces.length - 1 && where !== "head" && piece.includes(".")) {
      const v4 = ipv4Bytes(piece);
      if (v4 === undefined) return undefined;
      out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      continue;
    }
    if (piece.length === 0 || piece.length > 4 || !/^[0-9a-fA-F]+$/.test(piece)) return undefined;
    out.push(parseInt(piece, 16));
  }
  return out;
}

/** A zone index as node:net accepts it: one or more of `[0-9A-Za-z.:-]`. */
function validZone(zone: string): boolean {
  return /^[0-9A-Za-z.:-]+$/.test(zone);
}

/** Whether the first `bits` bits of `bytes` equal those of `prefix`. */
export function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bytes.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
}
