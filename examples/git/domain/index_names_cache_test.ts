// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ConfigFiles } from "./config_includes.ts";
import { IndexNamesCache } from "./index_names_cache.ts";
import type { ReadIndex } from "./index_shape.ts";

const NO_CONFIG: ConfigFiles = { common: undefined, worktree: undefined };

async function read(path: string, statAt = Date.now()): Promise<ReadIndex> {
  using file = await Deno.open(path);
  return { info: await file.stat(), statAt };
}

Deno.test("IndexNamesCache keeps a clean index until its file, its config or its age says otherwise", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "index");
    await Deno.writeTextFile(path, "clean");
    const cache = new IndexNamesCache(0);
    const first = await read(path);
    assert.equal(cache.clean("/g", first, NO_CONFIG), false);
    cache.keep("/g", first, NO_CONFIG);
    assert.equal(cache.clean("/g", await read(path), NO_CONFIG), true);
    assert.equal(cache.clean("/other", await read(path), NO_CONFIG), false, "one entry per git directory");
    const config: ConfigFiles = { common: { text: "[core]\n", bytes: new Uint8Array() }, worktree: undefined };
    assert.equal(cache.clean("/g", await read(path), config), false, "another config");
    assert.equal(cache.clean("/g", await read(path), NO_CONFIG), false, "a miss forgets the entry");
    cache.keep("/g", await read(path), NO_CONFIG);
    await Deno.writeTextFile(path, "dirty, in place");
    assert.equal(cache.clean("/g", await read(path), NO_CONFIG), false);
    assert.equal(cache.clean("/g", undefined, NO_CONFIG), false, "no index");
    // Changed within the racy interval of the stat that would keep it: not kept.
    const strict = new IndexNamesCache(10_000);
    strict.keep("/g", await read(path), NO_CONFIG);
    assert.equal(strict.clean("/g", await read(path), NO_CONFIG), false);
    strict.keep("/g", await read(path, Date.now() + 20_000), NO_CONFIG);
    assert.equal(strict.clean("/g", await read(path), NO_CONFIG), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
