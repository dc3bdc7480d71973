import assert from "node:assert/strict";
import { ConfigSchema, MAX_OUTPUT_CEILING } from "./config.ts";

Deno.test("ConfigSchema defaults to no repository and git by absolute path", () => {
  const config = ConfigSchema.parse({});
  assert.deepEqual(config.repos, []);
  assert.equal(config.git, "/usr/bin/git");
  assert.equal(config.kill, "/usr/bin/kill");
  assert.equal(config.setsid, "/usr/bin/setsid");
});

Deno.test("ConfigSchema refuses duplicate names, bad names, a relative git and unknown keys", () => {
  const repo = { name: "app", path: "/srv/app" };
  assert.equal(ConfigSchema.safeParse({ repos: [repo, repo] }).success, false);
  assert.equal(ConfigSchema.safeParse({ repos: [{ ...repo, name: "../x" }] }).success, false);
  assert.equal(ConfigSchema.safeParse({ git: "git" }).success, false);
  assert.equal(ConfigSchema.safeParse({ repos: [{ ...repo, path: "/a,b" }] }).success, false);
  assert.equal(ConfigSchema.safeParse({ shell: true }).success, false);
  assert.equal(ConfigSchema.safeParse({ author: { name: "a\nb", email: "x@y" } }).success, false);
});

Deno.test("ConfigSchema takes as setsid only a program named setsid: /bin/true there would answer every call with nothing", () => {
  for (const odd of ["/bin/true", "/bin/sh", "/usr/bin/git", "/usr/bin/env", "/usr/bin/setsid/"]) {
    const parsed = ConfigSchema.safeParse({ setsid: odd });
    assert.equal(parsed.success, false, odd);
    assert.match(parsed.error!.issues[0].message, /must be the path of a setsid program/);
  }
  assert.equal(ConfigSchema.parse({ setsid: "/bin/setsid" }).setsid, "/bin/setsid");
  assert.equal(ConfigSchema.safeParse({ setsid: "setsid" }).success, false, "a relative path");
});

Deno.test("ConfigSchema refuses max_output_bytes past 10 MiB, where a run's output of control characters would not fit one reply", () => {
  assert.equal(ConfigSchema.safeParse({ max_output_bytes: MAX_OUTPUT_CEILING }).success, true);
  assert.equal(ConfigSchema.safeParse({ max_output_bytes: 16 * 1024 * 1024 }).success, false);
  // JSON writes each control character as six bytes, the most a byte of output grows (U+FFFD for a bad byte: three).
  assert.equal(JSON.stringify("\u0001".repeat(1024)).length - 2, 6 * 1024);
  // The reply's text at the ceiling, with room for the envelope and a note, against the default maxMessageBytes.
  assert.ok(6 * MAX_OUTPUT_CEILING + 64 * 1024 <= 64 * 1024 * 1024);
});
