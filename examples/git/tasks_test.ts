// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// The deno.json tasks of this example: `git` runs the sample with exactly the
// flags the server prints for it, and `compile:git` builds from them.
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv, printedPermissions } from "@forge/toolkit/testing";

const SCRIPT = fileURLToPath(new URL("./main.ts", import.meta.url));
const REPO = dirname(dirname(dirname(SCRIPT)));
const SAMPLE = join(REPO, "examples", "git", "sample", "config.json");
const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [REPO], env: "inherit" };

/** The words of the `deno run` a task ends with (after `deno task git:sample &&`). */
async function task(name: "git" | "compile:git"): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const line: string | undefined = json.tasks?.[name];
  assert.ok(line, `deno.json has no task ${name}`);
  const words = line.split(" && ").at(-1)!.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"], line);
  return words.slice(2);
}

/** Permission flags with their paths resolved from the checkout, sorted, for comparison. */
function normalised(flags: readonly string[]): string[] {
  return flags.filter((f) => /^--(allow|deny)-/.test(f)).map((flag) => {
    const [name, list] = flag.split("=");
    if (list === undefined || name === "--allow-env") return flag;
    const absolute = name === "--allow-run" ? list.split(",") : list.split(",").map((p) => resolve(REPO, p));
    return `${name}=${absolute.sort().join(",")}`;
  }).sort();
}

Deno.test({
  name: "the git task grants exactly what --print-permissions prints for the sample config",
  permissions: perms,
  async fn() {
    const args = await task("git");
    const printed = await printedPermissions({ script: SCRIPT, config: SAMPLE, cwd: REPO });
    assert.deepEqual(normalised(args), normalised(printed));
    assert.ok(args.includes("--no-prompt") && args.at(-1) === "examples/git/sample/config.json");
  },
});

Deno.test({
  name: "compile:git --dry-run builds deno compile from the printed flags, embeds the config and names dist/git",
  permissions: perms,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...await task("compile:git"), "--dry-run"],
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
    assert.ok(command.includes("--allow-run=/usr/bin/git,/usr/bin/kill"), command.join(" "));
    assert.equal(command[command.indexOf("--output") + 1], "dist/git");
  },
});
