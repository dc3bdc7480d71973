import assert from "node:assert/strict";
import { quote } from "@forge/toolkit/validate";
import { HIDDEN, MAX_CREDENTIAL_LENGTH, SecretFilter } from "./secret_filter.ts";

const SECRET = 'ab/c"d+é=t0k';
const utf8 = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) new DataView(bytes.buffer).setUint16(i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

/** A body as `fetchText` shows it: read up to `max + reach` bytes, filtered as bytes, decoded, filtered and cut. */
function shownBody(
  filter: SecretFilter,
  body: string | Uint8Array,
  max: number,
  charset = "utf-8",
): { text: string; cut: boolean } {
  const all = typeof body === "string" ? utf8(body) : body;
  const read = all.subarray(0, max + filter.reach);
  const whole = read.length === all.length;
  const bytes = filter.cutBytes(read, { max, whole });
  const decoder = new TextDecoder(charset);
  const shown = decoder.decode(bytes.shown, { stream: true });
  const rest = decoder.decode(bytes.rest, { stream: true });
  const text = filter.cutText(shown, { rest, max, whole, encoding: decoder.encoding });
  return { text: text.text, cut: text.cut };
}

Deno.test("SecretFilter.text() hides a credential as itself, percent-encoded in either case, and JSON-escaped", () => {
  const filter = new SecretFilter([SECRET]);
  for (
    const shown of [
      SECRET,
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).toLowerCase().replace("%c3%a9", "%C3%a9"),
      JSON.stringify(SECRET).slice(1, -1),
      "ab%2Fc%22d%2B%C3%A9%3Dt0k",
      '\\u0061b/c\\"d+\\u00e9=t0k',
    ]
  ) {
    assert.equal(filter.text(`x ${shown} y`), `x ${HIDDEN} y`, shown);
  }
  assert.equal(filter.text("ab/c nothing secret"), "ab/c nothing secret");
});

Deno.test("SecretFilter.text() hides a credential JSON-escaped as PHP writes it, with \\/ for /, nested too", () => {
  const token = "dGhpcy1pcy1hLXNlY3JldA/Zm9vL2Jhcg==";
  const filter = new SecretFilter([token]);
  const php = (value: unknown) => JSON.stringify(value).replaceAll("/", "\\/");
  assert.equal(
    filter.text(php({ authorization: `Bearer ${token}` })),
    '{"authorization":"Bearer [hidden credential]"}',
  );
  // PHP's JSON nested in PHP's JSON writes "/" as "\\\/" (a red team's finding: it was shown).
  const nested = php({ log: php({ Authorization: `Bearer ${token}` }) });
  assert.ok(nested.includes("\\\\\\/"), nested);
  assert.equal(filter.text(nested), '{"log":"{\\"Authorization\\":\\"Bearer [hidden credential]\\"}"}');
  // quote() escapes the backslash again when a message shows such a value.
  assert.equal(filter.text(quote(`x ${php(token)}`, 200)), `"x \\"${HIDDEN}\\""`);
});

Deno.test("SecretFilter.text() never hides a part of a credential: a probe reads the same whether or not it is one", () => {
  // The model sends one candidate per next character and reads which comes back hidden: none may.
  const secret = 'gR7x/2Kq9"LmZ4';
  const filter = new SecretFilter([secret], (text) => text.replaceAll(secret, "${API_TOKEN}"));
  const forms = (value: string) => [
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1).replaceAll("/", "\\/"),
    quote(value, 200).slice(1, -1),
  ];
  for (let n = 1; n < secret.length; n++) {
    const prefix = secret.slice(0, n);
    const wrong = prefix.slice(0, -1) + (prefix.at(-1) === "z" ? "y" : "z");
    for (const candidate of [prefix, wrong]) {
      for (const form of forms(candidate)) {
        for (const probe of [`<${form}…>`, `q=${form}…`, quote(`${"p".repeat(10)}${form}${"x".repeat(40)}`, 10 + n)]) {
          assert.equal(filter.text(probe), probe, probe);
        }
      }
    }
  }
  assert.equal(filter.text(`<${secret}…>`), "<${API_TOKEN}…>", "the whole value is hidden, followed by … or not");
});

Deno.test("SecretFilter cuts a body the same wherever the cut falls in a candidate, a true start or not", () => {
  // A body that echoes the model's query, padded so that the cap falls anywhere in the candidate: what is shown is
  // the body cut, whether or not the candidate starts the credential.
  const secret = "gR7x2Kq9LmZ4vTn8WcY1";
  const filter = new SecretFilter([secret]);
  for (let n = 1; n < secret.length; n++) {
    const prefix = secret.slice(0, n);
    const wrong = prefix.slice(0, -1) + (prefix.at(-1) === "z" ? "y" : "z");
    for (const candidate of [prefix, wrong]) {
      for (const form of [candidate, encodeURIComponent(candidate), JSON.stringify(candidate).slice(1, -1)]) {
        const body = `{"q":"${"p".repeat(7)}${form}"}`;
        for (let max = 8; max <= body.length; max++) {
          assert.deepEqual(shownBody(filter, body, max), { text: body.slice(0, max), cut: max < body.length }, body);
        }
      }
    }
  }
});

Deno.test("SecretFilter shows a credential that spans the cut whole, as its placeholder, in every byte form", () => {
  const filter = new SecretFilter([SECRET]);
  const pad = "p".repeat(9);
  const latin1 = new Uint8Array([...SECRET].map((c) => c.charCodeAt(0)));
  const forms: [string, Uint8Array, Uint8Array, number][] = [
    ["utf-8", utf8(SECRET), utf8(pad), 1],
    ["windows-1252", latin1, utf8(pad), 1],
    ["utf-16le", utf16(SECRET, true), utf16(pad, true), 2],
    ["utf-16be", utf16(SECRET, false), utf16(pad, false), 2],
  ];
  for (const [charset, secret, padding, unit] of forms) {
    const body = new Uint8Array([...padding, ...secret, ...padding]);
    // The cap counts the body as shown: the padding, then the placeholder, which a cut never splits.
    for (let max = padding.length + 1; max < padding.length + unit * HIDDEN.length; max++) {
      assert.deepEqual(
        shownBody(filter, body, max, charset),
        { text: `${pad}${HIDDEN}`, cut: true },
        `${charset} ${max}`,
      );
    }
    assert.deepEqual(shownBody(filter, body, 1000, charset), { text: `${pad}${HIDDEN}${pad}`, cut: false });
  }
});

Deno.test("SecretFilter.cutText() shows an escaped credential that spans the cut whole, as its placeholder", () => {
  const secret = "t0k/en=é😀\\x";
  const filter = new SecretFilter([secret]);
  const forms = [
    encodeURIComponent(secret),
    encodeURIComponent(secret).toLowerCase(),
    JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"),
    Array.from({ length: secret.length }, (_, i) => `\\u${secret.charCodeAt(i).toString(16).padStart(4, "0")}`).join(
      "",
    ),
  ];
  const pad = "p".repeat(10);
  for (const form of forms) {
    for (let n = 1; n < HIDDEN.length; n++) {
      assert.deepEqual(filter.cutText(`${pad}${form} after`, { max: pad.length + n, whole: true }), {
        text: `${pad}${HIDDEN}`,
        cut: true,
      });
    }
  }
});

Deno.test("SecretFilter cuts a body read only in part before what could be a credential's start, whatever it holds", () => {
  // When the body goes on past what was read, the bytes where a byte form could start and go on past what was read
  // are left unfiltered, and the text is cut at the cap, far before them: the same for a start of the credential as
  // for any other text.
  const secret = "secret-value-1234";
  const filter = new SecretFilter([secret]);
  const max = 1_000;
  for (const tail of [secret.slice(0, 9), "zzzzzzzzz"]) {
    const read = utf8(`${"p".repeat(max + filter.reach - tail.length)}${tail}`);
    const bytes = filter.cutBytes(read, { max, whole: false });
    assert.equal(decode(bytes.shown), "p".repeat(read.length - 2 * MAX_CREDENTIAL_LENGTH + 1));
    assert.equal(bytes.cut, true);
    const text = filter.cutText(decode(bytes.shown), { rest: decode(bytes.rest), max, whole: false });
    assert.deepEqual(text, { text: "p".repeat(max), cut: true });
  }
  // Read in full, nothing is held back.
  assert.deepEqual(filter.cutText("abc", { max: 1000, whole: true }), { text: "abc", cut: false });
});

Deno.test("SecretFilter reads and cuts a body the same whatever the credentials' lengths: no cut tells a length", () => {
  // A red team read a token's length back in about 12 fetches: the reach grew with it, and in a charset that decodes
  // four bytes to one character an echo's cut moved with it. Reach and cut now follow MAX_CREDENTIAL_LENGTH alone.
  const filters = [3, 38, 1_000].map((n) => new SecretFilter(["k".repeat(n)]));
  assert.deepEqual(new Set(filters.map((filter) => filter.reach)).size, 1);
  const repeat = (unit: number[], times: number) => new Uint8Array(Array.from({ length: times }, () => unit).flat());
  const bodies: [string, Uint8Array][] = [
    ["utf-8", utf8("p".repeat(150_000))],
    ["utf-16le", utf16("p".repeat(75_000), true)],
    // Four bytes a character: GB18030's four-byte U+0080, and ISO-2022-JP's "a" each after an escape to ASCII.
    ["gb18030", repeat([0x81, 0x30, 0x81, 0x30], 40_000)],
    ["iso-2022-jp", repeat([0x1b, 0x28, 0x42, 0x61], 40_000)],
  ];
  for (const [charset, body] of bodies) {
    for (const max of [1_000, 50_000]) {
      const shown = filters.map((filter) => shownBody(filter, body, max, charset));
      for (const each of shown) assert.deepEqual(each, shown[0], `${charset}, max ${max}`);
      assert.equal(shown[0].cut, true);
    }
  }
});

Deno.test("SecretFilter shows a body that holds a credential the same whatever its length, but for the placeholder", () => {
  // A red team read a token's length from one fetch of an echo: the cap counted the body as read, the credential
  // in it, so what followed its placeholder was the cap less its length (and `truncated` flipped with it). The cap
  // counts the body as shown; a body read in part is shown as far as it would be for the longest credential.
  const lengths = [13, 40, 116, 2_000];
  const alphabet = "A1b2C3d4E5f6G7h8";
  const tokens = lengths.map((n) => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + n) % 16]).join(""));
  const iso2022jp = (text: string) => {
    const bytes = new Uint8Array(4 * text.length);
    for (let i = 0; i < text.length; i++) bytes.set([0x1b, 0x28, 0x42, text.charCodeAt(i)], 4 * i);
    return bytes;
  };
  const encodings: [string, (text: string) => Uint8Array][] = [
    ["utf-8", utf8],
    ["utf-16le", (text) => utf16(text, true)],
    ["iso-2022-jp", iso2022jp],
  ];
  // An echo of the request's headers, as httpbin's /headers and /stream write them: the credential, then the pad.
  const echo = (token: string, pad: number, times: number) =>
    `{"headers":{"authorization":"Bearer ${token}","x-pad":"${"p".repeat(pad)}"}}\n`.repeat(times);
  // Cut, and whole at 1 MiB; a stream of 120 echoes (a credential counts as the longest: cut before the cap), and a
  // body read in part.
  const bodies: [string, number, number, number[]][] = [
    ["one echo", 4_000, 1, [100, 4_096, 1_048_576]],
    ["a stream", 1_000, 120, [4_096, 50_000]],
    ["a long one", 4_000, 60, [100, 50_000]],
  ];
  for (const [charset, encode] of encodings) {
    for (const [label, pad, times, maxes] of bodies) {
      const sent = tokens.map((token) => ({
        filter: new SecretFilter([token]),
        body: encode(echo(token, pad, times)),
      }));
      for (const max of maxes) {
        const seen = sent.map(({ filter, body }) => {
          const bytes = filter.cutBytes(body.subarray(0, max + filter.reach), {
            max,
            whole: body.length <= max + filter.reach,
          });
          // A note (a body not decoded) says what cutBytes found: the credential's bytes, as ISO-2022-JP's are not.
          const note = charset === "iso-2022-jp" ? [] : [bytes.cut, bytes.hidden > 0];
          return { ...shownBody(filter, body, max, charset), note };
        });
        const what = `${charset}, ${label}, max ${max}`;
        for (const each of seen) assert.deepEqual(each, seen[0], what);
        assert.ok(seen[0].text.includes(HIDDEN) || seen[0].text.length < 40, what);
        if (max === 100) assert.equal(seen[0].cut, true, what);
        if (max === 1_048_576 && label === "one echo") assert.equal(seen[0].cut, false, what);
      }
    }
  }
});

Deno.test("SecretFilter.cutText() holds no text back from a body read in part whose characters no form holds", () => {
  // CJK in UTF-8 takes three bytes a character: held back by a whole form's length, a body cut at 30,000 bytes
  // would show nothing. A form is visible ASCII and ends before any such character.
  const filter = new SecretFilter(["secret-value-1234"]);
  const max = 30_000;
  assert.deepEqual(shownBody(filter, "漢".repeat(100_000), max), { text: "漢".repeat(max / 3), cut: true });
  assert.deepEqual(shownBody(filter, "ab ".repeat(100_000), max, "utf-8"), {
    text: "ab ".repeat(max / 3),
    cut: true,
  });
});

Deno.test("SecretFilter hides a credential of MAX_CREDENTIAL_LENGTH characters and refuses a longer one unquoted", () => {
  // Its pattern must compile: one of about 7,000 characters overflows the regular expression parser's stack.
  const longest = "k".repeat(MAX_CREDENTIAL_LENGTH);
  assert.equal(new SecretFilter([longest]).text(`a ${longest} b`), `a ${HIDDEN} b`);
  assert.throws(() => new SecretFilter([`${longest}x`]), (err: Error) => {
    assert.ok(err instanceof RangeError);
    assert.match(err.message, new RegExp(`^Cannot hide a credential of ${MAX_CREDENTIAL_LENGTH + 1} characters`));
    assert.ok(!err.message.includes("kkk"));
    return true;
  });
});

Deno.test("SecretFilter.reach covers every form a credential is hidden in, as text in UTF-16 too", () => {
  const filter = new SecretFilter(['a/"\\é']);
  // The longest text form of the longest credential is "\\u0061…", 7 characters each, which UTF-16 writes in 2 bytes
  // each; its longest byte form, UTF-16, 2 bytes a character.
  assert.ok(filter.reach >= 2 * 7 * MAX_CREDENTIAL_LENGTH + 2 * MAX_CREDENTIAL_LENGTH, `${filter.reach}`);
  assert.equal(new SecretFilter([]).reach, 0);
});

Deno.test("SecretFilter never makes a body grow past its cap by placeholders longer than what they hide", () => {
  // A red team's 4 MiB body became a 172 MB reply through "${NAME}…" replacements; whole values still grow.
  const secret = "abc";
  const name = "${A_VERY_LONG_NAME_FOR_A_SHORT_CREDENTIAL}";
  const filter = new SecretFilter([secret], (text) => text.replaceAll(secret, name));
  const max = 10_000;
  const body = shownBody(filter, secret.repeat(4 * max), max);
  assert.ok(body.text.length <= max + name.length, `${body.text.length}`);
  assert.ok(body.text.endsWith(name), "no placeholder is cut");
  assert.equal(body.cut, true);
  // As bytes, a body stops growing at twice what was read.
  const read = utf16(secret.repeat(max), true);
  const bytes = filter.cutBytes(read, { max, whole: true });
  assert.ok(bytes.shown.length <= 2 * read.length + 2 * name.length, `${bytes.shown.length}`);
  assert.equal(bytes.cut, true);
  // Its first character followed by "…" (the form of the red team's body) is not a credential and does not grow.
  const ellipses = `a…`.repeat(max);
  assert.deepEqual(shownBody(filter, ellipses, 5 * max), { text: ellipses, cut: false });
});

Deno.test("SecretFilter.fit() cuts a filtered text without splitting a placeholder or a surrogate pair", () => {
  const filter = new SecretFilter([SECRET], (text) => text.replaceAll(SECRET, "${API_TOKEN}"));
  assert.equal(filter.fit("ab${API_TOKEN}cd", 5), "ab${API_TOKEN}");
  assert.equal(filter.fit(`ab${HIDDEN}`, 3), `ab${HIDDEN}`);
  assert.equal(filter.fit("a😀b", 2), "a");
  assert.equal(filter.fit("short", 10), "short");
});

Deno.test("SecretFilter.text() shows a credential by the name redact gives it, and ignores values under 3 characters", () => {
  const filter = new SecretFilter([SECRET, "ab"], (text) => text.replaceAll(SECRET, "${API_TOKEN}"));
  assert.equal(filter.text(`a=${SECRET}&b=${encodeURIComponent(SECRET)}`), "a=${API_TOKEN}&b=${API_TOKEN}");
  assert.equal(filter.text("ab"), "ab");
});

Deno.test("SecretFilter.cutBytes() of a whole body hides a credential's UTF-8, Latin-1, UTF-16LE and UTF-16BE bytes at any offset", () => {
  const filter = new SecretFilter([SECRET]);
  const whole = (body: Uint8Array) => filter.cutBytes(body, { max: body.length, whole: true }).shown;
  const latin1 = new Uint8Array([...SECRET].map((c) => c.charCodeAt(0)));
  const forms = [utf8(SECRET), latin1, utf16(SECRET, true), utf16(SECRET, false)];
  const hidden = [utf8(HIDDEN), utf8(HIDDEN), utf16(HIDDEN, true), utf16(HIDDEN, false)];
  forms.forEach((form, i) => {
    const body = new Uint8Array([0x78, ...form, 0x79]);
    assert.deepEqual(whole(body), new Uint8Array([0x78, ...hidden[i], 0x79]), `form ${i}`);
  });
  const plain = utf8("nothing to hide");
  assert.equal(whole(plain), plain);
  // A start of it is a start, not the credential: shown as it is.
  const start = utf8(`x ${SECRET.slice(0, 5)}`);
  assert.equal(whole(start), start);
});

Deno.test("SecretFilter.value() and error() filter every string of a result and an error's message, keeping its class", () => {
  const filter = new SecretFilter([SECRET]);
  assert.deepEqual(filter.value({ a: [SECRET, 1, null], b: { c: `x${SECRET}` }, d: true }), {
    a: [HIDDEN, 1, null],
    b: { c: `x${HIDDEN}` },
    d: true,
  });
  const err = filter.error(new RangeError(`Cannot fetch "${SECRET}"`));
  assert.ok(err instanceof RangeError);
  assert.equal(err.message, `Cannot fetch "${HIDDEN}"`);
});

Deno.test("SecretFilter.text() hides a whole credential whose letters changed case, as a URL's parsed host has them", () => {
  const token = "gR7x2Kq9LmZ4vTn8WcY1bH5dJ6sP3fA0eUoIi";
  const filter = new SecretFilter([token], (text) => text.replaceAll(token, "${API_TOKEN}"));
  // A redirect to http://<token>.example/: the refusal quotes the host URL parsing lower-cased.
  const host = new URL(`http://${token}.example/`).hostname;
  assert.equal(host, `${token.toLowerCase()}.example`);
  assert.equal(filter.text(`the host ${quote(host)} is not allowed`), 'the host "${API_TOKEN}.example" is not allowed');
  for (
    const shown of [token.toUpperCase(), encodeURIComponent(token.toLowerCase()), JSON.stringify(token.toLowerCase())]
  ) {
    assert.ok(!filter.text(shown).toLowerCase().includes(token.toLowerCase()), shown);
  }
  // Still whole only: a start of it in any case is shown as it is.
  for (const part of [token.slice(0, 10), token.toLowerCase().slice(0, 30)]) {
    assert.equal(filter.text(`${part}…`), `${part}…`);
  }
});

Deno.test("SecretFilter.text() hides a credential in the form a URL's host gives it: punycode, an IPv4 address, whole only", () => {
  // A redirect to http://<credential>.evil.example/ is refused quoting the host as URL parsing wrote it.
  const token = "gR7x%C3%A9Kq9-LmZ4vTn8";
  const digits = "3232235777";
  const filter = new SecretFilter([token, digits], (text) => text.replaceAll(token, "${API_TOKEN}"));
  const host = new URL(`http://${token}.evil.example/`).hostname;
  assert.ok(host.startsWith("xn--"), host);
  assert.equal(
    filter.text(`the host ${quote(host)} is not allowed`),
    'the host "${API_TOKEN}.evil.example" is not allowed',
  );
  assert.equal(filter.text(host.toUpperCase()), "${API_TOKEN}.EVIL.EXAMPLE");
  assert.equal(filter.text(new URL(`http://${digits}/`).hostname), HIDDEN);
  // A part of a host form is shown as it is, as a part of the credential is.
  const form = host.slice(0, -".evil.example".length);
  for (const part of [form.slice(0, -1), form.slice(4), "192.168.1"]) assert.equal(filter.text(`${part}…`), `${part}…`);
  // A value the host would hold only a part of has no host form: hiding that part would be an oracle.
  const slashed = new SecretFilter(["ab%C3%A9/cd"]);
  assert.equal(slashed.text(new URL("http://ab%C3%A9/cd").hostname), new URL("http://ab%C3%A9/cd").hostname);
});
