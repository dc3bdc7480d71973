import assert from "node:assert/strict";
import { redactor } from "./_redact.ts";

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
