// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/mkfifo
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertLineFilesBounded } from "./line_files.ts";

Deno.test("assertLineFilesBounded() passes no shallow, info/exclude or info/attributes file or ones within the bound, and refuses a larger one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assertLineFilesBounded("app", dir);
    await Deno.mkdir(join(dir, "info"));
    await Deno.writeTextFile(join(dir, "shallow"), `${"f".repeat(40)}\n`);
    await Deno.writeTextFile(join(dir, "info", "exclude"), `${"*.o\n".repeat(10)}`);
    await Deno.writeTextFile(join(dir, "info", "attributes"), `${"* -diff\n".repeat(4)}`);
    await assertLineFilesBounded("app", dir, 41);
    const refused = (file: string, max: number) => (err: unknown) => {
      assert.ok(err instanceof PolicyError && err.code === "too-large", String(err));
      assert.ok(err.message.startsWith(`Cannot use repo "app": its ${file} file is over ${max} bytes, `), err.message);
      return true;
    };
    await assert.rejects(assertLineFilesBounded("app", dir, 40), refused("shallow", 40));
    await Deno.remove(join(dir, "shallow"));
    await assert.rejects(assertLineFilesBounded("app", dir, 39), refused("info/exclude", 39));
    await Deno.remove(join(dir, "info", "exclude"));
    await assertLineFilesBounded("app", dir, 32);
    await assert.rejects(assertLineFilesBounded("app", dir, 31), refused("info/attributes", 31));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("assertLineFilesBounded() refuses a shallow, info/exclude or info/attributes file that is a FIFO or a folder, which git would wait on until the deadline (a red team held every git_status)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "info"));
    for (const path of ["shallow", "info/exclude", "info/attributes"]) {
      const { success } = await new Deno.Command("/usr/bin/mkfifo", { args: [join(dir, path)] }).output();
      assert.ok(success, `mkfifo ${path}`);
      await assert.rejects(assertLineFilesBounded("app", dir), (err) => {
        assert.ok(err instanceof PolicyError && err.code === "not-a-file", String(err));
        assert.equal(
          err.message,
          `Cannot use repo "app": its ${path} is not a regular file, and git reads it on every call`,
        );
        return true;
      });
      await Deno.remove(join(dir, path));
      await Deno.mkdir(join(dir, path));
      await assert.rejects(assertLineFilesBounded("app", dir), /is not a regular file/, `a folder at ${path}`);
      await Deno.remove(join(dir, path));
    }
    await assertLineFilesBounded("app", dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
