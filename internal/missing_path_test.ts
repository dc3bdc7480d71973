// test-permissions: --allow-read --allow-write
import assert from "node:assert/strict";
import { isMissingPath } from "./missing_path.ts";

Deno.test("isMissingPath() is true for a missing name and for a file used as a folder, false for other errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/file`, "x");
    const errorOf = (path: string) => Deno.stat(path).then(() => undefined, (err) => err);
    assert.equal(isMissingPath(await errorOf(`${dir}/absent`)), true);
    assert.equal(isMissingPath(await errorOf(`${dir}/file/below`)), true);
    assert.equal(await errorOf(`${dir}/file`), undefined);
    assert.equal(isMissingPath(new Deno.errors.PermissionDenied("no")), false);
    assert.equal(isMissingPath(new Error("other")), false);
    assert.equal(isMissingPath(undefined), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
