// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=mkfifo,sh,ln
import { lateFifoWriter } from "../internal/testdata/fifo_writer.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileSafety } from "./_file_safety.ts";
import { ChangedError, readBounded, stamp } from "./_read_file.ts";

const base = await Deno.makeTempDir({ prefix: "configreload_read_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files: Deno.PermissionOptions = { read: [base], write: [base], run: ["mkfifo", "sh", "ln"] };

Deno.test({
  name: "stamp() is undefined for a missing file and changes when the file is replaced",
  permissions: files,
  async fn() {
    const path = join(base, "stamp.json");
    assert.equal(await stamp(path), undefined);
    await Deno.writeTextFile(path, "{}");
    const first = await stamp(path);
    await Deno.writeTextFile(`${path}.new`, "{}");
    await Deno.rename(`${path}.new`, path);
    const second = await stamp(path);
    assert.ok(first !== undefined && second !== undefined);
    assert.notEqual(first.key, second.key);
  },
});

Deno.test({
  name: "stamp() passes a permission error on instead of reporting the file missing",
  permissions: files,
  async fn() {
    // A config the process may not read must not look removed, or a reload would drop it silently.
    const elsewhere = join(base, "..", `not-granted-${crypto.randomUUID()}.json`);
    await assert.rejects(stamp(elsewhere), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "readBounded() reads a whole file and refuses one larger than the limit",
  permissions: files,
  async fn() {
    const path = join(base, "bounded.json");
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => i % 251);
    await Deno.writeFile(path, bytes);
    assert.deepEqual(await readBounded(path, 200_000), bytes);
    await assert.rejects(readBounded(path, 199_999), RangeError, "Cannot read config: it is larger than 199999 bytes");
  },
});

Deno.test({
  name: "readBounded() refuses a path that is not a regular file",
  permissions: files,
  async fn() {
    await assert.rejects(readBounded(base, 1024), TypeError, "Cannot read config: it is not a regular file");
  },
});

Deno.test({
  name: "readBounded() refuses a FIFO at once instead of waiting for a writer, and says a missing file is missing",
  permissions: files,
  async fn() {
    const fifo = join(base, "fifo.json");
    assert.ok(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success);
    // A blocking open would wait here for a writer: this one comes late, so such code fails the test, not hangs it.
    const writer = lateFifoWriter(fifo);
    try {
      await assert.rejects(readBounded(fifo, 1024), TypeError, "Cannot read config: it is not a regular file");
      assert.ok(!writer.came(), "the open waited for the FIFO's other end: it was opened without O_NONBLOCK");
    } finally {
      await writer.end();
    }
    await assert.rejects(readBounded(join(base, "absent.json"), 1024), Deno.errors.NotFound);
  },
});

Deno.test({
  name:
    "readBounded() reads only the file the safety check approved: a symlink that leaves its folder renamed over the path after the check is refused (a red team raced reloads to apply one)",
  permissions: files,
  async fn() {
    const dir = await Deno.makeTempDir({ dir: base });
    const outside = await Deno.makeTempDir({ dir: base });
    const path = join(dir, "config.json");
    await Deno.writeTextFile(path, '{"deny":["**/secret*"]}');
    await Deno.writeTextFile(join(outside, "evil.json"), '{"deny":[]}');
    const checked = await fileSafety(path);
    assert.equal(checked.reason, undefined);
    const info = await Deno.stat(path);
    assert.equal(checked.identity, `${info.dev}:${info.ino}`);
    // The swap lands between the check and the open, as a racing process's would.
    const made = await new Deno.Command("ln", { args: ["-s", join(outside, "evil.json"), `${path}.new`] }).output();
    assert.ok(made.success);
    await Deno.rename(`${path}.new`, path);
    await assert.rejects(readBounded(path, 1000, checked), ChangedError);
    // Another file renamed over the checked one is refused too: it is not the file checked.
    const again = join(dir, "again.json");
    await Deno.writeTextFile(again, '{"deny":[]}');
    await Deno.writeTextFile(`${again}.new`, "{}");
    const before = await fileSafety(again);
    await Deno.rename(`${again}.new`, again);
    await assert.rejects(readBounded(again, 1000, before), ChangedError);
    // Checked again, it is refused for what it is.
    assert.match((await fileSafety(path)).reason ?? "", /is a symlink to .* which leaves its directory/);
    // A symlink that stays in its folder is checked and read as its target.
    await Deno.writeTextFile(join(dir, "real.json"), "{}");
    await Deno.remove(path);
    await new Deno.Command("ln", { args: ["-s", "real.json", path] }).output();
    const inside = await fileSafety(path);
    const target = await Deno.stat(join(dir, "real.json"));
    assert.equal(inside.identity, `${target.dev}:${target.ino}`);
    assert.equal(inside.symlink, true);
    assert.deepEqual(await readBounded(path, 1000, inside), new TextEncoder().encode("{}"));
  },
});
