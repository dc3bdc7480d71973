// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// The deno.json tasks of this example (checked by ../tasks_check.ts); of its
// own, the sample server started by the task serves the sample and keeps its
// deny glob.
import assert from "node:assert/strict";
import { join } from "node:path";
import { probe, spawnServer } from "@forge/toolkit/testing";
import { assertCompileDryRun, assertTaskGrantsPrinted, REPO, TASK_PERMISSIONS, taskArgs } from "../tasks_check.ts";

const SAMPLE = join(REPO, "examples", "files", "sample", "config.json");

Deno.test({
  name: "the files task grants exactly what --print-permissions prints for the sample config",
  permissions: TASK_PERMISSIONS,
  async fn() {
    await assertTaskGrantsPrinted("files");
  },
});

Deno.test({
  name: "the files task starts the sample server, which passes its own least-privilege check and serves",
  permissions: TASK_PERMISSIONS,
  async fn() {
    for (const path of [SAMPLE, join(SAMPLE, "..")]) {
      // The loader refuses a config that others could change; a checkout made under umask 002 has one.
      const mode = (await Deno.stat(path)).mode! & 0o777;
      assert.equal(mode & 0o022, 0, `${path} has mode 0${mode.toString(8)}: run chmod go-w on it`);
    }
    const server = await spawnServer({ args: await taskArgs("files"), cwd: REPO });
    const listing = await server.client.callTool({ name: "list_dir", arguments: { path: "." } });
    const entries = (listing.structuredContent as { entries: { path: string }[] }).entries.map((e) => e.path);
    assert.deepEqual(entries, ["README.md", "notes"]);
    const secret = await server.client.callTool({ name: "read_file", arguments: { path: "notes/secret-plan.txt" } });
    assert.equal(secret.isError, true, "the sample's deny glob holds");
    const { patterns } = await probe(server.client, "write_file", { path: "hello.txt", content: "hi" });
    assert.deepEqual(patterns, [`write:${join(REPO, "examples", "files", "sample", "workspace", "hello.txt")}`]);
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "compile:files --dry-run builds deno compile from the printed flags, embeds the config and names dist/files",
  permissions: TASK_PERMISSIONS,
  async fn() {
    await assertCompileDryRun("files");
  },
});
