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
