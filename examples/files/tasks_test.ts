// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// The deno.json tasks of this example: `files` runs the sample with exactly
// the flags the server prints for it, and `compile:files` builds from them.
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { childEnv, printedPermissions, probe, spawnServer } from "@forge/toolkit/testing";
import { REPO, SCRIPT } from "./_e2e.ts";

const SAMPLE = join(REPO, "examples", "files", "sample", "config.json");
const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [REPO], env: "inherit" };

async function task(name: "files" | "compile:files"): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const line: string | undefined = json.tasks?.[name];
  assert.ok(line, `deno.json has no task ${name}`);
  const words = line.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"], line);
  return words.slice(2);
}

/** Permission flags with their paths resolved from the checkout, sorted, for comparison. */
function normalised(flags: readonly string[]): string[] {
  return flags.filter((f) => /^--(allow|deny)-/.test(f)).map((flag) => {
    const [name, list] = flag.split("=");
    if (list === undefined || name === "--allow-env") return flag;
    return `${name}=${list.split(",").map((p) => resolve(REPO, p)).sort().join(",")}`;
  }).sort();
}

Deno.test({
  name: "the files task grants exactly what --print-permissions prints for the sample config",
  permissions: perms,
  async fn() {
    const args = await task("files");
    const printed = await printedPermissions({ script: SCRIPT, config: SAMPLE, cwd: REPO });
    assert.deepEqual(normalised(args), normalised(printed));
    assert.ok(args.includes("examples/files/main.ts") && args.at(-1) === "examples/files/sample/config.json");
  },
});

Deno.test({
  name: "the files task starts the sample server, which passes its own least-privilege check and serves",
  permissions: perms,
  async fn() {
    for (const path of [SAMPLE, join(SAMPLE, "..")]) {
      // The loader refuses a config that others could change; a checkout made under umask 002 has one.
      const mode = (await Deno.stat(path)).mode! & 0o777;
      assert.equal(mode & 0o022, 0, `${path} has mode 0${mode.toString(8)}: run chmod go-w on it`);
    }
    const server = await spawnServer({ args: await task("files"), cwd: REPO });
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
  permissions: perms,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...await task("compile:files"), "--dry-run"],
      cwd: REPO,
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const command = new TextDecoder().decode(out.stdout).trim().split(" ");
    assert.deepEqual(command.slice(0, 3), ["deno", "compile", "--no-prompt"]);
    const printed = await printedPermissions({ script: SCRIPT, config: SAMPLE, cwd: REPO });
    assert.deepEqual(normalised(command), normalised(printed));
    assert.equal(command[command.indexOf("--include") + 1], SAMPLE);
    assert.equal(command[command.indexOf("--output") + 1], "dist/files");
    assert.deepEqual(command.slice(-3), ["examples/files/main.ts", "-config", SAMPLE]);
  },
});
