// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { RUNTIME_FLAGS } from "./runtime_flags.ts";

const probe = fileURLToPath(new URL("./testdata/young_space.ts", import.meta.url));
const uncalled = fileURLToPath(new URL("./testdata/uncalled_function.ts", import.meta.url));

async function mostYoungMiB(flags: readonly string[]): Promise<number> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...flags, probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const { mostMiB, kept } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(kept, 150_000);
  return mostMiB;
}

Deno.test("RUNTIME_FLAGS hold V8's new space to 16 MiB while 150,000 new strings survive; by default it grows larger", async () => {
  assert.ok(RUNTIME_FLAGS.every((flag) => !flag.startsWith("--allow") && !flag.startsWith("-A")), "grants nothing");
  const [capped, uncapped] = await Promise.all([mostYoungMiB(RUNTIME_FLAGS), mostYoungMiB([])]);
  assert.ok(capped <= 16, `with ${RUNTIME_FLAGS.join(" ")}: ${capped} MiB`);
  // V8 sizes the default from the heap limit: ~47 MiB on a machine of 24 GiB, less on a small one.
  assert.ok(uncapped >= capped, `by default: ${uncapped} MiB, with the flags ${capped}`);
});

async function runUncalled(flags: readonly string[], denoDir?: string): Promise<{ stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-config", ...flags, uncalled],
    env: denoDir === undefined ? undefined : { DENO_DIR: denoDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `with ${flags.join(" ")}: exit ${output.code}, stderr: ${stderr}`);
  return { stdout, stderr };
}

Deno.test("a real deno run accepts RUNTIME_FLAGS: it runs the script, nothing on stderr", async () => {
  const { stdout, stderr } = await runUncalled(RUNTIME_FLAGS);
  assert.equal(stdout, "ran under the launch flags\n");
  // Deno refuses a V8 flag it does not know with "error: V8 did not recognize flag …" and exit 1.
  assert.doesNotMatch(stderr, /unknown|error|recogni[sz]e/i);
  assert.equal(stderr, "");
});

Deno.test("RUNTIME_FLAGS cache a module's uncalled function; other V8 flags rewrite the entry", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "runtime_flags_cache_" });
  try {
    const entry = async (flags: readonly string[]): Promise<Uint8Array> => {
      assert.equal((await runUncalled(flags, denoDir)).stdout, "ran under the launch flags\n");
      const db = new DatabaseSync(join(denoDir, "v8_code_cache_v2"), { readOnly: true });
      try {
        const rows = db.prepare("SELECT data FROM codecache WHERE specifier LIKE ?").all("%/uncalled_function.ts");
        assert.equal(rows.length, 1, `one cache entry for the module after a start with ${flags.join(" ")}`);
        return new Uint8Array(rows[0].data as Uint8Array);
      } finally {
        db.close();
      }
    };
    const eager = await entry(RUNTIME_FLAGS);
    const lazy = await entry([]);
    assert.ok(eager.length > lazy.length, `with the flags ${eager.length} bytes, without ${lazy.length}`);
    // One entry per module, rewritten for the flags of the last start: back to RUNTIME_FLAGS, back to the eager entry.
    assert.deepEqual(await entry(RUNTIME_FLAGS), eager);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
