// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-run=ln
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { settingsFor } from "./_settings.ts";
import { createWorld } from "./_world.ts";

Deno.test("settingsFor() watches the canaries and the scope, allows writes under write only, and plants once", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const [data, out] = [join(base, "data"), join(base, "out")];
  await Deno.mkdir(data);
  await Deno.mkdir(out);
  const world = await createWorld();
  const notes: string[] = [];
  const options = {
    deadlineMs: 5,
    maxRssBytes: 9,
    watch: [],
    writable: [],
    maxWatchedEntries: 99,
    plant: true,
    repositories: [],
    logs: [],
  };
  const s = settingsFor(world, { read: [data], write: [out] }, options, false, notes);
  assert.deepEqual(notes, []);
  assert.ok(s.watch.includes(world.dir) && s.watch.includes(data) && s.watch.includes(out));
  assert.ok(s.watch.includes(join(base, "data-forge-attack")));
  assert.deepEqual(s.ground.writable, [out]);
  assert.deepEqual(s.ground.roots, [data, out]);
  assert.ok(s.ground.sensitive.includes(base) && s.ground.sensitive.includes(world.dir));
  assert.ok(!s.ground.sensitive.includes(dirname(base)) || dirname(base).split("/").filter(Boolean).length >= 2);
  const planted = world.planted.length;
  settingsFor(world, { read: [data], write: [out] }, options, false, notes);
  assert.equal(world.planted.length, planted, "a second surface plants nothing more");
  await world.dispose();
  await Deno.remove(base, { recursive: true });
});
