// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=mkfifo,sh
import { lateFifoWriter } from "../internal/testdata/fifo_writer.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readBounded, stamp } from "./_read_file.ts";

const base = await Deno.makeTempDir({ prefix: "configreload_read_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files: Deno.PermissionOptions = { read: [base], write: [base], run: ["mkfifo", "sh"] };

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
