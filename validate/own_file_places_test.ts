// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { ownFilePlaces } from "./own_file_places.ts";

const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "own_files_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

async function ln(target: string, path: string): Promise<void> {
  assert.ok((await new Deno.Command("ln", { args: ["-s", target, path] }).output()).success);
}

await Deno.mkdir(join(base, "real", "next"), { recursive: true });
await Deno.writeTextFile(join(base, "real", "config.json"), "{}");
await ln("real", join(base, "linked"));
// A dangling chain: a -> b -> next/c.json, none made yet.
await ln("b.json", join(base, "real", "a.json"));
await ln("next/c.json", join(base, "real", "b.json"));
// Granted alone, as least privilege grants a tenant file: its folder may not be resolved.
const hidden = join(base, "hidden");
await Deno.mkdir(hidden);

Deno.test({
  name:
    "ownFilePlaces() finds a file by its real path, a missing one where it would be made, and every hop of a dangling link",
  permissions: { read: [base] },
  fn() {
    const { paths, names } = ownFilePlaces([
      join(base, "linked", "config.json"),
      join(base, "linked", "audit.jsonl"),
      join(base, "linked", "new", "deep", "later.jsonl"),
      join(base, "linked", "a.json"),
    ]);
    // A file whose folder is missing too has no place yet: nothing can be made there until the folder is.
    assert.deepEqual([...paths].sort(), [
      join(base, "real", "a.json"),
      join(base, "real", "audit.jsonl"),
      join(base, "real", "b.json"),
      join(base, "real", "config.json"),
      join(base, "real", "next", "c.json"),
    ]);
    assert.deepEqual([...names], []);
  },
});

Deno.test({
  name:
    "ownFilePlaces() names a file whose folder this process may not resolve, to be refused by name anywhere (fail closed)",
  permissions: { read: [join(hidden, "files.json"), join(base, "real")] },
  fn() {
    const { paths, names } = ownFilePlaces([join(hidden, "files.json"), join(base, "real", "config.json")]);
    assert.deepEqual([...names], ["files.json"]);
    assert.ok(paths.has(join(base, "real", "config.json")));
  },
});

Deno.test({
  name:
    "ownFilePlaces() gives the dev:ino of each own file that exists, when asked: a hard link to one is the same file",
  permissions: { read: [base] },
  fn() {
    const info = Deno.statSync(join(base, "real", "config.json"));
    assert.deepEqual([...ownFilePlaces([join(base, "linked", "config.json")], { ids: true }).ids], [
      `${info.dev}:${info.ino}`,
    ]);
    assert.equal(ownFilePlaces([join(base, "real", "config.json")]).ids.size, 0, "not asked for");
  },
});
