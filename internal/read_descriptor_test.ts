// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { readDescriptor } from "./read_descriptor.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "read_descriptor_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test({
  name: "readDescriptor() reads from the descriptor's position into the buffer's offset, and 0 at the end",
  permissions: { read: [dir], write: [dir] },
  async fn() {
    const path = join(dir, "f.txt");
    await Deno.writeTextFile(path, "abcdef");
    const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const buffer = new Uint8Array(8).fill(0x2e);
      assert.equal(await readDescriptor(fd, buffer, 2, 4), 4);
      assert.equal(await readDescriptor(fd, buffer, 6, 2), 2);
      assert.equal(new TextDecoder().decode(buffer), "..abcdef");
      assert.equal(await readDescriptor(fd, buffer, 0, 8), 0);
    } finally {
      fs.closeSync(fd);
    }
  },
});
