// `format`: an annotation unless the caller asks to assert formats. Then the
// formats below are checked and any other name stays an annotation.

import { describeValue } from "../internal/describe_value.ts";
import { type Check, Failure } from "./_check.ts";
import type { Compiler, Location } from "./_compiler.ts";
import { type LinearRegex, linearRegex } from "./_regex.ts";

/** The check of `format` when formats are asserted and this one is known, else undefined. */
export function formatCheck(c: Compiler, at: Location): Check | undefined {
  const format = (at.schema as Record<string, unknown>).format;
  if (format === undefined) return undefined;
  if (typeof format !== "string") c.refuse(at, "format", "must be a string");
  if (!c.options.assertFormats || !Object.hasOwn(FORMATS, format)) return undefined;
  const test = FORMATS[format];
  const rule = `must be a valid ${format}`;
  return (value) =>
    typeof value !== "string" || test(value) ? undefined : new Failure("format", rule, `got ${describeValue(value)}`);
}

// The formats asserted on request, each a test of a string written from its
// RFC: dates and times (RFC 3339), e-mail addresses (RFC 5321), host names
// (RFC 1123), IP addresses (RFC 2673, RFC 4291), URIs (RFC 3986), UUIDs
// (RFC 4122), JSON Pointers (RFC 6901). Every expression is anchored and
// unambiguous (each repetition starts with its own separator), so a hostile
// string costs linear time. V8 still keeps a backtracking entry for each turn
// of a repeated group, and runs out of stack some millions of turns in (a 10
// MB URI of short segments): such a value is tested again by the linear
// matcher of `pattern`, which keeps none, so a long value gets its verdict.

const DIGITS2 = "[0-9]{2}";
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const TIME = new RegExp(
  `^(${DIGITS2}):(${DIGITS2}):(${DIGITS2})(?:\\.[0-9]+)?(?:z|([+-])(${DIGITS2}):(${DIGITS2}))$`,
  "i",
);
const DURATION = new RegExp(
  "^P(?:[0-9]+W|(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?" +
    "|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))$",
);
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const ATOM_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const QUOTED_LOCAL = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
const IPV4 = /^(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}$/;
const HEX16 = /^[0-9A-Fa-f]{1,4}$/;
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;
const RELATIVE_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~[01])*)*)$/;

// RFC 3986, piece by piece.
const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const SCHEME = "[A-Za-z][A-Za-z0-9+\\-.]*";
const USERINFO = `(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*`;
const REG_NAME = `(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*`;
const IP_LITERAL = "\\[[0-9A-Za-z:.\\-_~!$&'()*+,;=]+\\]";
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${REG_NAME})(?::[0-9]*)?`;
const PATH_ABEMPTY = `(?:/${PCHAR}*)*`;
const PATH_ROOTLESS = `${PCHAR}+(?:/${PCHAR}*)*`;
const PATH_NOSCHEME = `(?:[${UNRESERVED}${SUB_DELIMS}@]|${PCT})+(?:/${PCHAR}*)*`;
const QUERY = `(?:\\?(?:${PCHAR}|[/?])*)?`;
const FRAGMENT = `(?:#(?:${PCHAR}|[/?])*)?`;
const HIER = `(?://${AUTHORITY}${PATH_ABEMPTY}|/(?:${PATH_ROOTLESS})?|${PATH_ROOTLESS})?`;
const RELATIVE = `(?://${AUTHORITY}${PATH_ABEMPTY}|/(?:${PATH_ROOTLESS})?|${PATH_NOSCHEME})?`;
const URI = new RegExp(`^${SCHEME}:${HIER}${QUERY}${FRAGMENT}$`);
const RELATIVE_REF = new RegExp(`^${RELATIVE}${QUERY}${FRAGMENT}$`);
const IP_FUTURE = new RegExp(`^v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);

/** A URI's IP literal, if any, holds an IPv6 address or an IPvFuture (the expressions allow `[` nowhere else). */
function ipLiteralOk(value: string): boolean {
  const open = value.indexOf("[");
  if (open === -1) return true;
  const literal = value.slice(open + 1, value.indexOf("]", open));
  return isIpv6(literal) || matches(IP_FUTURE, literal);
}

const linear = new Map<RegExp, LinearRegex>();

/** `re.test(value)`, by the linear matcher when V8's backtracking stack runs out on a long value. */
function matches(re: RegExp, value: string): boolean {
  try {
    return re.test(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
  let matcher = linear.get(re);
  if (matcher === undefined) {
    const compiled = linearRegex(re.source);
    // The expressions here hold no backreference.
    if ("backreference" in compiled) throw new Error(`format expression ${re.source} has a backreference`);
    linear.set(re, matcher = compiled);
  }
  return matcher.test(value);
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

function isTime(value: string): boolean {
  const m = TIME.exec(value);
  if (m === null) return false;
  const [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const sign = m[4] === "-" ? -1 : 1;
  const [offsetHour, offsetMinute] = [Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  // A leap second is 23:59:60 in UTC, whatever the offset it is written in.
  const utc = ((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1440 + 1440) % 1440;
  return utc === 23 * 60 + 59;
}

function isDateTime(value: string): boolean {
  const t = value.search(/[Tt]/);
  return t === 10 && isDate(value.slice(0, t)) && isTime(value.slice(t + 1));
}

/** RFC 1123 letters, digits and hyphens; an A-label (`xn--…`) is checked for that syntax only, not decoded. */
function isHostname(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  return value.split(".").every((label) =>
    LABEL.test(label) && !(label.length >= 4 && label[2] === "-" && label[3] === "-" && !/^xn--/i.test(label))
  );
}

function isIpv6(value: string): boolean {
  let text = value;
  const lastColon = text.lastIndexOf(":");
  if (lastColon !== -1 && text.includes(".", lastColon)) {
    if (!IPV4.test(text.slice(lastColon + 1))) return false;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const parts = (half: string) => half === "" ? [] : half.split(":");
  const head = parts(halves[0]);
  const tail = halves.length === 2 ? parts(halves[1]) : [];
  if (![...head, ...tail].every((g) => HEX16.test(g))) return false;
  const count = head.length + tail.length;
  // "::" stands for one group of zeros or more.
  return halves.length === 2 ? count < 8 : count === 8;
}

function isEmail(value: string): boolean {
  const at = value.lastIndexOf("@");
  if (at <= 0) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!matches(ATOM_LOCAL, local) && !matches(QUOTED_LOCAL, local)) return false;
  if (domain.startsWith("[") && domain.endsWith("]")) {
    const literal = domain.slice(1, -1);
    return /^ipv6:/i.test(literal) ? isIpv6(literal.slice(5)) : IPV4.test(literal);
  }
  return isHostname(domain);
}

/**
 * The most a `format: "regex"` value may hold to be compiled: V8 compiles a
 * pattern in time that grows with its length, and a Unicode property escape
 * (`\p{L}`) costs it ~70 µs alone (docs/typed-tools.md). A value past either
 * bound is not a regex this check accepts: some 25 ms of compiling at most.
 */
const REGEX_MAX_UNITS = 65_536;
const REGEX_MAX_PROPERTY_ESCAPES = 64;
const PROPERTY_ESCAPE = /\\[pP]\{/g;

function isRegex(value: string): boolean {
  if (value.length > REGEX_MAX_UNITS) return false;
  // Counted without parsing: an escaped backslash before `p{` counts too, which only errs towards refusing.
  if ((value.match(PROPERTY_ESCAPE)?.length ?? 0) > REGEX_MAX_PROPERTY_ESCAPES) return false;
  try {
    new RegExp(value, "u");
    return true;
  } catch {
    return false;
  }
}

/** Format name → test of a string. */
export const FORMATS: Record<string, (value: string) => boolean> = {
  "date-time": isDateTime,
  date: isDate,
  time: isTime,
  duration: (v) => matches(DURATION, v),
  email: isEmail,
  hostname: isHostname,
  ipv4: (v) => IPV4.test(v),
  ipv6: isIpv6,
  uri: (v) => matches(URI, v) && ipLiteralOk(v),
  "uri-reference": (v) => (matches(URI, v) || matches(RELATIVE_REF, v)) && ipLiteralOk(v),
  uuid: (v) => UUID.test(v),
  "json-pointer": (v) => matches(POINTER, v),
  "relative-json-pointer": (v) => matches(RELATIVE_POINTER, v),
  regex: isRegex,
};
