import assert from "node:assert/strict";
import { parseRaw } from "./raw_changes.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

Deno.test("parseRaw() reads plain, renamed and combined entries, names with tabs and newlines included", () => {
  const raw = `:100644 100644 ${A} ${B} M\0a\tb\0:100644 100644 ${A} ${A} R100\0old\0new\nline\0` +
    `::100644 100644 100644 ${A} ${B} ${Z} MM\0merged\0`;
  assert.deepEqual(parseRaw("app", { stdout: raw, cut: false }), [
    { modes: ["100644", "100644"], oids: [A, B], paths: ["a\tb"] },
    { modes: ["100644", "100644"], oids: [A, A], paths: ["old", "new\nline"] },
    { modes: ["100644", "100644", "100644"], oids: [A, B, Z], paths: ["merged"] },
  ]);
  assert.deepEqual(parseRaw("app", { stdout: "", cut: false }), []);
});

Deno.test("parseRaw() refuses a cut listing and anything that is not git's raw format", () => {
  assert.throws(() => parseRaw("app", { stdout: `:100644 100644 ${A} ${B} M\0a\0`, cut: true }), {
    message: 'Cannot check the sizes of the files a diff in repo "app" reads: it changes too many; name a path',
  });
  for (const stdout of ["a.txt\0", `:100644 ${A} ${B} M\0a\0`, `:100644 100644 ${A} ${B} M\0`]) {
    assert.throws(() => parseRaw("app", { stdout, cut: false }), /it is not git's raw format/, JSON.stringify(stdout));
  }
});
