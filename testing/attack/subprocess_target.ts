import { resolve } from "node:path";
import { denoRun } from "../../internal/deno_run.ts";
import { Bell, Gate, Lines, pump } from "./_lines.ts";
import type { AttackConnection, AttackScope, AttackTarget, AttackWorld } from "./target.ts";

/** Options of {@linkcode subprocessTarget}. */
export interface SubprocessTargetOptions {
  /**
   * Everything after `deno run`: the server's own flags (what it prints for
   * `--print-permissions`), the script, its arguments. A function gets the
   * kit's canaries first, for a config that names the listener.
   */
  args: readonly string[] | ((world: AttackWorld) => readonly string[] | Promise<readonly string[]>);
  /**
   * The server's environment; of this process's own, only what `childEnv()` passes on is inherited.
   * @default {{}}
   */
  env?: Record<string, string>;
  /** The server's working directory; relative paths in the flags start here. */
  cwd?: string;
  /**
   * The name in reports.
   * @default {the script: the first argument that does not start with "-"}
   */
  name?: string;
}

/** Paths a permission flag grants: `--allow-read=a,b` → both, resolved; a bare `--allow-read` → `/`. */
export function flagPaths(args: readonly string[], flag: string, cwd: string): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (arg === flag) out.push("/");
    else if (arg.startsWith(`${flag}=`)) out.push(...arg.slice(flag.length + 1).split(",").map((p) => resolve(cwd, p)));
  }
  return out;
}

/**
 * The resident memory of `pid`: its `VmRSS` line of /proc/<pid>/status, read
 * through `cat` (Deno lets a script read /proc/<pid> only with --allow-all,
 * while a test has --allow-run), else, where there is no /proc, from `ps`. A
 * `cat` costs a third of a `ps`, and the kit reads every 8 cases.
 */
async function readRss(pid: number): Promise<number | undefined> {
  const kib = await output("cat", [`/proc/${pid}/status`], (text) => /^VmRSS:\s+(\d+) kB$/m.exec(text)?.[1]) ??
    await output("ps", ["-o", "rss=", "-p", String(pid)], (text) => text.trim());
  const kb = Number(kib);
  return kib !== undefined && Number.isFinite(kb) && kb > 0 ? kb * 1024 : undefined;
}

/** What `pick` finds in the output of `program` run with `args`; undefined when it fails or cannot start. */
async function output(
  program: string,
  args: string[],
  pick: (text: string) => string | undefined,
): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(program, { args, stdin: "null", stderr: "null" }).output();
    return out.success ? pick(new TextDecoder().decode(out.stdout)) : undefined;
  } catch {
    return undefined;
  }
}

function startProcess(args: readonly string[], options: SubprocessTargetOptions): AttackConnection {
  const cwd = options.cwd ?? Deno.cwd();
  const child = denoRun(args, { env: options.env, cwd }).spawn();
  const bell = new Bell();
  const [out, err] = [new Lines(bell), new Lines(bell)];
  const [outGate, errGate] = [new Gate(), new Gate()];
  const stdin = child.stdin.getWriter();
  const scope: AttackScope = {
    read: flagPaths(args, "--allow-read", cwd),
    write: flagPaths(args, "--allow-write", cwd),
  };
  const connection: AttackConnection & { ended: { code: number | undefined } | undefined } = {
    scope,
    lines: out.lines,
    stderr: err.lines,
    ended: undefined,
    send: (bytes) => stdin.write(bytes),
    wait: (ms) => bell.wait(ms),
    reading: (stream, on) => (stream === "stdout" ? outGate : errGate).set(on),
    rss: () => readRss(child.pid),
    async close(graceMs) {
      outGate.set(true);
      errGate.set(true);
      await stdin.close().catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
      const first = await Promise.race([child.status, late]);
      clearTimeout(timer);
      if (first === "late") child.kill("SIGKILL");
      const status = await child.status;
      await Promise.all([outDone, errDone]);
      return { code: first === "late" ? undefined : status.code, killed: first === "late" };
    },
  };
  const outDone = pump(child.stdout, out, outGate);
  const errDone = pump(child.stderr, err, errGate);
  Promise.all([outDone, child.status]).then(([, status]) => {
    connection.ended = { code: status.code };
    bell.ring();
  });
  return connection;
}

/**
 * A server started as `deno run <args>` for each surface the kit attacks,
 * with a clean environment, spoken to over its real stdin and stdout. Its
 * `--allow-read` and `--allow-write` flags tell the kit its scope: the
 * places it watches, and the only ones the server may change.
 *
 * @param options See {@linkcode SubprocessTargetOptions}.
 * @returns The target.
 *
 * @example Attack a server under the flags it prints
 * ```ts ignore
 * import { printedPermissions } from "@forge/toolkit/permissions";
 * import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";
 *
 * const script = "main.ts", config = "config/config.json";
 * const flags = await printedPermissions({ script, config });
 * const target = subprocessTarget({ args: [...flags, script, "-config", config] });
 * assertNoFindings(await attack(target));
 * ```
 */
export function subprocessTarget(options: SubprocessTargetOptions): AttackTarget {
  const fixed = typeof options.args === "function" ? undefined : options.args;
  const name = options.name ?? fixed?.find((a) => !a.startsWith("-")) ?? "subprocess";
  return {
    name,
    async start(world) {
      const args = typeof options.args === "function" ? await options.args(world) : options.args;
      return startProcess(args, options);
    },
  };
}
