// A second, independent client for the examples' end-to-end tests: the MCP
// Inspector CLI, fetched by npx, drives a server over stdio. npx fetches the
// Inspector on first use (cached afterwards), so the deadline is generous.
// The server command line carries exactly the flags the server prints for
// its config: the Inspector's Node child_process hands down no permission,
// and the server would refuse any excess anyway.
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { childEnv } from "@forge/toolkit/testing";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** What an Inspector test needs: npx and deno, the test's tree, PATH and HOME for npx, and what `childEnv()` reads. */
export const INSPECTOR_PERMISSIONS: Deno.PermissionOptions = {
  run: true,
  read: "inherit",
  write: "inherit",
  env: "inherit",
};

const FIRST_INSTALL_MS = 240_000;

/** One run of the Inspector CLI: its exit code, the JSON it printed, and its stderr. */
export interface InspectorRun {
  code: number;
  json: Record<string, unknown>;
  stderr: string;
}

/** Runs `program` in the checkout with PATH, HOME and what `childEnv()` passes on, and collects its output. */
function run(program: string, args: string[]): Promise<Deno.CommandOutput> {
  return new Deno.Command(program, {
    args,
    cwd: REPO,
    clearEnv: true,
    env: childEnv({ PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(FIRST_INSTALL_MS),
  }).output();
}

/** The Inspector's program by package (`@modelcontextprotocol/inspector@0.15.0`), found once per test process. */
const programs = new Map<string, Promise<string>>();

/**
 * Where npx keeps `mcp-inspector` of `spec` (fetching it on first use): asked
 * once, so that each later run starts the Inspector alone, without npm's own
 * Node process before it (about half of a run's CPU).
 */
function program(spec: string): Promise<string> {
  let found = programs.get(spec);
  if (found === undefined) {
    found = (async () => {
      const out = await run("npx", ["-y", "-p", spec, "-c", "command -v mcp-inspector"]);
      const path = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
      if (!out.success || !path.startsWith("/")) {
        throw new Error(
          `npx found no mcp-inspector in ${spec} (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`,
        );
      }
      return path;
    })();
    programs.set(spec, found);
  }
  return found;
}

/**
 * Runs the Inspector: `args[0]` names its package, the rest are its own
 * arguments. It gets PATH, HOME and what `childEnv()` passes on; what it
 * prints is parsed as JSON.
 */
export async function inspector(args: string[]): Promise<InspectorRun> {
  const [spec, ...rest] = args;
  const out = await run(await program(spec), rest);
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  try {
    return { code: out.code, json: JSON.parse(stdout), stderr };
  } catch {
    throw new Error(
      `The Inspector did not print JSON (exit ${out.code}): ${stdout.slice(0, 500)} ${stderr.slice(0, 1500)}`,
    );
  }
}

/**
 * The Inspector options and the command line that start `script` on `config`
 * with exactly its printed flags. Newer Inspectors start a server with only
 * PATH and HOME of their own environment, so what `childEnv()` passes on is
 * handed over with `-e`: without DENO_DIR or the proxy the server could not
 * load its dependencies.
 */
export async function serverCommand(script: string, config: string): Promise<{ env: string[]; command: string[] }> {
  const flags = await printedPermissions({ script, config, cwd: REPO });
  const env = Object.entries(childEnv()).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  return { env, command: [Deno.execPath(), "run", "--no-prompt", ...flags, script, "-config", config] };
}

/** The text of each content block of a `tools/call` result. */
export function texts(result: Record<string, unknown>): string[] {
  return (result.content as { text: string }[]).map((block) => block.text);
}
