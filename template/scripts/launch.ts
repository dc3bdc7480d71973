// `deno task start | dev | inspect | permissions | host-config | compile | bundle`: the server's
// Deno flags always come from the server itself (`--print-permissions` for the
// config in use), so a new `${VAR}` or folder in the config needs no edit here.
//
//   start        run the server with exactly its flags (and RUNTIME_FLAGS, which grant nothing)
//   dev          the same, restarted on every change of a .ts or .json file (see _dev.ts)
//   inspect      open the MCP Inspector on it (extra arguments go to the Inspector,
//                e.g. `deno task inspect --cli --method tools/list`)
//   permissions  print the flags start runs with, with the values of the config's ${VAR}s
//   host-config  print a host entry: `deno task host-config claude|vscode [--npx]`
//   compile      one binary in dist/ with those flags baked in and the config embedded
//                (`--dry-run` prints the `deno compile` command without running it)
//   bundle       the server as chunks of JavaScript in dist/my-server.bundle, which start
//                sooner than its sources, and the `deno run` line with its flags that starts
//                them (`--dry-run` prints both without bundling)
//
// `--config=FILE` picks another config (default config/config.example.json).
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { configVariables } from "@forge/toolkit/configreload";
import { bundleServer, compileServer, printedPermissions, RUNTIME_FLAGS, shellQuote } from "@forge/toolkit/permissions";
import { devLoop } from "./_dev.ts";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const INSPECTOR_MODES = ["--cli", "--web", "--tui"];
const MODES = ["start", "dev", "inspect", "permissions", "host-config", "compile", "bundle"];

const project = fileURLToPath(new URL("..", import.meta.url));
const script = resolve(project, "main.ts");
const [mode, ...rest] = Deno.args;
const at = rest.findIndex((arg) => arg.startsWith("--config="));
const config = resolve(at < 0 ? resolve(project, "config/config.example.json") : rest.splice(at, 1)[0].slice(9));
if (!MODES.includes(mode)) {
  console.error(`Cannot launch: ${JSON.stringify(mode ?? "")} is not one of ${MODES.join(", ")}`);
  Deno.exit(64);
}
// Every mode puts the config's path into a permission flag's list, which Deno splits at commas.
if (config.includes(",") || config.includes("\0")) {
  console.error(`Cannot launch: the config path ${JSON.stringify(config)} contains a NUL byte or a comma`);
  Deno.exit(64);
}

const ask = () => printedPermissions({ script, config, env: Deno.env.toObject() });
if (mode === "permissions") {
  // Asked exactly as start, dev and inspect ask (this environment, FORGE_TENANT_CONFIG included), so the flags
  // printed are the flags they run with: a tenant file that exists wins over --config, in both.
  try {
    console.log((await ask()).map(shellQuote).join(" "));
    Deno.exit(0);
  } catch (err) {
    console.error((err as Error).message.trim());
    Deno.exit(1);
  }
}

if (mode === "host-config") {
  // Printing needs only the config file and its variables, never what the server grants.
  const names = configVariables(await Deno.readFile(config));
  const printing = ["--print-host-config", ...rest];
  Deno.exit(
    await deno([
      `--allow-read=${config}`,
      ...(names.length > 0 ? [`--allow-env=${names.join(",")}`] : []),
      script,
      "-config",
      config,
      ...printing,
    ]),
  );
}

if (mode === "compile") {
  try {
    const output = resolve(project, "dist/my-server");
    const result = await compileServer({ entry: script, config, output, dryRun: rest.includes("--dry-run") });
    console.log(result.commandLine);
    if (result.error) console.error(result.error);
    Deno.exit(rest.includes("--dry-run") || result.built ? 0 : 1);
  } catch (err) {
    console.error((err as Error).message.trim());
    Deno.exit(1);
  }
}

if (mode === "bundle") {
  try {
    const outdir = resolve(project, "dist/my-server.bundle");
    const result = await bundleServer({ entry: script, config, outdir, dryRun: rest.includes("--dry-run") });
    console.log(result.commandLine);
    if (result.error) {
      console.error(result.error);
      Deno.exit(1);
    }
    console.log(result.runLine);
    Deno.exit(0);
  } catch (err) {
    console.error((err as Error).message.trim());
    Deno.exit(1);
  }
}

if (mode === "dev") {
  const log = (line: string) => console.error(line);
  Deno.exit(
    await devLoop({
      root: project.replace(/\/$/, ""),
      server: [script, "-config", config, ...rest],
      flags: async () => [...RUNTIME_FLAGS, ...await ask()],
      log,
    }),
  );
}
let flags: string[];
try {
  flags = await ask();
} catch (err) {
  console.error((err as Error).message.trim());
  Deno.exit(1);
}
const server = [...RUNTIME_FLAGS, ...flags, script, "-config", config];
if (mode === "start") Deno.exit(await deno([...server, ...rest]));
// The Inspector hands its server a minimal environment, so the config's variables must reach it through the
// Inspector. On its command line (-e NAME=value) any user of the machine could read them (ps, /proc/<pid>/cmdline):
// the server's command and environment go in a session file instead, in a folder only this user may open, removed
// once the Inspector exits. Its mode flag (--cli, --web, --tui) must stay first.
const env: Record<string, string> = {};
for (const name of configVariables(await Deno.readFile(config))) {
  const value = Deno.env.get(name);
  if (value !== undefined) env[name] = value;
}
const session = await Deno.makeTempDir({ prefix: "my-server-inspector-" });
const file = join(session, "session.json");
const entry = { command: Deno.execPath(), args: ["run", "--quiet", "--no-prompt", ...server], env };
await Deno.writeTextFile(file, JSON.stringify({ mcpServers: { "my-server": entry } }), {
  mode: 0o600,
  createNew: true,
});
const lead = rest.findIndex((arg) => !INSPECTOR_MODES.includes(arg));
const [modes, others] = lead < 0 ? [rest, []] : [rest.slice(0, lead), rest.slice(lead)];
let code: number;
try {
  code = await spawn("npx", ["-y", INSPECTOR, ...modes, "--config", file, ...others]);
} finally {
  await Deno.remove(session, { recursive: true });
}
Deno.exit(code);

function deno(args: string[]): Promise<number> {
  return spawn(Deno.execPath(), ["run", "--quiet", "--no-prompt", ...args]);
}

async function spawn(command: string, args: string[]): Promise<number> {
  const child = new Deno.Command(command, { args, cwd: project }).spawn();
  // Ctrl-C reaches the whole process group, the server included, so the launcher only waits for
  // it (a second SIGINT would make the server quit without draining); SIGTERM is sent to us alone.
  Deno.addSignalListener("SIGINT", () => {});
  Deno.addSignalListener("SIGTERM", () => child.kill("SIGTERM"));
  return (await child.status).code;
}
