import { readerOf, writerOf } from "./_streams.ts";

/** Options of {@linkcode spawnRaw}. */
export interface RawOptions {
  /** Arguments after `deno run`: permission flags, the script, then its own arguments. */
  args: string[];
  /** Environment of the server; nothing else is inherited. */
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
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...options.args],
    env: { NO_COLOR: "1", ...options.env },
    clearEnv: true,
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (stderr += chunk) }),
  );
  const stdin = writerOf(child.stdin);
  const reader = readerOf(child.stdout);
  const lines: string[] = [];
  let taken = 0;
  let ended = false;
  let waiting: (() => void) | undefined;
  const decoder = new TextDecoder();
  const pump = (async () => {
    const buffer = new Uint8Array(64 * 1024);
    let partial = "";
    for (;;) {
      const n = await reader.read(buffer);
      if (n === null) break;
      partial += decoder.decode(buffer.subarray(0, n), { stream: true });
      let nl: number;
      while ((nl = partial.indexOf("\n")) >= 0) {
        lines.push(partial.slice(0, nl));
        partial = partial.slice(nl + 1);
      }
      waiting?.();
    }
    if (partial) lines.push(partial);
    ended = true;
    waiting?.();
  })();
  const encoder = new TextEncoder();
  return Promise.resolve({
    process: child,
    lines,
    stderr: () => stderr,
    async send(data) {
      await stdin.write(typeof data === "string" ? encoder.encode(data + "\n") : data);
    },
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= lines.length) {
        if (ended) throw new Error(`Cannot read a reply: the server closed stdout; stderr: ${stderr.slice(0, 1000)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`Cannot read a reply: none within ${timeoutMs} ms`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          waiting = resolve;
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
      }
      return JSON.parse(lines[taken++]);
    },
    closeInput: () => stdin.close(),
    async status() {
      await stdin.close();
      const status = await child.status;
      await pump;
      await stderrDone.catch(() => {});
      return status;
    },
  });
}
