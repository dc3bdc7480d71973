// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertNotOwnFiles } from "./own_files.ts";

const denied = (path: string) => (err: unknown) =>
  err instanceof PolicyError && err.code === "denied-by-glob" &&
  err.message === `Cannot commit "${path}" in repo "app": the policy denies this path`;

/** Makes a symbolic link with a child: Deno.symlink needs unscoped permissions. */
async function link(target: string, at: string): Promise<void> {
  assert.ok((await new Deno.Command("/usr/bin/ln", { args: ["-s", target, at] }).output()).success);
}

Deno.test("assertNotOwnFiles() refuses an own file by its real path, by a second name, and through a linked folder", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    const root = join(base, "app");
    await Deno.mkdir(join(root, "logs"), { recursive: true });
    await Deno.writeTextFile(join(root, "git.json"), "{}");
    await Deno.writeTextFile(join(root, "logs", "audit.jsonl"), "");
    await Deno.link(join(root, "git.json"), join(root, "copy.json"));
    // The operator names the audit file through a link to the work tree's folder.
    await link(join(root, "logs"), join(base, "trail"));
    const own = [join(root, "git.json"), join(base, "trail", "audit.jsonl"), join(root, "tenant.json")];
    for (const path of ["git.json", "copy.json", "logs/audit.jsonl", "tenant.json"]) {
      await assert.rejects(assertNotOwnFiles(root, "app", "commit", ["README.md", path], own), denied(path));
    }
    // A link to one is committed as its own text; other files, and no own files at all, pass.
    await link(join(root, "git.json"), join(root, "points.json"));
    await assertNotOwnFiles(root, "app", "commit", ["points.json", "README.md", "missing.txt"], own);
    await assertNotOwnFiles(root, "app", "commit", ["git.json"], []);
    // One this process may not look up (outside this test's --allow-read) is refused by its name in every folder.
    const hidden = ["/etc/forge/tenant/git.json"];
    await assert.rejects(assertNotOwnFiles(root, "app", "commit", ["logs/git.json"], hidden), denied("logs/git.json"));
    await assertNotOwnFiles(root, "app", "commit", ["README.md"], hidden);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
