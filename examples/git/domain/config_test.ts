import assert from "node:assert/strict";
import { ConfigSchema } from "./config.ts";

Deno.test("ConfigSchema defaults to no repository and git by absolute path", () => {
  const config = ConfigSchema.parse({});
  assert.deepEqual(config.repos, []);
  assert.equal(config.git, "/usr/bin/git");
  assert.equal(config.kill, "/usr/bin/kill");
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
