// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { auditTrail } from "../middleware/mod.ts";
import { connectInMemory } from "../testing/mod.ts";
import { registerPatternTool, schema, Server, text } from "../mod.ts";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../internal/sha256_hex.ts";
import { lateTrail } from "../middleware/testdata/late_trail.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));

async function verify(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "audit:verify", ...args],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A trail file of `calls` calls (two records each), then `rotate()` and as many again when given. */
async function trailFile(file: string, calls: number, rotate?: () => Promise<void>): Promise<void> {
  const s = new Server({ name: "v" });
  registerPatternTool(
    s,
    {
      name: "put",
      description: "Puts",
      inputSchema: schema(),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    () => ({ patterns: ["put:x"] }),
    () => text("put"),
  );
  const audit = auditTrail({ server: "v", file });
  const session = await connectInMemory(s, { serve: { middleware: [audit] } });
  for (let i = 0; i < calls; i++) await session.client.callTool({ name: "put", arguments: {} });
  if (rotate) {
    await rotate();
    for (let i = 0; i < calls; i++) await session.client.callTool({ name: "put", arguments: {} });
  }
  await session.close();
  await audit.close();
}

Deno.test("deno task audit:verify prints the last record of a sound trail, and the first broken link of an edited one", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/audit.jsonl`;
  await trailFile(file, 2);
  const sound = await verify(file);
  assert.equal(sound.code, 0, sound.stderr);
  assert.match(sound.stdout, /^ok: 4 records in 1 file\(s\)\nlast 3 [0-9a-f]{64}\n$/);
  const head = sound.stdout.split("\n")[1].split(" ");
  const lines = (await Deno.readTextFile(file)).split("\n");
  await Deno.writeTextFile(file, lines.with(1, lines[1].replace('"ok"', '"isError"')).join("\n"));
  const edited = await verify(file);
  assert.equal(edited.code, 1);
  assert.equal(
    edited.stdout,
    `broken: ${file}:3: its prev is not the sha256 of the record before it: that record was changed or removed\n`,
  );
  await Deno.writeTextFile(file, lines.slice(0, 2).map((l) => l + "\n").join(""));
  const cut = await verify(`--head=${head[1]}:${head[2]}`, file);
  assert.equal(cut.code, 1, "records cut off the end are found against the shipped head");
  assert.match(cut.stdout, /before the shipped head seq 3: records were cut off/);
  assert.equal((await verify("--head=3:nothex", file)).code, 2);
  assert.equal((await verify("--bogus", file)).code, 2);
  assert.equal((await verify()).code, 2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task audit:verify follows a chain across rotated files given oldest first, and refuses them out of order", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/audit.jsonl`;
  await trailFile(file, 1, async () => {
    await Deno.rename(file, `${file}.1`);
    await Deno.writeTextFile(file, "", { mode: 0o600 });
  });
  const both = await verify(`${file}.1`, file);
  assert.equal(both.code, 0, both.stdout);
  assert.match(both.stdout, /^ok: 4 records in 2 file\(s\)\nlast 3 /);
  const older = (await verify(`${file}.1`)).stdout.split("\n")[1].split(" ");
  assert.equal(
    (await verify(`--after=${older[1]}:${older[2]}`, file)).code,
    0,
    "the newer file alone, after the older",
  );
  const wrong = await verify(file, `${file}.1`);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /^broken: .*audit\.jsonl:1: seq 2 follows seq -1/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task audit:verify accepts a late record after its call's timeout, and refuses it repeated", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/audit.jsonl`;
  const lines = await lateTrail(false);
  await Deno.writeTextFile(file, lines.map((l) => l + "\n").join(""));
  const sound = await verify(file);
  assert.equal(sound.code, 0, sound.stdout);
  assert.match(sound.stdout, /^ok: 3 records in 1 file\(s\)\nlast 2 /);
  // The late record again, linked to the one before it: the chain holds, the rule does not.
  const again = { ...JSON.parse(lines[2]), seq: 3, prev: await sha256Hex(lines[2]) };
  await Deno.writeTextFile(file, JSON.stringify(again) + "\n", { append: true });
  const repeated = await verify(file);
  assert.equal(repeated.code, 1);
  assert.match(
    repeated.stdout,
    /^broken: .*audit\.jsonl:4: it says how the handler of intent 0 ended, but .* said already/,
  );
  await Deno.remove(dir, { recursive: true });
});
