// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createWorld } from "./_world.ts";

Deno.test("createWorld() plants the canaries and removes everything it planted, restoring a repository's config", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const root = join(base, "data");
  const repo = join(base, "repo");
  await Deno.mkdir(root);
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.writeTextFile(join(repo, ".git", "config"), "[core]\n\tbare = false\n");
  const world = await createWorld();
  assert.equal(await Deno.readTextFile(world.canaryFile), world.secret);
  const db = new DatabaseSync(world.canaryDb, { readOnly: true });
  assert.equal(db.prepare("SELECT value FROM secrets").get()?.value, world.secret);
  db.close();
  assert.deepEqual(world.plant([root]), []);
  assert.equal(await Deno.readTextFile(join(base, "data-forge-attack", "canary.txt")), world.secret);
  assert.equal(await Deno.readLink(join(root, "forge-attack-link")), world.canaryFile);
  assert.equal(world.values.sibling_name, "data-forge-attack");
  assert.deepEqual(world.plantRepositories([repo]), []);
  assert.match(
    await Deno.readTextFile(join(repo, ".git", "config")),
    /fsmonitor = "touch '.*hostile-config-fsmonitor' #"/,
  );
  await world.dispose();
  assert.deepEqual([...Deno.readDirSync(base)].map((e) => e.name).sort(), ["data", "repo"]);
  assert.deepEqual([...Deno.readDirSync(root)], []);
  assert.equal(await Deno.readTextFile(join(repo, ".git", "config")), "[core]\n\tbare = false\n");
  await assert.rejects(Deno.stat(world.dir), Deno.errors.NotFound);
  await Deno.remove(base, { recursive: true });
});

Deno.test("plant() notes a root it cannot plant in and goes on", async () => {
  const world = await createWorld();
  const missing = join(world.dir, "missing");
  assert.deepEqual(world.plant([missing, "/"]), [
    `Cannot plant canaries beside and inside "${missing}": NotFound`,
    'Cannot plant canaries beside and inside "/": NotCapable',
  ]);
  await world.dispose();
});
