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
