import assert from "node:assert/strict";
import { ConfigSchema } from "./config.ts";
import { programChange } from "./program_change.ts";

Deno.test("programChange() refuses a reload that changes git, kill or setsid, swapped or new; the rest may change", () => {
  const first = ConfigSchema.parse({ repos: [{ name: "r", path: "/srv/r" }] });
  assert.equal(programChange(first, { ...first, repos: [], timeout_ms: 500, max_output_bytes: 2048 }), undefined);
  assert.equal(
    programChange(first, { ...first, git: "/usr/bin/kill", kill: "/usr/bin/git" }),
    'it changes git from "/usr/bin/git" to "/usr/bin/kill", which needs a restart',
  );
  assert.equal(
    programChange(first, { ...first, kill: "/bin/kill" }),
    'it changes kill from "/usr/bin/kill" to "/bin/kill", which needs a restart',
  );
  assert.match(programChange(first, { ...first, setsid: "/tmp/setsid" })!, /^it changes setsid from /);
});
