import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { revision } from "./revision.ts";

Deno.test("revision() accepts branch names, hashes and revision syntax", () => {
  for (const ok of ["main", "HEAD~2", "v1.0^{commit}", "feature/x", "a1b2c3d", "HEAD@{1}"]) {
    assert.equal(revision("ref", ok), ok);
  }
});

Deno.test("revision() refuses options, paths, whitespace and oversize text", () => {
  for (const bad of ["--output=/tmp/x", "-p", "HEAD:secret", "a b", "a\tb", "", "x".repeat(257)]) {
    assert.throws(() => revision("ref", bad), PolicyError, JSON.stringify(bad));
  }
});
