// Runs one of the tasks' scripts (`scripts/<name>.ts`) as `deno task` would,
// from the repository, and returns what it printed: the tests of compile and
// bundle read their command lines and one-line failures from it.
import { fileURLToPath } from "node:url";

/** What a script printed, and its exit code. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** Runs `scripts/<script>` with `args` under the permissions its task grants. */
export async function runTaskScript(script: string, args: string[]): Promise<ScriptRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-run", "--allow-read", "--allow-env", `scripts/${script}`, ...args],
    cwd: repo,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}
