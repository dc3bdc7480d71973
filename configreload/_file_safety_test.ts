// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileSafety } from "./_file_safety.ts";

async function unsafeReason(path: string): Promise<string | undefined> {
  const { reason } = await fileSafety(path);
  return reason;
}

const base = await Deno.makeTempDir({ prefix: "configreload_safety_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files = { read: [base], write: [base], run: ["ln"] };

async function file(dir: string, name: string, mode = 0o644): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, "{}");
  await Deno.chmod(path, mode);
  return path;
}

// Deno.symlink() needs unscoped read and write permissions; `ln` does not.
async function symlink(target: string, path: string): Promise<void> {
  assert.ok((await new Deno.Command("ln", { args: ["-s", target, path] }).output()).success);
}

Deno.test({
  name: "fileSafety() accepts a file only its owner can write, in such a directory",
  permissions: files,
  async fn() {
    const dir = await Deno.makeTempDir({ dir: base });
    assert.equal(await unsafeReason(await file(dir, "a.json", 0o644)), undefined);
    assert.equal(await unsafeReason(await file(dir, "b.json", 0o400)), undefined);
    await Deno.chmod(dir, 0o755);
    assert.equal(await unsafeReason(join(dir, "a.json")), undefined);
  },
});

Deno.test({
  name: "fileSafety() refuses a file writable by group or others",
  permissions: files,
  async fn() {
    const dir = await Deno.makeTempDir({ dir: base });
    assert.equal(
      await unsafeReason(await file(dir, "g.json", 0o660)),
      "it is writable by group or others (mode 0660); run chmod go-w on it",
    );
    assert.match((await unsafeReason(await file(dir, "o.json", 0o602))) ?? "", /mode 0602/);
  },
});

Deno.test({
  name: "fileSafety() refuses a file in a directory writable by group or others, sticky or not",
  permissions: files,
  async fn() {
    const dir = await Deno.makeTempDir({ dir: base });
    const path = await file(dir, "a.json");
    for (const mode of [0o775, 0o1777]) {
      await Deno.chmod(dir, mode);
      assert.match((await unsafeReason(path)) ?? "", /^its directory ".*" is writable by group or others/);
    }
  },
});

Deno.test({
  name: "fileSafety() refuses a symlink that leaves its directory, directly or through ..",
  permissions: files,
  async fn() {
    const [dir, elsewhere] = [await Deno.makeTempDir({ dir: base }), await Deno.makeTempDir({ dir: base })];
    const target = await file(elsewhere, "t.json");
    await symlink(target, join(dir, "abs.json"));
    await symlink(`../${elsewhere.split("/").at(-1)}/t.json`, join(dir, "rel.json"));
    await symlink(join(dir, "abs.json"), join(dir, "chain.json"));
    for (const name of ["abs.json", "rel.json", "chain.json"]) {
      assert.match(
        (await unsafeReason(join(dir, name))) ?? "",
        /^it is a symlink to ".*t\.json", which leaves its directory/,
        name,
      );
    }
  },
});

Deno.test({
  name: "fileSafety() accepts a symlink to a file inside its directory",
  permissions: files,
  async fn() {
    const dir = await Deno.makeTempDir({ dir: base });
    await Deno.mkdir(join(dir, "v"), { mode: 0o755 });
    await file(join(dir, "v"), "1.json");
    await symlink("v/1.json", join(dir, "current.json"));
    assert.equal(await unsafeReason(join(dir, "current.json")), undefined);
  },
});

// Made here: a test's permissions are fixed when it is declared.
const narrowDir = await Deno.makeTempDir({ dir: base });
const narrowFile = await file(narrowDir, "a.json");
const narrowShared = await file(narrowDir, "shared.json", 0o666);
await Deno.mkdir(join(narrowDir, "v"), { mode: 0o755 });
await file(join(narrowDir, "v"), "1.json");
const narrowInside = join(narrowDir, "current.json");
await symlink("v/1.json", narrowInside);
const narrowLeaving = join(narrowDir, "leaving.json");
await symlink(await file(await Deno.makeTempDir({ dir: base }), "t.json"), narrowLeaving);

Deno.test({
  name: "fileSafety() with read of the file alone checks the file and lists its directory as unchecked",
  permissions: { read: [narrowFile, narrowShared] },
  async fn() {
    const info = await Deno.stat(narrowFile);
    assert.deepEqual(await fileSafety(narrowFile), {
      reason: undefined,
      unchecked: [narrowDir],
      identity: `${info.dev}:${info.ino}`,
      symlink: false,
    });
    await assert.rejects(Deno.stat(narrowDir), Deno.errors.NotCapable);
    assert.deepEqual(await fileSafety(narrowShared), {
      reason: "it is writable by group or others (mode 0666); run chmod go-w on it",
      unchecked: [],
    });
  },
});

Deno.test({
  name: "fileSafety() with read of the file alone accepts a symlink into its folder and refuses one that leaves it",
  permissions: { read: [narrowInside, narrowLeaving] },
  async fn() {
    // Its target is stat'ed through the link: least privilege grants the link's path alone.
    const target = await Deno.stat(narrowInside);
    assert.deepEqual(await fileSafety(narrowInside), {
      reason: undefined,
      unchecked: [narrowDir, join(narrowDir, "v")],
      identity: `${target.dev}:${target.ino}`,
      symlink: true,
    });
    assert.match(
      (await fileSafety(narrowLeaving)).reason ?? "",
      /^it is a symlink to ".*t\.json", which leaves its directory/,
    );
  },
});

Deno.test({
  name: "fileSafety() without read of the file refuses it, naming the flag",
  permissions: { read: false },
  async fn() {
    assert.deepEqual(await fileSafety(narrowFile), {
      reason: `it cannot be checked without read permission on it (grant --allow-read=${narrowFile})`,
      unchecked: [],
    });
  },
});
