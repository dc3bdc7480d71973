// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertNoLinkedFolder, repoPath } from "./repo_path.ts";

Deno.test("repoPath() normalises a path inside the work tree", () => {
  assert.equal(repoPath("path", "./src//a.ts"), "src/a.ts");
  assert.equal(repoPath("path", "src/../README.md"), "README.md");
  assert.equal(repoPath("path", "dir/"), "dir");
  assert.equal(repoPath("path", "."), ".");
  assert.equal(repoPath("path", "-p"), "-p");
});

Deno.test("repoPath() refuses absolute paths, escapes, .git and control characters", () => {
  for (const bad of ["/etc/passwd", "../x", "a/../../x", "..", ".git", "a/.Git/config", "a\nb", "a\0b", ""]) {
    assert.throws(() => repoPath("path", bad), PolicyError, JSON.stringify(bad));
  }
  assert.throws(() => repoPath("path", "a".repeat(5000)), /1 to 4096/);
});

Deno.test("assertNoLinkedFolder() refuses a path through a linked folder and allows missing parts", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(join(base, "real"));
    // Deno.symlink needs unscoped permissions: a child makes the link.
    const ln = await new Deno.Command("ln", { args: ["-s", "/etc", join(base, "link")] }).output();
    assert.ok(ln.success);
    await assert.rejects(assertNoLinkedFolder(base, "path", "link/passwd"), PolicyError);
    await assert.rejects(assertNoLinkedFolder(base, "path", "real/../link/passwd"), PolicyError);
    // The last part may be a link: git shows a link's own text, never its target.
    await assertNoLinkedFolder(base, "path", "link");
    await assertNoLinkedFolder(base, "path", "real/missing/file.txt");
    await assertNoLinkedFolder(base, "path", "gone/file.txt");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
