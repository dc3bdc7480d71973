// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { definePolicy } from "../validate/policy.ts";
import { fileGrantProblems } from "./file_grants.ts";

Deno.test("fileGrantProblems() names each file grant that is a folder, a link or the root, and passes files, devices, absent paths and a descriptor anchor", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const file = join(dir, "audit.jsonl");
  await Deno.writeTextFile(file, "");
  const link = join(dir, "tenant.json");
  const made = await new Deno.Command("ln", { args: ["-s", "/", link] }).output();
  assert.ok(made.success);
  const policy = definePolicy({
    readFiles: [file, join(dir, "absent.json"), link],
    writeFiles: [dir, "/"],
  });
  assert.deepEqual(await fileGrantProblems(policy), [
    `its policy grants ${JSON.stringify(link)} as a file (readFiles), but it is a symbolic link: Deno checks the ` +
    "link's own path, so everything below its target would be allowed; name a file",
    `its policy grants ${
      JSON.stringify(dir)
    } as a file (writeFiles), but it is a folder: Deno would allow everything ` +
    "below it; name a file",
    'its policy grants "/" as a file (writeFiles), but it is the root folder: Deno would allow everything',
  ]);
  assert.deepEqual(await fileGrantProblems(definePolicy({ readRoots: [dir], readFiles: [file, "/dev/null"] })), []);
  // A descriptor anchor is a link to /proc/self/fd on purpose.
  const anchor = join(dir, "fd");
  assert.ok((await new Deno.Command("ln", { args: ["-s", "/proc/self/fd", anchor] }).output()).success);
  assert.deepEqual(await fileGrantProblems(definePolicy({ readFiles: [anchor], writeFiles: [anchor] })), []);
  await Deno.remove(dir, { recursive: true });
});
