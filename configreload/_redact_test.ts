import assert from "node:assert/strict";
import { redactor } from "./_redact.ts";
import { quote } from "../internal/quote.ts";

Deno.test("redactor() replaces each environment value with ${NAME}, longest first", () => {
  const redact = redactor(new Map([["/srv/data", "DATA_DIR"], ["/srv/data/archive", "ARCHIVE"]]));
  assert.equal(redact("roots: /srv/data/archive and /srv/data/in"), "roots: ${ARCHIVE} and ${DATA_DIR}/in");
});

Deno.test("redactor() treats values as literals, not patterns", () => {
  const redact = redactor(new Map([["a.b*c(d)", "WEIRD"]]));
  assert.equal(redact("axbbbc(d) a.b*c(d)"), "axbbbc(d) ${WEIRD}");
});

Deno.test("redactor() leaves values shorter than three characters alone", () => {
  const redact = redactor(new Map([["ab", "SHORT"], ["abc", "LONG"]]));
  assert.equal(redact("ab abc"), "ab ${LONG}");
});

Deno.test("redactor() does not rewrite its own replacements", () => {
  const redact = redactor(new Map([["KEY", "A"], ["${A}", "B"]]));
  assert.equal(redact("KEY"), "${A}");
});

Deno.test("redactor() hides a value in the escaped form quote() writes", () => {
  const redact = redactor(new Map([["example.com\n", "H"], ['a"b\u202ec', "Q"]]));
  assert.equal(redact(`host ${quote("example.com\n")} and ${quote('a"b\u202ec')}`), 'host "${H}" and "${Q}"');
});

Deno.test("redactor() hides whatever start of a value quote() kept when it cut the value", () => {
  const url = `https://user:${"sgjPjgJxaJZeoOpL0yx7".repeat(18)}@api.example.com`;
  const dir = `/srv/${"x".repeat(40)},secret-part-of-it/and/more`;
  const redact = redactor(new Map([[url, "API_URL"], [dir, "DATA_DIR"]]));
  assert.equal(redact(`Cannot use origin ${quote(url, 100)}: bad`), 'Cannot use origin "${API_URL}…": bad');
  assert.equal(redact(`path ${quote(dir)}`), 'path "${DATA_DIR}…"');
  assert.equal(redact(`path ${quote(`/mnt/a:${dir}`, 64)}`), 'path "/mnt/a:${DATA_DIR}…"');
  assert.equal(redact(`two ${quote(dir, 9)} ${quote(url, 20)}`), 'two "${DATA_DIR}…" "${API_URL}…"');
  assert.equal(redact(quote(`say "${url}"`, 80)), '"say \\"${API_URL}…"');
});

Deno.test("redactor() hides a cut only where it keeps three characters or more of the value", () => {
  const redact = redactor(new Map([["abcdef", "LONG"], ["xyz", "SHORT"]]));
  assert.equal(redact("ab… abc… abd… abcde…"), "ab… ${LONG}… abd… ${LONG}…");
  assert.equal(redact("xyzzy xy… xyz…"), "${SHORT}zy xy… ${SHORT}…");
  assert.equal(redact("abc abcx… abcde"), "abc abcx… abcde");
});

Deno.test("redactor() finds the longest start of a repetitive value before a cut", () => {
  const redact = redactor(new Map([["ababac", "V"], ["a".repeat(100_000), "A"]]));
  assert.equal(redact("xababab…"), "xab${V}…");
  assert.equal(redact(`${"a".repeat(50_000)}…`.repeat(3)), "${A}…".repeat(3));
});

Deno.test("redactor() hides every character of values that overlap", () => {
  const redact = redactor(new Map([["abcdef", "A"], ["defghi", "B"], ["abab", "R"]]));
  assert.equal(redact("abcdefghi"), "${A}${B}");
  assert.equal(redact("-ababab-"), "-${R}${R}-");
});

Deno.test("redactor() with cuts off leaves a value's start before a … as it is: in a tool's result it is not a cut of the value", () => {
  const redact = redactor(new Map([["secret-token-value", "TOKEN"]]));
  assert.equal(redact("<secret-tok…> secret-token-value"), "<${TOKEN}…> ${TOKEN}");
  assert.equal(redact("<secret-tok…> secret-token-value", false), "<secret-tok…> ${TOKEN}");
});
