// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { Quarantine, QUARANTINE_PREFIX, STALE_QUARANTINE_MS } from "./quarantine.ts";

const ID = "0123456789abcdef0123456789abcdef01234567";
const OTHER = "89abcdef0123456789abcdef0123456789abcdef";

async function store(): Promise<{ store: string; end: () => Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "quarantine-" }));
  const store = join(base, "objects");
  await Deno.mkdir(join(store, "pack"), { recursive: true });
  return { store, end: () => Deno.remove(base, { recursive: true }) };
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("Quarantine.migrate() moves loose objects and whole packs in, each pack's data before its index, keeps an object the store holds, and leaves the rest to remove()", async () => {
  const t = await store();
  try {
    const q = await Quarantine.create(t.store);
    assert.equal(basename(q.path).startsWith(QUARANTINE_PREFIX), true);
    assert.equal((await Deno.stat(q.path)).mode! & 0o777, 0o700);
    await write(join(t.store, "01", ID.slice(2)), "stored");
    await write(join(q.path, "01", ID.slice(2)), "again");
    await write(join(q.path, "89", OTHER.slice(2)), "new");
    await write(join(q.path, "89", "tmp_obj_abc"), "half");
    for (const kind of ["idx", "rev", "pack"]) await write(join(q.path, "pack", `pack-${ID}.${kind}`), kind);
    // A pack without its index, and a temporary one: never moved in.
    await write(join(q.path, "pack", `pack-${OTHER}.pack`), "pack");
    await write(join(q.path, "pack", "tmp_pack_abc"), "half");
    const watcher = Deno.watchFs(join(t.store, "pack"), { recursive: false });
    const made: string[] = [];
    const watched = (async () => {
      for await (const event of watcher) {
        if (event.kind === "create") made.push(...event.paths.map((path) => basename(path)));
        if (made.length === 3) return;
      }
    })();
    assert.equal(await q.migrate(), 4);
    await watched;
    watcher.close();
    assert.deepEqual(made, [`pack-${ID}.pack`, `pack-${ID}.rev`, `pack-${ID}.idx`]);
    assert.equal(await Deno.readTextFile(join(t.store, "01", ID.slice(2))), "stored");
    assert.equal(await Deno.readTextFile(join(t.store, "89", OTHER.slice(2))), "new");
    assert.equal((await Deno.stat(join(t.store, "89", OTHER.slice(2)))).nlink, 1);
    await q.remove();
    await assert.rejects(Deno.lstat(q.path), Deno.errors.NotFound);
    const left = [];
    for await (const entry of Deno.readDir(join(t.store, "pack"))) left.push(entry.name);
    assert.deepEqual(left.sort(), [`pack-${ID}.idx`, `pack-${ID}.pack`, `pack-${ID}.rev`]);
    await q.remove();
  } finally {
    await t.end();
  }
});

Deno.test("Quarantine.sweep() moves in and removes only quarantines left untouched past the stale time", async () => {
  const t = await store();
  try {
    const stale = await Quarantine.create(t.store);
    const fresh = await Quarantine.create(t.store);
    await write(join(stale.path, "89", OTHER.slice(2)), "kept");
    await write(join(stale.path, "pack", "tmp_pack_abc"), "half");
    await write(join(fresh.path, "01", ID.slice(2)), "at work");
    const other = join(t.store, "tmp_objdir-incoming-abc");
    await write(join(other, "01", ID.slice(2)), "git's own");
    const past = new Date(Date.now() - STALE_QUARANTINE_MS - 60_000);
    for (const path of [stale.path, join(stale.path, "89"), join(stale.path, "89", OTHER.slice(2)), other]) {
      await Deno.utime(path, past, past);
    }
    for (const path of [join(stale.path, "pack"), join(stale.path, "pack", "tmp_pack_abc")]) {
      await Deno.utime(path, past, past);
    }
    assert.deepEqual(await Quarantine.sweep(t.store), [basename(stale.path)]);
    await assert.rejects(Deno.lstat(stale.path), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(t.store, "89", OTHER.slice(2))), "kept");
    assert.equal(await Deno.readTextFile(join(fresh.path, "01", ID.slice(2))), "at work");
    assert.equal(await Deno.readTextFile(join(other, "01", ID.slice(2))), "git's own");
    // One file changed lately keeps its whole folder.
    assert.deepEqual(await Quarantine.sweep(t.store, { now: Date.now() + STALE_QUARANTINE_MS / 2 }), []);
    assert.deepEqual(await Quarantine.sweep(t.store, { now: Date.now() + STALE_QUARANTINE_MS + 60_000 }), [
      basename(fresh.path),
    ]);
  } finally {
    await t.end();
  }
});

Deno.test("Quarantine.env points git at the quarantine, reading the store as its alternate even when its path holds a colon or a quote", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "quarantine-" }));
  try {
    const dir = join(base, 'a:b"c\\d', "w");
    await Deno.mkdir(dir, { recursive: true });
    const git = async (env: Record<string, string>, ...args: string[]) => {
      const out = await new Deno.Command("/usr/bin/git", {
        args,
        cwd: dir,
        clearEnv: true,
        env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", ...env },
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      return new TextDecoder().decode(out.stdout).trim();
    };
    await git({}, "init", "-q");
    await Deno.writeTextFile(join(dir, "a.txt"), "a\n");
    const stored = await git({}, "hash-object", "-w", "a.txt");
    const q = await Quarantine.create(join(dir, ".git", "objects"));
    await Deno.writeTextFile(join(dir, "b.txt"), "b\n");
    // Read through the alternate; written to the quarantine alone.
    assert.equal(await git(q.env, "cat-file", "blob", stored), "a");
    const added = await git(q.env, "hash-object", "-w", "b.txt");
    await Deno.lstat(join(q.path, added.slice(0, 2), added.slice(2)));
    await assert.rejects(Deno.lstat(join(dir, ".git", "objects", added.slice(0, 2))), Deno.errors.NotFound);
    await q.remove();
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
