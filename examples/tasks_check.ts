// One check for the deno.json tasks of every config-driven example: `<name>`
// runs the sample with exactly the flags the server prints for it, and
// `compile:<name>` builds from the same flags. Each example's tasks_test.ts
// adds what is its own (the sample's answers, git's programs).
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { printedPermissions, RUNTIME_FLAGS } from "@forge/toolkit/permissions";
import { childEnv } from "@forge/toolkit/testing";

/** The checkout, where deno.json maps the toolkit's names. */
export const REPO: string = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

/** What these checks need: run deno, read the checkout, and pass on what `childEnv()` reads. */
export const TASK_PERMISSIONS: Deno.PermissionOptions = { run: [Deno.execPath()], read: [REPO], env: "inherit" };

/** How a task names the running deno's own path, which differs from machine to machine (the sqlite task runs it). */
export const DENO_PATH_IN_TASK = "$(deno eval 'console.log(Deno.execPath())')";

/**
 * The words after `deno run` of a deno.json task, with {@linkcode DENO_PATH_IN_TASK}
 * replaced by this deno's path; a task that first prepares something
 * (`deno task git:sample && deno run …`) is read from its last step.
 */
export async function taskArgs(task: string): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const line: string | undefined = json.tasks?.[task];
  assert.ok(line, `deno.json has no task ${task}`);
  const words = line.replaceAll(DENO_PATH_IN_TASK, Deno.execPath()).split(" && ").at(-1)!.split(/\s+/);
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

/** Each example's printed flags, read once per test file: the sample config and the server do not change. */
const printedOnce = new Map<string, Promise<string[]>>();

/** The flags the example's server prints for its sample config (a copy, for the caller to keep or change). */
async function printed(name: string): Promise<string[]> {
  let flags = printedOnce.get(name);
  if (flags === undefined) {
    const script = join(REPO, "examples", name, "main.ts");
    const config = join(REPO, "examples", name, "sample", "config.json");
    flags = printedPermissions({ script, config, cwd: REPO });
    printedOnce.set(name, flags);
    // A failed run is not kept: the next test that asks runs it again and fails on its own.
    flags.catch(() => printedOnce.delete(name));
  }
  return [...await flags];
}

/**
 * Asserts that the task `name` never prompts, starts with `RUNTIME_FLAGS`, grants exactly the printed flags
 * and starts `examples/<name>/main.ts` on the sample config.
 *
 * @returns The task's words after `deno run`, to start the server with.
 */
export async function assertTaskGrantsPrinted(name: string): Promise<string[]> {
  const args = await taskArgs(name);
  assert.deepEqual(normalised(args), normalised(await printed(name)));
  assert.deepEqual(
    args.slice(0, 1 + RUNTIME_FLAGS.length),
    ["--no-prompt", ...RUNTIME_FLAGS],
    "as the launch lines start it",
  );
  assert.ok(args.includes(`examples/${name}/main.ts`), args.join(" "));
  assert.equal(args.at(-1), `examples/${name}/sample/config.json`);
  return args;
}

/**
 * Runs `compile:<name> --dry-run` and asserts the `deno compile` it prints:
 * no prompt, exactly the printed flags (where they let the server run this
 * deno, the binary instead: compiled, its executable is the binary), the
 * sample config embedded and passed, the binary named `dist/<name>`.
 *
 * @returns The printed command's words.
 */
export async function assertCompileDryRun(name: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...await taskArgs(`compile:${name}`), "--dry-run"],
    cwd: REPO,
    clearEnv: true,
    env: childEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const command = new TextDecoder().decode(out.stdout).trim().split(" ");
  const sample = join(REPO, "examples", name, "sample", "config.json");
  assert.deepEqual(command.slice(0, 3 + RUNTIME_FLAGS.length), ["deno", "compile", "--no-prompt", ...RUNTIME_FLAGS]);
  const binary = join(await Deno.realPath(REPO), "dist", name);
  const expected = (await printed(name)).map((flag) =>
    flag.startsWith("--allow-run=")
      ? `--allow-run=${flag.slice(12).split(",").map((run) => run === Deno.execPath() ? binary : run).join(",")}`
      : flag
  );
  assert.deepEqual(normalised(command), normalised(expected));
  assert.equal(command[command.indexOf("--include") + 1], sample);
  assert.equal(command[command.indexOf("--output") + 1], `dist/${name}`);
  assert.deepEqual(command.slice(-3), [`examples/${name}/main.ts`, "-config", sample]);
  return command;
}
