import assert from "node:assert/strict";
import { TextForms } from "./text_forms.ts";

Deno.test("TextForms.find() finds a whole credential as itself in either case, percent-encoded and JSON-escaped", () => {
  const secret = 'ab/c"d\\é=t0k';
  const forms = new TextForms([secret], [[]]);
  const written = [
    secret,
    secret.toUpperCase(),
    encodeURIComponent(secret),
    encodeURIComponent(secret).toLowerCase(),
    JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"),
    JSON.stringify(JSON.stringify(secret)).slice(3, -3),
    [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    [...secret].map((c) => `\\\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`).join(""),
  ];
  for (const form of written) {
    assert.deepEqual(forms.find(`x ${form} y`, 0), { index: 2, end: 2 + form.length, which: 0 }, form);
  }
});

Deno.test("TextForms.find() never finds a part of a credential, and searches from where it is told", () => {
  const forms = new TextForms(["gR7x2Kq9"], [[]]);
  for (let n = 1; n < 8; n++) assert.equal(forms.find(`<${"gR7x2Kq9".slice(0, n)}…>`, 0), undefined);
  assert.equal(forms.find("gR7x2Kq9", 1), undefined);
  assert.deepEqual(forms.find("gR7x2Kq9 gR7x2Kq9", 1), { index: 9, end: 17, which: 0 });
});

Deno.test("TextForms.find() finds a host form whole in either case, and prefers values in the order given", () => {
  const forms = new TextForms(["secret-long", "secret"], [["xn--scret-bsa"], []]);
  assert.deepEqual(forms.find("a.XN--SCRET-BSA.b", 0), { index: 2, end: 15, which: 0 });
  assert.deepEqual(forms.find("secret-long", 0), { index: 0, end: 11, which: 0 });
  assert.deepEqual(forms.find("secret-lon", 0), { index: 0, end: 6, which: 1 });
});

Deno.test("TextForms.find() takes a run of backslashes in linear time and ends a credential at its furthest end", () => {
  const forms = new TextForms(["a\\b"], [[]]);
  // The backslash written once, as JSON (two) or nested (four): the furthest end wins.
  for (const run of [1, 2, 3, 4]) {
    assert.deepEqual(forms.find(`a${"\\".repeat(run)}b`, 0), { index: 0, end: 2 + run, which: 0 });
  }
  const hostile = `${"\\".repeat(200_000)}${"%".repeat(200_000)}`;
  assert.equal(new TextForms(["\\u0041bc", "%%%x"], [[], []]).find(hostile, 0), undefined);
});
