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

Deno.test("revision() refuses a lone surrogate (git would search U+FFFD, the reply would show the caller's text at six bytes a character), and takes other Unicode", () => {
  for (const bad of ["main\ud800", "\udc00", `@{now${"\ud800".repeat(250)}}`]) {
    assert.throws(() => revision("ref", bad), /must be well-formed Unicode/, JSON.stringify(bad));
  }
  for (const ok of ["café", "v1.0-€", "feature/😀"]) assert.equal(revision("ref", ok), ok);
});
