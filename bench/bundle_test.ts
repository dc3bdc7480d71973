// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleServer } from "./bundle.ts";
import type { Env } from "./measure.ts";
import { BUNDLE_DIR } from "./servers.ts";

const env: Env = { deno: Deno.execPath(), repo: fileURLToPath(new URL("..", import.meta.url)), timeoutMs: 10_000 };
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench_bundle_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const TOOLKIT = "bench/servers/toolkit_server.ts";

Deno.test({
  name: "bundleServer() builds the toolkit's server into an emptied folder, and the bundle answers --health",
  permissions: { run: true, read: [base], write: [base] },
  fn: async () => {
    const outdir = join(base, "toolkit");
    await Deno.mkdir(outdir);
    await Deno.writeTextFile(join(outdir, "chunk-OLD.js"), "throw new Error('an older build');\n");
    const bundled = await bundleServer(env, TOOLKIT, outdir);
    assert.deepEqual(bundled, { file: join(outdir, "toolkit_server.js") });
    await assert.rejects(Deno.lstat(join(outdir, "chunk-OLD.js")), Deno.errors.NotFound, "the older build is gone");
    const health = await new Deno.Command(env.deno, {
      args: ["run", "--quiet", "--no-lock", join(outdir, "toolkit_server.js"), "--health"],
      cwd: env.repo,
      stdin: "null",
    }).output();
    assert.equal(new TextDecoder().decode(health.stdout).trim(), "ok", new TextDecoder().decode(health.stderr));
  },
});

Deno.test({
  name: "bundleServer() fails in one line naming the entry and the cause deno gave, not its trace",
  permissions: { run: true, read: [base], write: [base] },
  fn: async () => {
    const entry = join(base, "broken_server.ts");
    await Deno.writeTextFile(entry, 'import "./missing_module.ts";\n');
    const bundled = await bundleServer(env, entry, join(base, "broken"));
    assert.ok("failed" in bundled, JSON.stringify(bundled));
    assert.match(bundled.failed, /^Cannot bundle .*broken_server\.ts: Module not found ".*missing_module\.ts"/);
    assert.doesNotMatch(bundled.failed, /\n|backtrace/i);
    assert.ok(!bundled.failed.includes("\u001b"), "no terminal colours");
  },
});

Deno.test({
  name: "bundleServer() refuses a folder the run may not write, before deno runs",
  permissions: { run: true, read: [base], write: [base] },
  fn: async () => {
    const bundled = await bundleServer(env, TOOLKIT, BUNDLE_DIR);
    assert.deepEqual(bundled, {
      failed: `Cannot bundle ${TOOLKIT}: the benchmark may not write ${BUNDLE_DIR}`,
    });
  },
});
