// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env},FORGE_AUDIT_KEY
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { CHILD_ENV_NAMES } from "./child_env.ts";
import { denoRun } from "./deno_run.ts";

const script = fileURLToPath(new URL("./testdata/echo_process.ts", import.meta.url));
const perms: Deno.PermissionOptions = { run: true, read: [dirname(dirname(script))], env: "inherit" };
/** What Deno puts in a child's environment on its own, beyond what it was given. */
const ADDED_BY_DENO = ["PATH", "DENO_NODE_SHIM_ACTIVE"];

Deno.test({
  name: "denoRun() passes only the given environment and childEnv()'s, not a secret of this process",
  permissions: perms,
  async fn() {
    Deno.env.set("FORGE_AUDIT_KEY", "secret-marker");
    try {
      const out = await denoRun(["--allow-env", "--allow-read", script], { env: { GIVEN: "1" }, stdin: "null" })
        .output();
      assert.equal(out.code, 0);
      const { env } = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.ok(env.includes("GIVEN") && env.includes("NO_COLOR"), `given names missing: ${env}`);
      assert.ok(!env.includes("FORGE_AUDIT_KEY"), "the secret reached the child");
      const unexpected = env.filter((name: string) =>
        !["GIVEN", "NO_COLOR", ...ADDED_BY_DENO, ...CHILD_ENV_NAMES].includes(name)
      );
      assert.deepEqual(unexpected, []);
    } finally {
      Deno.env.delete("FORGE_AUDIT_KEY");
    }
  },
});

Deno.test({
  name: "denoRun() runs in the given folder, pipes stdout and stderr apart, and closes stdin when asked",
  permissions: perms,
  async fn() {
    const cwd = dirname(script);
    const out = await denoRun(["--allow-env", "--allow-read", script], { cwd, stdin: "null" }).output();
    const line = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(line.cwd, cwd);
    assert.equal(line.stdinEnded, true);
    assert.equal(new TextDecoder().decode(out.stderr), "stderr\n");
  },
});

Deno.test({
  name: "denoRun() pipes stdin by default: the child reads what is written",
  permissions: perms,
  async fn() {
    const child = denoRun(["--allow-env", "--allow-read", script]).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new Uint8Array([1]));
    await writer.close();
    const out = await child.output();
    assert.equal(JSON.parse(new TextDecoder().decode(out.stdout)).stdinEnded, false);
  },
});
