// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { derivePermissions } from "@forge/toolkit/permissions";
import { PolicyError } from "@forge/toolkit/validate";
import { type Config, ConfigSchema } from "./config.ts";
import { Manager } from "./notes.ts";
import { policyFor } from "./policy.ts";

const TMP = Deno.env.get("TMPDIR") ?? "/tmp";
const perms = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

async function setup(maxBytes = 64) {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const [notes, docs, drafts] = ["notes", "docs", "drafts"].map((name) => join(root, name));
  for (const dir of [notes, docs, drafts]) await Deno.mkdir(dir);
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  await Deno.writeTextFile(join(docs, "guide.txt"), "read me");
  await Deno.writeTextFile(join(root, "canary.txt"), "CANARY-outside-the-notes");
  let config: Config = ConfigSchema.parse({
    notes_dir: notes,
    max_bytes: maxBytes,
    folders: { docs: { path: docs }, drafts: { path: drafts, writable: true } },
  });
  // The tenant file looked for at start (FORGE_TENANT_CONFIG) sits in the writable folder, not made yet.
  const tenantFile = join(drafts, "my-server.json");
  // As runWithConfig's policyOf lists it among the server's own files.
  const policyOf = (config: Config) => ({ ...policyFor(config, undefined, []), readFiles: [tenantFile] });
  const mgr = new Manager({ get: () => Promise.resolve(config), path: undefined, policyOf });
  return { root, notes, docs, drafts, tenantFile, mgr, set: (c: Config) => (config = c) };
}

Deno.test({
  name: "Manager reads and writes notes inside the notes directory",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup();
    assert.equal(await mgr.read("todo"), "buy milk");
    await mgr.write("idea", "fly");
    assert.equal(await Deno.readTextFile(join(notes, "idea.md")), "fly");
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "a missing note is refused by its name, saying to write it first; a missing notes directory is named as such",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup();
    await assert.rejects(() => mgr.read("plan"), (err) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.code, "not-found");
      assert.equal(err.message, 'Cannot read note "plan": there is no such note; write it first');
      return true;
    });
    await Deno.remove(notes, { recursive: true });
    await assert.rejects(() => mgr.read("todo"), /the folder this server reads from does not exist/);
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "Manager refuses names that could leave the directory, and notes over max_bytes",
  permissions: perms,
  async fn() {
    const { root, mgr } = await setup(8);
    for (const name of ["../canary", "/etc/hostname", "a/b", "", ".hidden", "x".repeat(65)]) {
      await assert.rejects(() => mgr.read(name), PolicyError, name);
    }
    await assert.rejects(() => mgr.write("big", "123456789"), /over the limit of 8/);
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name:
    "red team: a name with an upper-case letter is refused, so no two names reach one file where case is folded (macOS, Windows)",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup();
    // On a case-insensitive file system "TODO.md" is "todo.md": write:note/TODO would replace the note todo.
    for (const name of ["TODO", "Todo", "tOdo"]) {
      await assert.rejects(() => mgr.write(name, "gone"), /Cannot use note ".*": a name is 1-64 lower-case letters/);
    }
    assert.deepEqual([...Deno.readDirSync(notes)].map((entry) => entry.name), ["todo.md"]);
    assert.equal(await mgr.read("todo"), "buy milk");
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "red team: a name Windows keeps for a device (con, nul, com1…) is refused; names that only start so are notes",
  permissions: perms,
  async fn() {
    const { root, mgr } = await setup();
    // On Windows "nul.md" discards what is written and "con.md" is the console: such a note would be lost or leak.
    for (const name of ["con", "prn", "aux", "nul", "com1", "com9", "lpt0", "lpt3"]) {
      await assert.rejects(() => mgr.write(name, "x"), /Cannot use note ".*": Windows keeps the name for a device/);
      await assert.rejects(() => mgr.read(name), /Windows keeps the name for a device/);
    }
    for (const name of ["console", "nul-notes", "com10", "lpt"]) await mgr.write(name, "kept");
    assert.equal(await mgr.read("com10"), "kept");
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "red team: a lone UTF-16 surrogate is refused, never stored as U+FFFD; written text reads back as it was",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup();
    await assert.rejects(
      () => mgr.write("sur", "a\uD800b"),
      /Cannot write note "sur": its content holds a lone UTF-16 surrogate at index 1/,
    );
    await assert.rejects(() => Deno.stat(join(notes, "sur.md")), Deno.errors.NotFound);
    const text = "\uFEFFé😀\r\n\0";
    await mgr.write("uni", text);
    assert.equal(await mgr.read("uni"), text);
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "red team: a note that is not UTF-8 (planted by another program) is refused, not read as U+FFFD",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup();
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
    await Deno.writeFile(join(notes, "old.md"), latin1);
    // Read as "caf\uFFFD" and written back, the é would be lost for good.
    await assert.rejects(() => mgr.read("old"), /Cannot read note "old": it is not UTF-8 text/);
    assert.deepEqual(await Deno.readFile(join(notes, "old.md")), latin1);
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "red team: a write replaces the note atomically: a reader that opened the old note reads it whole",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup();
    using reader = await Deno.open(join(notes, "todo.md"));
    await mgr.write("todo", "sell the cow");
    const buffer = new Uint8Array(64);
    const n = await reader.read(buffer);
    assert.equal(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), "buy milk");
    assert.equal(await mgr.read("todo"), "sell the cow");
    assert.deepEqual([...Deno.readDirSync(notes)].map((entry) => entry.name), ["todo.md"], "no temporary file left");
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "red team: check() refuses what write() would (a folder, the size, a surrogate, a name) and writes nothing",
  permissions: perms,
  async fn() {
    const { root, notes, mgr } = await setup(8);
    // A second name of a file outside (the toolkit's tests plant symbolic links: Deno.symlink needs unscoped grants).
    await Deno.link(join(root, "canary.txt"), join(notes, "out.md"));
    await Deno.mkdir(join(notes, "dir.md"));
    const refused: [string, string, RegExp][] = [
      ["dir", "x", /it is a folder/],
      ["big", "123456789", /over the limit of 8/],
      ["sur", "\uDC00", /lone UTF-16 surrogate/],
      ["UP", "x", /lower-case/],
    ];
    const before = [...Deno.readDirSync(notes)].map((entry) => entry.name).sort();
    for (const [name, content, why] of refused) {
      await assert.rejects(() => mgr.check(name, content), why, name);
      await assert.rejects(() => mgr.write(name, content), why, name);
    }
    await mgr.check("new", "fine");
    // The call's signal, once fired (its deadline or a cancellation), stops the check too.
    await assert.rejects(() => mgr.check("new", "fine", AbortSignal.abort()), { name: "AbortError" });
    assert.deepEqual([...Deno.readDirSync(notes)].map((entry) => entry.name).sort(), before, "nothing written");
    // The hard link's other name, outside, keeps its text: the write gives the note a new file.
    await mgr.check("out", "x");
    await mgr.write("out", "x");
    assert.equal(await Deno.readTextFile(join(root, "canary.txt")), "CANARY-outside-the-notes");
    assert.equal(await mgr.read("out"), "x");
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "mgr.folder(name) is a jail of that folder alone: paths start there and no path reaches another root",
  permissions: perms,
  async fn() {
    const { root, notes, drafts, mgr } = await setup();
    const docs = await mgr.folder("docs");
    assert.equal(await docs.readTextFile("guide.txt"), "read me");
    for (const path of ["../notes/todo.md", join(notes, "todo.md"), "../canary.txt", join(drafts, "x.txt")]) {
      await assert.rejects(() => docs.readTextFile(path), PolicyError, path);
    }
    await assert.rejects(() => docs.writeFile("new.txt", "x"), PolicyError, "a folder is read-only by default");
    await (await mgr.folder("drafts")).writeFile("plan.txt", "ship it");
    assert.equal(await Deno.readTextFile(join(drafts, "plan.txt")), "ship it");
    await assert.rejects(async () => (await mgr.folder("notes")).readTextFile("../docs/guide.txt"), PolicyError);
    await assert.rejects(() => mgr.folder("secrets"), /Cannot open folder "secrets": the config has no such folder/);
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "no jail serves the server's own files: a writable folder that holds the tenant file cannot write or read it",
  permissions: perms,
  async fn() {
    const { root, tenantFile, mgr } = await setup();
    const drafts = await mgr.folder("drafts");
    const planted = '{"folders":{"all":{"path":"/","writable":true}}}';
    // Not made yet: a write would make the config the next start loads.
    await assert.rejects(() => drafts.writeFile("my-server.json", planted), PolicyError, "my-server.json");
    await assert.rejects(() => Deno.stat(tenantFile), Deno.errors.NotFound);
    // Made by the operator: neither replaced nor shown.
    await Deno.writeTextFile(tenantFile, "{}");
    await assert.rejects(() => drafts.writeFile(tenantFile, planted), PolicyError, "my-server.json");
    await assert.rejects(() => drafts.readTextFile("my-server.json"), PolicyError, "my-server.json");
    assert.equal(await Deno.readTextFile(tenantFile), "{}");
    await drafts.writeFile("plan.txt", "ship it");
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test("the config refuses a folder named notes or with a name a tool could not spell", () => {
  assert.throws(() => ConfigSchema.parse({ folders: { notes: { path: "/srv/x" } } }), /names the notes directory/);
  assert.throws(() => ConfigSchema.parse({ folders: { "../x": { path: "/srv/x" } } }), /a folder's name is/);
});

Deno.test({
  name: "a config edit applies at the next call: without notes_dir nothing is allowed",
  permissions: perms,
  async fn() {
    const { root, mgr, set } = await setup();
    assert.equal(await mgr.read("todo"), "buy milk");
    set(ConfigSchema.parse({ max_bytes: 64 }));
    await assert.rejects(() => mgr.read("todo"), /no notes directory is configured/);
    await assert.rejects(() => mgr.folder("docs"), /no such folder/);
    await Deno.remove(root, { recursive: true });
  },
});

// A fixed directory for the permission-scoped test: its permissions are
// written down before it runs, so the paths must exist already.
const scoped = Deno.realPathSync(Deno.makeTempDirSync());
Deno.mkdirSync(join(scoped, "notes"));
Deno.mkdirSync(join(scoped, "docs"));
Deno.writeTextFileSync(join(scoped, "notes", "todo.md"), "buy milk");
Deno.writeTextFileSync(join(scoped, "canary.txt"), "CANARY-outside-the-notes");

const scopedConfig = ConfigSchema.parse({
  notes_dir: join(scoped, "notes"),
  folders: { docs: { path: join(scoped, "docs") } },
});
const derived = derivePermissions(policyFor(scopedConfig, undefined, []));

Deno.test({
  name:
    "layer 2: the grants derived from the policy serve the notes, keep folders read-only, and stop a read that skips layer 1",
  permissions: { read: [...derived.read], write: [...derived.write] },
  async fn() {
    assert.deepEqual(derived.write, [join(scoped, "notes")], "only the writable roots are writable");
    const policyOf = (config: Config) => policyFor(config, undefined, []);
    const mgr = new Manager({ get: () => Promise.resolve(scopedConfig), path: undefined, policyOf });
    assert.equal(await mgr.read("todo"), "buy milk");
    // Bypass layer 1 on purpose (read the file directly): the derived grant does not reach it.
    await assert.rejects(() => Deno.readTextFile(join(scoped, "canary.txt")), Deno.errors.NotCapable);
    await assert.rejects(() => Deno.writeTextFile(join(scoped, "docs", "x.txt"), "x"), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "(cleanup of the permission-scoped test's directory)",
  permissions: perms,
  async fn() {
    await Deno.remove(scoped, { recursive: true });
    await assert.rejects(() => Deno.stat(scoped), Deno.errors.NotFound);
  },
});
