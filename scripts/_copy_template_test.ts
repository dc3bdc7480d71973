// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyTemplate } from "./_copy_template.ts";

/** A small template: a text file, a folder with a text file, and a skipped lock file. */
async function template(): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(join(dir, "tools"));
  await Deno.writeTextFile(join(dir, "main.ts"), 'const NAME = "my-server";\n');
  await Deno.writeTextFile(join(dir, "tools/register.ts"), "// my-server tools\n");
  await Deno.writeTextFile(join(dir, "deno.lock"), "{}");
  return dir;
}

/** Every path under `dir` with its text (folders end in "/"), sorted. */
async function tree(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(dir, rel))) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory) out.push(`${path}/`, ...(await tree(dir, path)));
    else out.push(`${path}: ${await Deno.readTextFile(join(dir, path))}`);
  }
  return out.sort();
}

Deno.test("copyTemplate copies, renames by its rewrite, skips, and makes the empty folders", async () => {
  const from = await template();
  const to = join(await Deno.makeTempDir(), "a/b");
  await copyTemplate(from, to, {
    skip: ["deno.lock"],
    rewrite: (_path, text) => text.replaceAll("my-server", "billing"),
    emptyFolders: ["notes"],
  });
  assert.deepEqual(await tree(to), [
    'main.ts: const NAME = "billing";\n',
    "notes/",
    "tools/",
    "tools/register.ts: // billing tools\n",
  ]);
});

Deno.test("copyTemplate overwrites nothing put in its folder after the emptiness check, and removes what it made", async () => {
  // Another process (or a second `deno task new` of the same folder, while the first asked JSR) wrote here.
  const from = await template();
  const to = await Deno.makeTempDir();
  await Deno.mkdir(join(to, "tools"));
  await Deno.writeTextFile(join(to, "tools/register.ts"), "mine");
  const before = await tree(to);
  await assert.rejects(
    () => copyTemplate(from, to, { emptyFolders: ["notes"] }),
    (err: Error) => {
      assert.match(
        err.message,
        /^Cannot copy the template: ".*tools(\/register\.ts)?" is already there; the \d+ files and folders this copy made are removed$/,
      );
      return true;
    },
  );
  // The file is the newcomer's still, and nothing the copy made is left: no half project that looks complete.
  assert.deepEqual(await tree(to), before);
  // A folder in the way is refused too, and the folder the copy made itself goes with the rest.
  const fresh = join(await Deno.makeTempDir(), "new");
  await Deno.mkdir(fresh);
  await Deno.mkdir(join(fresh, "notes"));
  await assert.rejects(() => copyTemplate(from, fresh, { emptyFolders: ["notes"] }), /\/notes" is already there/);
  assert.deepEqual(await tree(fresh), ["notes/"]);
});
