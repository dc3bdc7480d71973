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
