// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { changes, snapshot } from "./_snapshot.ts";

Deno.test("snapshot() and changes() see a file created, changed and removed, without following links", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(join(dir, "a.txt"), "a");
  await Deno.writeTextFile(join(dir, "b.txt"), "b");
  const before = snapshot([dir], 100);
  await Deno.writeTextFile(join(dir, "a.txt"), "aa");
  await Deno.remove(join(dir, "b.txt"));
  await Deno.writeTextFile(join(dir, "c.txt"), "c");
  const after = snapshot([dir], 100);
  // The folder itself is left out: its times move only when the clock's coarse tick (a few ms) has passed since
  // the files were made, so whether it shows as changed depends on how fast this ran.
  const files = changes(before, after).filter((c) => c.path !== dir);
  const seen = files.map((c) => `${c.change} ${c.path.slice(dir.length)}`).sort();
  assert.deepEqual(seen, ["changed /a.txt", "created /c.txt", "removed /b.txt"]);
  assert.deepEqual(changes(after, snapshot([dir], 100)), [], "reading changes nothing");
  assert.throws(() => snapshot([dir], 1), /Cannot watch ".*": more than 1 entries \(maxWatchedEntries\)/);
  await Deno.remove(dir, { recursive: true });
});
