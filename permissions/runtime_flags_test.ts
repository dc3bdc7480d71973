// test-permissions: --allow-run
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RUNTIME_FLAGS } from "./runtime_flags.ts";

const probe = fileURLToPath(new URL("./testdata/young_space.ts", import.meta.url));

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
