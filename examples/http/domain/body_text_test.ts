import assert from "node:assert/strict";
import { bodyText } from "./body_text.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

Deno.test("bodyText() decodes UTF-8 when the type is text and no charset is given", () => {
  assert.deepEqual(bodyText(utf8("héllo"), "text/plain"), { text: "héllo", binary: false, encoding: "utf-8" });
  assert.deepEqual(bodyText(utf8('{"a":"é"}'), "application/json"), {
    text: '{"a":"é"}',
    binary: false,
    encoding: "utf-8",
  });
});

Deno.test("bodyText() decodes the declared charset: Latin-1, UTF-16, quoted labels", () => {
  assert.equal(bodyText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "text/html; charset=ISO-8859-1").text, "café");
  assert.equal(bodyText(new Uint8Array([0x68, 0, 0x69, 0]), 'text/plain; charset="utf-16le"').text, "hi");
  assert.equal(bodyText(new Uint8Array([0x82, 0xa0]), "text/plain;charset=shift_jis").text, "あ");
});

Deno.test("bodyText() treats +json, +xml and SVG as text, and any type with a charset", () => {
  assert.equal(bodyText(utf8("{}"), "application/problem+json").binary, false);
  assert.equal(bodyText(utf8("<svg/>"), "image/svg+xml").binary, false);
  assert.equal(bodyText(utf8("<a/>"), "application/atom+xml; charset=utf-8").binary, false);
  assert.equal(bodyText(utf8("x=1"), "application/vnd.custom; charset=utf-8").text, "x=1");
});

Deno.test("bodyText() describes binary types instead of returning mojibake", () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]);
  assert.deepEqual(bodyText(png, "image/png"), {
    text: '[body not shown: binary content; 6 bytes of "image/png"]',
    binary: true,
  });
  assert.equal(bodyText(utf8("PK"), "application/zip").binary, true);
  assert.equal(bodyText(utf8("plain"), "application/octet-stream").binary, true, "a declared binary type wins");
});

Deno.test("bodyText() sniffs an unknown or missing type: valid UTF-8 without NUL is text", () => {
  assert.deepEqual(bodyText(utf8("plain ünïcode"), null), { text: "plain ünïcode", binary: false, encoding: "utf-8" });
  assert.equal(bodyText(utf8("k: v"), "application/vnd.unknown").text, "k: v");
  assert.deepEqual(bodyText(new Uint8Array([0x61, 0, 0x62]), null), {
    text: "[body not shown: binary content; 3 bytes of an unknown type]",
    binary: true,
  });
  assert.equal(bodyText(new Uint8Array([0xff, 0xfe, 0x41]), "application/vnd.unknown").binary, true);
});

Deno.test("bodyText() describes a charset the runtime does not know instead of guessing", () => {
  assert.deepEqual(bodyText(utf8("abc"), "text/plain; charset=utf-7"), {
    text: '[body not shown: the charset "utf-7" is not supported; 3 bytes of "text/plain"]',
    binary: true,
  });
});

Deno.test("bodyText() drops a character cut by the byte cap instead of emitting U+FFFD", () => {
  const cut = utf8("aé").subarray(0, 2); // "a" and the first byte of "é"
  assert.equal(bodyText(cut, "text/plain").text, "a");
  assert.equal(bodyText(cut, null).text, "a", "a sniffed body too");
});

Deno.test("bodyText() strips a UTF-8 byte-order mark and keeps invalid bytes of a declared text visible", () => {
  assert.equal(bodyText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), "text/plain").text, "a");
  assert.equal(bodyText(new Uint8Array([0x61, 0xff, 0x62]), "text/plain").text, "a\ufffdb");
});

Deno.test("bodyText() gives the size it is told in a note, and the encoding of a text", () => {
  const note = bodyText(new Uint8Array([0]), "image/png", { size: "more than max_bytes" }).text;
  assert.equal(note, '[body not shown: binary content; more than max_bytes of "image/png"]');
  assert.equal(bodyText(new Uint8Array([0x61, 0, 0x62]), "text/plain; charset=utf-16le").encoding, "utf-16le");
});

Deno.test("bodyText() cuts a hostile content type short in its note", () => {
  const note = bodyText(new Uint8Array([0]), `image/${"x".repeat(10_000)}`).text;
  assert.ok(note.length < 200, note.slice(0, 300));
});

Deno.test("bodyText() of a sniffed body decodes what was read after it on from it, leniently when that part is not UTF-8", () => {
  // "h" and the first byte of "é": the cut holds the character back; what was read after completes it.
  const cut = new Uint8Array([0x68, 0xc3]);
  assert.deepEqual(bodyText(cut, null, { after: new Uint8Array([0xa9, 0x21]) }), {
    text: "h",
    binary: false,
    after: "é!",
    encoding: "utf-8",
  });
  // Bytes after that are not UTF-8 leave the body text: they show as U+FFFD, as a declared text's do.
  assert.deepEqual(bodyText(cut, null, { after: new Uint8Array([0xa9, 0xff]) }), {
    text: "h",
    binary: false,
    after: "é\ufffd",
    encoding: "utf-8",
  });
});
