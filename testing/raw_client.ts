import { LineQueue } from "./_line_queue.ts";
import { spawnDeno } from "./_spawn.ts";

/** Options of {@linkcode spawnRaw}. */
export interface RawOptions {
  /** Arguments after `deno run`: permission flags, the script, then its own arguments. */
  args: string[];
  /**
   * Environment of the server; of this process's own,
   * only what `childEnv()` passes on is inherited.
   */
  env?: Record<string, string>;
  /** Working directory of the server. */
  cwd?: string;
}

/** A server subprocess driven with raw bytes, for input a real client would refuse to send. */
export interface RawServer {
  /** The child process. */
  process: Deno.ChildProcess;
  /** Writes bytes, or a string followed by a newline. */
  send(data: string | Uint8Array): Promise<void>;
  /** The next complete stdout line, parsed as JSON; rejects after `timeoutMs` or at end of output. */
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every stdout line so far (raw text), including ones not yet taken by `next()`. */
  lines: string[];
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /**
   * Resolves once stderr holds `marker` at least `times` times (default 1):
   * how a test waits for a server to reach a point it announces there (a
   * handler started, a task expired). Rejects if stderr ends first, or after
   * a minute as a backstop against a hang.
   */
  waitForStderr(marker: string, times?: number): Promise<void>;
  /** Closes stdin: the server sees end of input. */
  closeInput(): Promise<void>;
  /** Waits for the process to exit (after closing stdin) and returns its status. */
  status(): Promise<Deno.CommandStatus>;
}

/**
 * Spawns `deno run <args>` with piped stdio and no client: the test writes
 * raw bytes and reads raw lines. Use it for hostile input (bad JSON, huge
 * lines, split UTF-8) and for checking every byte on stdout.
 *
 * @param options See {@linkcode RawOptions}.
 * @returns The running server.
 *
 * @example Send an invalid line
 * ```ts ignore
 * import { spawnRaw } from "@forge/toolkit/testing";
 *
 * const server = await spawnRaw({ args: ["examples/hello-tool/main.ts"] });
 * await server.send("not json");
 * console.log(await server.next()); // {"jsonrpc":"2.0","id":null,"error":{"code":-32700,...}}
 * await server.closeInput();
 * await server.status();
 * ```
 */
export function spawnRaw(options: RawOptions): Promise<RawServer> {
  const { child, stdin, stdout, stderr, waitForStderr, stderrDone } = spawnDeno(options.args, options.env, options.cwd);
  const queue = new LineQueue();
  const pump = (async () => {
    const buffer = new Uint8Array(64 * 1024);
    for (let n = await stdout.read(buffer); n !== null; n = await stdout.read(buffer)) {
      queue.push(buffer.subarray(0, n));
    }
    queue.end();
  })();
  const encoder = new TextEncoder();
  return Promise.resolve({
    process: child,
    lines: queue.lines,
    stderr,
    waitForStderr,
    async send(data) {
      await stdin.write(typeof data === "string" ? encoder.encode(data + "\n") : data);
    },
    next: (timeoutMs = 10_000) =>
      queue.next(timeoutMs, () => `the server closed stdout; stderr: ${stderr().slice(0, 1000)}`),
    closeInput: () => stdin.close(),
    async status() {
      await stdin.close();
      const status = await child.status;
      await pump;
      await stderrDone;
      return status;
    },
  });
}
