import assert from "node:assert/strict";
import { quote } from "@forge/toolkit/validate";
import { HIDDEN, SecretFilter } from "./secret_filter.ts";

const SECRET = 'ab/c"d+é=t0k';

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

Deno.test("SecretFilter.text() hides the start of a credential that quote() cut short", () => {
  const filter = new SecretFilter([SECRET]);
  const message = `Cannot fetch: ${quote(`${"p".repeat(50)}${SECRET}`, 55)}`;
  assert.ok(message.includes("ab/c"));
  assert.equal(filter.text(message), `Cannot fetch: "${"p".repeat(50)}${HIDDEN}…"`);
});

Deno.test("SecretFilter.text() hides a credential JSON-escaped as PHP writes it, with \\/ for /", () => {
  const token = "dGhpcy1pcy1hLXNlY3JldA/Zm9vL2Jhcg==";
  const filter = new SecretFilter([token]);
  const php = JSON.stringify({ authorization: `Bearer ${token}` }).replaceAll("/", "\\/");
  assert.equal(filter.text(php), '{"authorization":"Bearer [hidden credential]"}');
  // quote() escapes the backslash again when a message shows such a value.
  assert.equal(filter.text(quote(`x ${JSON.stringify(token).replaceAll("/", "\\/")}`, 200)), `"x \\"${HIDDEN}\\""`);
});

Deno.test("SecretFilter.text() hides the start of a credential wherever a cut falls, inside an escape too", () => {
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
    // The first character whole is the least a cut shows of the credential.
    const first = form.startsWith("\\") ? 6 : 1;
    for (let n = first; n < form.length; n++) {
      for (const shown of [`${pad}${form.slice(0, n)}…`, quote(`${pad}${form}`, pad.length + n)]) {
        const filtered = filter.text(shown);
        assert.ok(filtered.includes(`${pad}${HIDDEN}…`), `${shown} -> ${filtered}`);
      }
      assert.equal(filter.text(`${pad}${form.slice(0, n)}`, true), `${pad}${HIDDEN}`, form.slice(0, n));
    }
  }
  assert.equal(filter.text("t0 nothing…"), "t0 nothing…");
  assert.equal(filter.text("at the end t0k%2"), "at the end t0k%2");
  assert.equal(filter.text("at the end z", true), "at the end z");
});

Deno.test("SecretFilter.text() shows a credential by the name redact gives it, and ignores values under 3 characters", () => {
  const filter = new SecretFilter([SECRET, "ab"], (text) => text.replaceAll(SECRET, "${API_TOKEN}"));
  assert.equal(filter.text(`a=${SECRET}&b=${encodeURIComponent(SECRET)}`), "a=${API_TOKEN}&b=${API_TOKEN}");
  assert.equal(filter.text("ab"), "ab");
});

Deno.test("SecretFilter.bytes() hides a credential's UTF-8, Latin-1, UTF-16LE and UTF-16BE bytes at any offset", () => {
  const filter = new SecretFilter([SECRET]);
  const utf16 = (text: string, le: boolean) => {
    const bytes = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) new DataView(bytes.buffer).setUint16(i * 2, text.charCodeAt(i), le);
    return bytes;
  };
  const latin1 = new Uint8Array([...SECRET].map((c) => c.charCodeAt(0)));
  const forms = [new TextEncoder().encode(SECRET), latin1, utf16(SECRET, true), utf16(SECRET, false)];
  const hidden = [
    new TextEncoder().encode(HIDDEN),
    new TextEncoder().encode(HIDDEN),
    utf16(HIDDEN, true),
    utf16(HIDDEN, false),
  ];
  forms.forEach((form, i) => {
    const body = new Uint8Array([0x78, ...form, 0x79]);
    assert.deepEqual(filter.bytes(body, false), new Uint8Array([0x78, ...hidden[i], 0x79]), `form ${i}`);
  });
  const plain = new TextEncoder().encode("nothing to hide");
  assert.equal(filter.bytes(plain, false), plain);
});

Deno.test("SecretFilter.bytes() hides a credential's start at the end of a cut body only", () => {
  const filter = new SecretFilter([SECRET]);
  const body = new TextEncoder().encode(`x ${SECRET.slice(0, 5)}`);
  assert.equal(new TextDecoder().decode(filter.bytes(body, true)), `x ${HIDDEN}`);
  assert.equal(filter.bytes(body, false), body);
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
