import assert from "node:assert/strict";
import { compileSchema } from "./mod.ts";
import { FORMATS } from "./_format.ts";

Deno.test("format is an annotation by default, as 2020-12 says", () => {
  assert.equal(compileSchema({ format: "email" })("not an address"), undefined);
  assert.equal(compileSchema({ format: "date" })("2024-13-45"), undefined);
});

Deno.test("with assertFormats, a known format is checked on strings and names the format", () => {
  const check = compileSchema({ format: "date" }, { assertFormats: true });
  assert.equal(check("2024-02-29"), undefined);
  assert.equal(check("2023-02-29")?.message, 'must be a valid date (format), got the string "2023-02-29"');
  assert.equal(check(20240229), undefined, "a format applies to strings only");
  assert.equal(compileSchema({ format: "made-up" }, { assertFormats: true })("x"), undefined, "unknown: annotation");
  assert.throws(() => compileSchema({ format: 1 }), /schema\/format must be a string/);
});

const CASES: Record<string, [valid: string[], invalid: string[]]> = {
  "date-time": [["1963-06-19T08:30:06.283185Z", "1990-12-31t15:59:60-08:00"], [
    "1990-12-31T15:59:60Z",
    "2024-01-01 10:00:00Z",
  ]],
  date: [["2020-02-29", "1999-12-31"], ["2021-02-29", "2020-1-01", "2020-01-32", "２020-01-01"]],
  time: [["08:30:06Z", "23:59:60Z", "01:29:60+01:30", "12:00:00.5-05:00"], ["24:00:00Z", "12:00:60Z", "12:00:00"]],
  duration: [["P4DT12H30M5S", "P1W", "PT0S", "P1M"], ["P", "PT", "P1Y2D", "P1WT1H", "P1DT"]],
  email: [["joe.bloggs@example.com", '"joe bloggs"@example.com', "a@[127.0.0.1]", "a@[IPv6:::1]"], [
    "2962",
    ".a@b.c",
    "a..b@c.d",
    "a@-x.com",
  ]],
  hostname: [["www.example.com", "xn--4gbwdl.xn--wgbh1c", "a"], ["-a.com", "a_b.com", "example.", "a".repeat(64), ""]],
  ipv4: [["192.168.0.1", "0.0.0.0"], ["256.0.0.1", "087.10.0.1", "1.2.3", "1.2.3.4.5"]],
  ipv6: [["::1", "::", "1:2:3:4:5:6:7:8", "::ffff:192.168.0.1", "1::8"], [
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    "12345::",
    "::ffff:192.168.0.01",
    "[::1]",
  ]],
  uri: [["https://example.com/a?b#c", "urn:isbn:0451450523", "http://[::1]:80/"], [
    "//example.com",
    "/abc",
    "a b:c",
    "http://[::ffff:01.2.3.4]",
  ]],
  "uri-reference": [["/abc", "#frag", "../a", "https://x.y/"], ["\\\\WINDOWS\\file", "#a#b"]],
  uuid: [["2eb8aa08-aa98-11ea-b4aa-73b441d16380"], [
    "2eb8aa08aa9811eab4aa73b441d16380",
    "2eb8aa08-aa98-11ea-b4aa-73b441d1638g",
  ]],
  "json-pointer": [["", "/a/b~0c~1d", "/"], ["a", "/~2"]],
  "relative-json-pointer": [["0", "1/a", "2#"], ["-1", "01/a", "0##", ""]],
  regex: [["^[a-z]+$", "a{2}"], ["(", "[z-a]"]],
};

Deno.test("every asserted format accepts well-formed strings and refuses malformed ones", () => {
  assert.deepEqual(Object.keys(CASES).sort(), Object.keys(FORMATS).sort(), "every format has cases");
  for (const [format, [valid, invalid]] of Object.entries(CASES)) {
    for (const value of valid) assert.ok(FORMATS[format](value), `${format} should accept ${JSON.stringify(value)}`);
    for (const value of invalid) assert.ok(!FORMATS[format](value), `${format} should refuse ${JSON.stringify(value)}`);
  }
});

Deno.test("the format expressions stay linear on a long hostile string", () => {
  // No timing: a backtracking expression would not return at all on these within the test's life.
  const long = "a".repeat(200_000);
  assert.equal(FORMATS.uri(`${long}:${"/a".repeat(100_000)} `), false);
  assert.equal(FORMATS["uri-reference"](`${"/a%20".repeat(100_000)}#%`), false);
  assert.equal(FORMATS.email(`${"a.".repeat(100_000)}@`), false);
  assert.equal(FORMATS.hostname(`${"a-".repeat(100_000)}`), false);
});

Deno.test("format regex compiles no value V8 would take long over: at most 65,536 units and 64 property escapes", () => {
  const isRegex = FORMATS.regex;
  assert.equal(isRegex("\\p{L}".repeat(64)), true);
  // 300,000 of them took V8 ~22 s to compile, holding the server's one thread.
  assert.equal(isRegex("\\p{L}".repeat(65)), false);
  assert.equal(isRegex("[\\P{Lu}]".repeat(65)), false);
  assert.equal(isRegex("a".repeat(65_536)), true);
  assert.equal(isRegex("a".repeat(65_537)), false);
});

Deno.test("a value too long for V8's backtracking stack gets its verdict from the linear matcher, never a refusal about nesting", () => {
  // Millions of short segments: V8 keeps an entry per turn of a repeated group and throws a RangeError.
  const segments = "/a".repeat(5_000_000);
  const valid: [string, string][] = [["uri", `http://x${segments}`], ["json-pointer", segments]];
  for (const [format, value] of valid) {
    assert.equal(compileSchema({ format }, { assertFormats: true })(value), undefined, format);
  }
  // A dot-atom local part that ends in a dot is no address, however long.
  const failure = compileSchema({ format: "email" }, { assertFormats: true })(`${"a.".repeat(5_000_000)}@b.c`);
  assert.equal(failure?.keyword, "format");
  assert.match(failure?.message ?? "", /^must be a valid email \(format\)/);
});
