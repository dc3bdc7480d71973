// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env={child-env}
import assert from "node:assert/strict";
import { join } from "node:path";
import { runDeno } from "./run_deno.ts";

const dir = await Deno.makeTempDir({ prefix: "run_deno_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const script = join(dir, "script.ts");
await Deno.writeTextFile(
  script,
  `console.log(JSON.stringify({ cwd: Deno.cwd(), own: Deno.env.get("OWN") ?? null, home: Deno.env.get("HOME") ?? null }));
console.error("to stderr");
try { Deno.hostname(); } catch (e) { console.error(e.name); }
Deno.exit(3);
`,
);
const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [dir], env: "inherit" };

Deno.test({
  name: "runDeno() returns the exit code and both outputs, in the given folder with only the given variables",
  permissions: perms,
  async fn() {
    const result = await runDeno({ args: [`--allow-read=${dir}`, "--allow-env", script], env: { OWN: "x" }, cwd: dir });
    assert.equal(result.code, 3);
    assert.deepEqual(JSON.parse(result.stdout), { cwd: await Deno.realPath(dir), own: "x", home: null });
    assert.equal(result.stderr, "to stderr\nNotCapable\n", "a missing permission fails at once (--no-prompt)");
  },
});
