import assert from "node:assert/strict";
import { fold, redactor } from "./_redact.ts";
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

Deno.test("redactor() hides a value a message rewrote in another letter case: a host lower-cased, a value upper-cased", () => {
  const redact = redactor(new Map([["Billing-Internal-X7Q.Corp.Example.com", "API_HOST"], ["sk-Live-42abc", "KEY"]]));
  assert.equal(
    redact('Cannot use host "billing-internal-x7q.corp.example.com": not allowed'),
    'Cannot use host "${API_HOST}": not allowed',
  );
  assert.equal(redact("https://BILLING-INTERNAL-X7Q.CORP.EXAMPLE.COM:8443/"), "https://${API_HOST}:8443/");
  assert.equal(redact("key SK-LIVE-42ABC, key sk-live-42abc, key sk-Live-42abc"), "key ${KEY}, key ${KEY}, key ${KEY}");
  // Letters that case-fold to more or fewer units, or by their context, still fold one for one.
  const greek = redactor(new Map([["ΟΔΟΣ-İSTANBUL-Σ1", "G"]]));
  assert.equal(greek("at οδοσ-istanbul-σ1 and ΟΔΟΣ-İSTANBUL-Σ1."), "at ${G} and ${G}.");
});

Deno.test("redactor() hides a value in the forms percent-encoding writes it, with either case of hex digit", () => {
  const redact = redactor(new Map([["p@ss word/ü", "PASS"], ["https://h.example/a b?q=ü", "URL"]]));
  assert.equal(redact("user:p%40ss%20word%2F%C3%BC@h"), "user:${PASS}@h");
  assert.equal(redact("user:p%40ss%20word%2f%c3%bc@h"), "user:${PASS}@h");
  assert.equal(redact(`fetch ${new URL("https://h.example/a b?q=ü").href} refused`), "fetch ${URL} refused");
  // A lone surrogate has no such form; the value itself is still hidden.
  assert.equal(redactor(new Map([["abc\ud800", "S"]]))("x abc\ud800 y"), "x ${S} y");
});

Deno.test("redactor() matches a start before a cut only as written, so a file's text cannot test a value's start in any case", () => {
  const redact = redactor(new Map([["Secret-Token-Value", "TOKEN"]]));
  assert.equal(redact('"Secret-Tok…"'), '"${TOKEN}…"');
  assert.equal(redact('"secret-tok…"'), '"secret-tok…"');
});

Deno.test("fold() keeps every code point's length and folds a value alone as inside a text", () => {
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    if (fold(char).length !== char.length) assert.fail(`U+${cp.toString(16)} folds to ${fold(char).length} units`);
  }
  assert.equal(fold("ΟΔΟΣ"), fold("ΟΔΟΣΑ").slice(0, 4));
  assert.equal(fold("İ"), "i");
});

Deno.test("redactor() hides a value a message upper- or lower-cased whatever letters it holds: ß as SS, ſ as S, İ as i̇", () => {
  // Each holds letters whose upper case folds back to another letter (ſ ı ς µ ᲀ ẛ), or is longer (ß ﬁ ŉ), or whose
  // lower case is longer (İ): a message that re-cased the value wrote none of them as the value has them.
  const values = ["Große-Geheimnis-7", "ſecret-ıd-ς-µ-ᲀ-ẛ", "İSTANBUL-KEY-1", "ﬁle-ŉ-token"];
  const redact = redactor(new Map(values.map((value, i) => [value, `V${i}`])));
  for (const [i, value] of values.entries()) {
    for (const shown of [value, value.toUpperCase(), value.toLowerCase(), value.toUpperCase().toLowerCase()]) {
      assert.equal(redact(`at ${shown}.`), `at \${V${i}}.`, shown);
    }
  }
});

Deno.test("redactor() hides a value URL parsing percent-encoded in any part of a URL, and a URL value as its href", () => {
  const value = "p&w@rd:x/y?z#f|g'h\"i<j>k`l{m}n^o[p]q;s=t$u+v,w!x(y)z~ ü\u0001";
  const url = "https://user:p&w@rd@h.example/a b|c?q=it's a";
  const redact = redactor(new Map([[value, "V"], [url, "U"]]));
  const at = (base: string, set: (u: URL) => void) => {
    const u = new URL(base);
    set(u);
    return u;
  };
  const parts: [string, string][] = [
    [
      at("https://h.example/", (u) => u.password = value).href,
      at("https://h.example/", (u) => u.password = value).password,
    ],
    [
      at("https://h.example/", (u) => u.pathname = `/${value}`).href,
      at("https://h.example/", (u) => u.pathname = `/${value}`).pathname.slice(1),
    ],
    [
      at("https://h.example/", (u) => u.search = value).href,
      at("https://h.example/", (u) => u.search = value).search.slice(1),
    ],
    [
      at("foo://h.example/", (u) => u.search = value).href,
      at("foo://h.example/", (u) => u.search = value).search.slice(1),
    ],
    [
      at("https://h.example/", (u) => u.hash = value).href,
      at("https://h.example/", (u) => u.hash = value).hash.slice(1),
    ],
  ];
  const form = new URLSearchParams({ k: value }).toString();
  parts.push([form, form.slice(2)]);
  for (const [shown, part] of parts) assert.equal(redact(`fetch ${shown}`), `fetch ${shown.replace(part, "${V}")}`);
  assert.equal(redact(`fetch ${new URL(url).href} refused`), "fetch ${U} refused");
  assert.equal(redact(`fetch ${new URL(url.toUpperCase().replace("HTTPS", "https")).href}`), "fetch ${U}");
});

Deno.test("redactor() hides a start before a cut only where it stands for three characters or more of the value", () => {
  // "%2F" is three units of a form but one character of the value: hidden, it would answer whether the value starts
  // with "/" to a file that wrote "%2F…", a guess of one character where the value itself asks for three.
  const redact = redactor(new Map([["/srv/secret-dir", "DIR"], ["ü-secret-value", "U"], ['"ab-secret', "Q"]]));
  assert.equal(redact('"x %2F…" "x %2Fs…" "x %2Fsr…"'), '"x %2F…" "x %2Fs…" "x ${DIR}…"');
  assert.equal(redact('"%C3%BC…" "%c3%bc-…" "%C3%BC-s…"'), '"%C3%BC…" "%c3%bc-…" "${U}…"');
  assert.equal(redact('"\\"a…" "\\"ab…"'), '"\\"a…" "${Q}…"');
  // Whole forms and starts as the value writes them are hidden as before.
  assert.equal(redact("/srv/secret-dir %2Fsrv%2Fsecret-dir /sr…"), "${DIR} ${DIR} ${DIR}…");
});

Deno.test("redactor() names a value by the variable that holds it in that letter case", () => {
  const redact = redactor(new Map([["abc-token", "LOWER"], ["ABC-TOKEN", "UPPER"]]));
  assert.equal(redact("ABC-TOKEN abc-token Abc-Token"), "${UPPER} ${LOWER} ${LOWER}");
});

Deno.test("fold() folds every letter as its upper and its lower case fold, where those keep its length", () => {
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    for (const recased of [char.toUpperCase(), char.toLowerCase()]) {
      if (recased.length === char.length && fold(recased) !== fold(char)) {
        assert.fail(`U+${cp.toString(16)} folds to ${fold(char)}, its other case ${recased} to ${fold(recased)}`);
      }
    }
  }
});

Deno.test("redactor() hides a value of letters in another case only where it is not part of a longer word", () => {
  // Measured through the Loader: METHOD=PUT turned "Invalid input: expected string" into "Invalid in${METHOD}: …".
  const redact = redactor(new Map([["PUT", "METHOD"], ["GET", "VERB"], ["Straße", "S"], ["sk-Live-42abc", "KEY"]]));
  assert.equal(redact("Invalid input: expected string, target"), "Invalid input: expected string, target");
  assert.equal(redact('method "put", get. STRASSE/x PUT'), 'method "${METHOD}", ${VERB}. ${S}/x ${METHOD}');
  // As written it is hidden anywhere, as before; a value that is more than letters is hidden in any case anywhere.
  assert.equal(redact("inPUT xSK-LIVE-42ABCx"), "in${METHOD} x${KEY}x");
});
