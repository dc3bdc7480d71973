// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { readChecked, writeChecked } from "./_checked_file.ts";
import { LimitError } from "./limits.ts";
import { PolicyError } from "./policy_error.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "checked_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms = { read: [dir], write: [dir] };

Deno.test({
  name: "readChecked() reads a regular file up to the cap",
  permissions: perms,
  async fn() {
    await Deno.writeTextFile(join(dir, "a.txt"), "abcdef");
    const whole = await readChecked(join(dir, "a.txt"), "a.txt", { maxBytes: 10 });
    assert.equal(new TextDecoder().decode(whole.bytes), "abcdef");
    const cut = await readChecked(join(dir, "a.txt"), "a.txt", { maxBytes: 2, truncate: true });
    assert.deepEqual([new TextDecoder().decode(cut.bytes), cut.size], ["ab", 6]);
    await assert.rejects(readChecked(join(dir, "a.txt"), "a.txt", { maxBytes: 2 }), LimitError);
  },
});

Deno.test({
  name: "readChecked() refuses a folder before opening it",
  permissions: perms,
  async fn() {
    const err = await readChecked(dir, "here", { maxBytes: 10 }).catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.message, 'Cannot read "here": it is not a regular file');
  },
});

Deno.test({
  name: "writeChecked() replaces, appends, and refuses an existing file with createNew",
  permissions: perms,
  async fn() {
    const file = join(dir, "w.txt");
    const bytes = (text: string) => new TextEncoder().encode(text);
    await writeChecked(file, "w.txt", bytes("long text"), {});
    await writeChecked(file, "w.txt", bytes("short"), {});
    assert.equal(await Deno.readTextFile(file), "short");
    await writeChecked(file, "w.txt", bytes("+"), { append: true });
    assert.equal(await Deno.readTextFile(file), "short+");
    await assert.rejects(writeChecked(file, "w.txt", bytes("x"), { createNew: true }), /already exists/);
  },
});
