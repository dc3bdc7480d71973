import assert from "node:assert/strict";
import { ConfigSchema, MAX_BYTES_CEILING } from "./config.ts";

Deno.test("an empty config allows nothing: no roots, no writable roots, no extra deny, 1 MiB reads", () => {
  const parsed = ConfigSchema.parse({});
  assert.deepEqual(parsed, {
    roots: [],
    writable_roots: [],
    deny: [],
    max_bytes: 1024 * 1024,
    allow_hard_links: false,
  });
});

Deno.test('the config refuses unknown keys, so a typo like "root" is an error', () => {
  const result = ConfigSchema.safeParse({ root: ["/srv"] });
  assert.equal(result.success, false);
});

Deno.test("the config refuses a path with a comma, which no Deno flag could grant exactly", () => {
  const result = ConfigSchema.safeParse({ roots: ["/srv/a,b"] });
  assert.equal(result.success, false);
  assert.match(JSON.stringify(result.error?.issues), /comma/);
});

Deno.test("the config refuses a deny glob with a .. segment", () => {
  const result = ConfigSchema.safeParse({ deny: ["../x"] });
  assert.equal(result.success, false);
  assert.match(JSON.stringify(result.error?.issues), /deny glob/);
});

Deno.test("the config refuses max_bytes outside 1..10 MiB and empty paths", () => {
  assert.equal(ConfigSchema.safeParse({ max_bytes: 0 }).success, false);
  assert.equal(ConfigSchema.safeParse({ max_bytes: MAX_BYTES_CEILING + 1 }).success, false);
  assert.equal(ConfigSchema.safeParse({ max_bytes: 16 * 1024 * 1024 }).success, false);
  assert.equal(ConfigSchema.safeParse({ max_bytes: 1.5 }).success, false);
  assert.equal(ConfigSchema.safeParse({ roots: [""] }).success, false);
  assert.equal(ConfigSchema.safeParse({ audit_file: "" }).success, false);
});

Deno.test("the config keeps relative paths as written (the policy resolves them)", () => {
  const parsed = ConfigSchema.parse({ roots: ["data"], writable_roots: ["out"], audit_file: "audit.jsonl" });
  assert.deepEqual(parsed.roots, ["data"]);
  assert.equal(parsed.audit_file, "audit.jsonl");
});
