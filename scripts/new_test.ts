// test-permissions: --allow-run --allow-read --allow-write={tmp} --allow-env
// `deno task new`: scaffolds the template into a temp dir, the way the README
// says, and runs the new server's own tasks there.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));

async function deno(args: string[], cwd = repo, env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

/** `deno task new` as the README writes it; returns the project folder. */
async function scaffold(args: string[]) {
  const out = await deno(["task", "--quiet", "new", ...args]);
  return {
    ...out,
    imports: async (dir: string) => JSON.parse(await Deno.readTextFile(join(dir, "deno.json"))).imports,
  };
}

Deno.test("deno task new --help prints the usage with every option and exits 0; a wrong option is one line and 64", async () => {
  const help = await scaffold(["--help"]);
  assert.equal(help.code, 0);
  for (const option of ["--name <server>", "--jsr", "--local", "-h, --help"]) assert.ok(help.stdout.includes(option));
  const wrong = await scaffold(["--nmae", "x", "/tmp/x"]);
  assert.equal(wrong.code, 64);
  assert.match(wrong.stderr, /^Cannot create the server: Unknown option '--nmae'/);
  assert.doesNotMatch(wrong.stderr, /^\s+at /m, "no stack trace");
});

Deno.test("the README's `deno task new <dir> --name my-server` yields a project whose tests pass with a typed tool added over a ${VAR} folder, editing only register.ts and the config", async () => {
  // Under a folder whose name has a space: the project's `deno task test` passes each declared flag whole.
  const dir = join(await Deno.makeTempDir(), "My Projects", "my-server");
  const made = await scaffold([dir, "--name", "my-server"]);
  assert.equal(made.code, 0, made.stderr);
  const fromCheckout = made.stderr.includes("importing @forge/toolkit from this checkout");
  const { version } = JSON.parse(await Deno.readTextFile(join(repo, "deno.json")));
  // Where JSR serves this version the project imports it from there; here (JSR unreachable) from this checkout.
  assert.equal(
    (await made.imports(dir))["@forge/toolkit"],
    fromCheckout ? new URL("../mod.ts", import.meta.url).href : `jsr:@forge/toolkit@${version}`,
  );
  assert.match(
    made.stdout,
    /Next:\n\n {2}cd '.*\/My Projects\/my-server'\n {2}deno task test\n {2}NOTES_DIR=\$PWD\/notes deno task start\n$/,
  );
  // The folder that last line serves exists, empty: a first write_note is not refused for want of it.
  assert.deepEqual(await Array.fromAsync(Deno.readDir(join(dir, "notes"))), []);
  // The project README's "Adding a tool", as written: its two code blocks become the two new files, then one
  // register line (with its import) and one config line. No other file is touched, and every test still passes.
  const readme = await Deno.readTextFile(join(dir, "README.md"));
  const recipe = readme.slice(readme.indexOf("## Adding a tool"));
  const [tool, test] = [...recipe.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((block) => block[1]);
  await Deno.writeTextFile(join(dir, "tools/word_count.ts"), tool);
  await Deno.writeTextFile(join(dir, "tools/word_count_test.ts"), test);
  await edit(join(dir, "tools/register.ts"), [
    [
      'from "./write_note.ts";\n',
      'from "./write_note.ts";\nimport { wordCount, wordCountTool } from "./word_count.ts";\n',
    ],
    ["writeNote(mgr));\n", "writeNote(mgr));\n  addTool(server, wordCountTool, wordCount(mgr));\n"],
  ]);
  await edit(join(dir, "config/config.example.json"), [
    ['"max_bytes": 65536\n', '"max_bytes": 65536,\n  "folders": { "files": { "path": "${FILES_DIR}" } }\n'],
  ]);
  const tests = await deno(["task", "test"], dir);
  const text = tests.stdout + tests.stderr;
  assert.equal(tests.code, 0, text.slice(-3000));
  assert.match(text, /test: (\d+) of \1 permission groups passed/);
  assert.match(
    text,
    /word_count counts the words of a file in the files folder and refuses a path outside it \.\.\. ok/,
  );
  await Deno.remove(join(dir, "../.."), { recursive: true });
});

/** Replaces each `[from, to]` once, failing when `from` is not in the file. */
async function edit(path: string, changes: [string, string][]): Promise<void> {
  let text = await Deno.readTextFile(path);
  for (const [from, to] of changes) {
    assert.ok(text.includes(from), `${path} has no ${JSON.stringify(from)}`);
    text = text.replace(from, to);
  }
  await Deno.writeTextFile(path, text);
}

Deno.test("deno task new --jsr points imports at this version on JSR, --local at this checkout, and renames", async () => {
  const dir = join(await Deno.makeTempDir(), "svc");
  const { version } = JSON.parse(await Deno.readTextFile(join(repo, "deno.json")));
  const jsr = await scaffold([join(dir, "a"), "--name", "billing", "--jsr"]);
  assert.equal(jsr.code, 0, jsr.stderr);
  assert.equal(jsr.stderr, "", "--jsr does not ask JSR");
  const imports = await jsr.imports(join(dir, "a"));
  assert.equal(imports["@forge/toolkit"], `jsr:@forge/toolkit@${version}`);
  assert.equal(imports["@forge/toolkit/validate"], `jsr:@forge/toolkit@${version}/validate`);
  assert.match(await Deno.readTextFile(join(dir, "a/main.ts")), /const NAME = "billing";/);
  assert.ok(!(await Deno.readTextFile(join(dir, "a/README.md"))).includes("my-server"));
  const local = await scaffold([join(dir, "b"), "--local"]);
  assert.equal(local.code, 0, local.stderr);
  assert.equal((await local.imports(join(dir, "b")))["@forge/toolkit"], new URL("../mod.ts", import.meta.url).href);
  assert.equal((await scaffold([join(dir, "c"), "--jsr", "--local"])).code, 64);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task new refuses a non-empty folder and a bad name, and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "keep.txt"), "mine");
  const refused = await scaffold([dir, "--local"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /exists and is not empty/);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["keep.txt"]);
  const badName = await scaffold([join(dir, "x"), "--name", "../evil", "--local"]);
  assert.equal(badName.code, 64);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task new refuses a file as its folder with one line, no stack, and leaves the file alone", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "a-file");
  await Deno.writeTextFile(file, "mine");
  const refused = await scaffold([file, "--local"]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, `Cannot create the server: ${JSON.stringify(file)} exists and is not a folder\n`);
  assert.equal(await Deno.readTextFile(file), "mine");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task new prints `cd` to a folder named like a shell command quoted, so pasting it runs nothing", async () => {
  const dir = await Deno.makeTempDir();
  const target = join(dir, "a; $(>PWNED)");
  const made = await scaffold([target, "--name", "odd", "--local"]);
  assert.equal(made.code, 0, made.stderr);
  const line = made.stdout.split("\n").find((text) => text.startsWith("  cd "));
  assert.equal(line, `  cd '${target}'`);
  // What a shell reads back from the printed line is the folder itself, and nothing runs.
  const echoed = await new Deno.Command("sh", { args: ["-c", `${line!.replace("  cd ", "printf %s ")}`], cwd: dir })
    .output();
  assert.equal(new TextDecoder().decode(echoed.stdout), target);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["a; $(>PWNED)"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("deno task inspect runs the pinned MCP Inspector on a scaffolded server (CLI mode lists its tools)", async () => {
  const dir = join(await Deno.makeTempDir(), "notes-server");
  assert.equal((await scaffold([dir, "--local"])).code, 0);
  // npx fetches the Inspector on first use (cached afterwards), hence no tighter bound than the test's own.
  const out = await deno(["task", "--quiet", "inspect", "--cli", "--method", "tools/list"], dir, {
    NOTES_DIR: join(dir, "notes"),
  });
  assert.equal(out.code, 0, out.stderr);
  const tools = JSON.parse(out.stdout).tools as { name: string }[];
  assert.deepEqual(tools.map((tool) => tool.name), ["read_note", "write_note"]);
  await Deno.remove(join(dir, ".."), { recursive: true });
});
