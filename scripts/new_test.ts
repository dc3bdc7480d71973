// test-permissions: --allow-run --allow-read --allow-write={tmp} --allow-env
// `deno task new`: scaffolds the template into a temp dir with local imports
// and runs the new server's own tests there, as CI does.
import assert from "node:assert/strict";
import { join } from "node:path";

const repo = new URL("..", import.meta.url).pathname;

async function scaffold(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", join(repo, "scripts/new.ts"), ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("deno task new copies the template, renames the server, and its own tests pass with local imports", async () => {
  const dir = join(await Deno.makeTempDir(), "acme-notes");
  const made = await scaffold([dir, "--local"]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(
    made.stdout,
    /Next:\n\n {2}cd .*acme-notes\n {2}deno task test\n {2}NOTES_DIR=\$PWD\/notes deno task start\n$/,
  );
  const main = await Deno.readTextFile(join(dir, "main.ts"));
  assert.match(main, /const NAME = "acme-notes";/);
  assert.ok(!(await Deno.readTextFile(join(dir, "README.md"))).includes("my-server"));
  const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json")));
  assert.equal(config.imports["@forge/toolkit"], new URL("../mod.ts", import.meta.url).href);
  const tests = await new Deno.Command(Deno.execPath(), {
    args: ["task", "test"],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(tests.stdout) + new TextDecoder().decode(tests.stderr);
  assert.equal(tests.code, 0, text.slice(-3000));
  assert.match(text, /ok \| \d+ passed \| 0 failed/);
  await Deno.remove(join(dir, ".."), { recursive: true });
});

Deno.test("deno task new points imports at this version on JSR by default", async () => {
  const dir = join(await Deno.makeTempDir(), "svc");
  assert.equal((await scaffold([dir, "--name", "billing"])).code, 0);
  const { version } = JSON.parse(await Deno.readTextFile(join(repo, "deno.json")));
  const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json")));
  assert.equal(config.imports["@forge/toolkit"], `jsr:@forge/toolkit@${version}`);
  assert.equal(config.imports["@forge/toolkit/validate"], `jsr:@forge/toolkit@${version}/validate`);
  assert.match(await Deno.readTextFile(join(dir, "main.ts")), /const NAME = "billing";/);
  await Deno.remove(join(dir, ".."), { recursive: true });
});

Deno.test("deno task new refuses a non-empty folder and a bad name, and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "keep.txt"), "mine");
  const refused = await scaffold([dir]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /exists and is not empty/);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["keep.txt"]);
  const badName = await scaffold([join(dir, "x"), "--name", "../evil"]);
  assert.equal(badName.code, 64);
  await Deno.remove(dir, { recursive: true });
});
