// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertShallowBounded } from "./shallow_file.ts";

Deno.test("assertShallowBounded() passes no shallow file or one within the bound, and refuses a larger one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assertShallowBounded("app", dir);
    await Deno.writeTextFile(join(dir, "shallow"), `${"f".repeat(40)}\n`);
    await assertShallowBounded("app", dir, 41);
    await assert.rejects(assertShallowBounded("app", dir, 40), (err: unknown) => {
      assert.ok(err instanceof PolicyError && err.code === "too-large", String(err));
      assert.match(err.message, /^Cannot use repo "app": its shallow file is over 40 bytes, /);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
