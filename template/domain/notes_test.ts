// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { derivePermissions } from "@forge/toolkit/permissions";
import { PolicyError } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { Manager } from "./notes.ts";
import { policyFor } from "./policy.ts";

const TMP = Deno.env.get("TMPDIR") ?? "/tmp";

async function setup(maxBytes = 64) {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const notes = join(root, "notes");
  await Deno.mkdir(notes);
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  await Deno.writeTextFile(join(root, "canary.txt"), "CANARY-outside-the-notes");
  let config: Config = { notes_dir: notes, max_bytes: maxBytes };
  const mgr = new Manager(() => Promise.resolve(config), (c) => policyFor(c, undefined, []));
  return { root, notes, mgr, set: (c: Config) => (config = c) };
}

Deno.test({
  name: "Manager reads and writes notes inside the notes directory",
  permissions: { read: [TMP], write: [TMP], env: ["TMPDIR"] },
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
  permissions: { read: [TMP], write: [TMP], env: ["TMPDIR"] },
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
  name: "a config edit applies at the next call: without notes_dir nothing is allowed",
  permissions: { read: [TMP], write: [TMP], env: ["TMPDIR"] },
  async fn() {
    const { root, mgr, set } = await setup();
    assert.equal(await mgr.read("todo"), "buy milk");
    set({ max_bytes: 64 });
    await assert.rejects(() => mgr.read("todo"), /no notes directory is configured/);
    await Deno.remove(root, { recursive: true });
  },
});

// A fixed directory for the permission-scoped test: its permissions are
// written down before it runs, so the paths must exist already.
const scoped = Deno.realPathSync(Deno.makeTempDirSync());
Deno.mkdirSync(join(scoped, "notes"));
Deno.writeTextFileSync(join(scoped, "notes", "todo.md"), "buy milk");
Deno.writeTextFileSync(join(scoped, "canary.txt"), "CANARY-outside-the-notes");

const scopedConfig: Config = { notes_dir: join(scoped, "notes"), max_bytes: 64 };
const derived = derivePermissions(policyFor(scopedConfig, undefined, []));

Deno.test({
  name: "layer 2: the grants derived from the notes policy serve the notes and stop a read that skips layer 1",
  permissions: { read: [...derived.read], write: [...derived.write] },
  async fn() {
    const mgr = new Manager(() => Promise.resolve(scopedConfig), (c) => policyFor(c, undefined, []));
    assert.equal(await mgr.read("todo"), "buy milk");
    // Bypass layer 1 on purpose (read the file directly): the derived grant does not reach it.
    await assert.rejects(() => Deno.readTextFile(join(scoped, "canary.txt")), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "(cleanup of the permission-scoped test's directory)",
  permissions: { read: [TMP], write: [TMP], env: ["TMPDIR"] },
  async fn() {
    await Deno.remove(scoped, { recursive: true });
    await assert.rejects(() => Deno.stat(scoped), Deno.errors.NotFound);
  },
});
