import { Client } from "@modelcontextprotocol/sdk/client";
import type { McpClient } from "./client.ts";
import { StdioTransport } from "@forge/toolkit/stdio";
import { spawnDeno } from "./_spawn.ts";

/** Options of {@linkcode spawnServer}. */
export interface SpawnOptions {
  /** Arguments after `deno run`: permission flags, the script, then its own arguments. */
  args: string[];
  /**
   * Environment of the server; of this process's own,
   * only what `childEnv()` passes on is inherited.
   */
  env?: Record<string, string>;
  /** Working directory of the server. */
  cwd?: string;
  /**
   * The client's name and version.
   * @default {{ name: "forge-test-client", version: "0.0.0" }}
   */
  clientInfo?: { name: string; version: string };
}

/** A server running as a subprocess, driven by the official SDK client over its real stdio. */
export interface ServerProcess {
  /** The official SDK client, initialized. */
  client: McpClient;
  /** The child process. */
  process: Deno.ChildProcess;
  /** Every line the server wrote to stdout, in order (raw text). */
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
  /** Closes stdin (EOF), waits for the process to exit, and returns its status. */
  close(): Promise<Deno.CommandStatus>;
}

/**
 * Spawns `deno run <args>` and connects the official SDK `Client` to it over
 * the child's real stdin and stdout. Every stdout line is recorded, so a test
 * can assert that nothing but JSON-RPC ever reached stdout.
 *
 * @param options See {@linkcode SpawnOptions}.
 * @returns The running, initialized server.
 * @throws {Error} When the server does not answer `initialize`.
 *
 * @example Drive the hello example over real stdio
 * ```ts ignore
 * import { spawnServer } from "@forge/toolkit/testing";
 *
 * const server = await spawnServer({ args: ["examples/hello-tool/main.ts"] });
 * const result = await server.client.callTool({ name: "hello", arguments: { name: "Ann" } });
 * console.log(result.content);
 * await server.close();
 * ```
 */
export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  const { child, stdin, stdout, stderr: stderrText, waitForStderr, stderrDone } = spawnDeno(
    options.args,
    options.env,
    options.cwd,
  );
  const lines: string[] = [];
  const transport = new StdioTransport({
    reader: stdout,
    writer: stdin,
    role: "client",
    onLine: (line) => lines.push(line),
  });
  const client = new Client(options.clientInfo ?? { name: "forge-test-client", version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (err) {
    await stdin.close();
    const status = await child.status;
    await stderrDone;
    throw new Error(
      `Cannot connect to the server: ${String(err)} (exit ${status.code}); stderr: ${stderrText().slice(0, 2000)}`,
    );
  }
  return {
    client: client as unknown as McpClient,
    process: child,
    lines,
    stderr: stderrText,
    waitForStderr,
    async close() {
      await stdin.close();
      const status = await child.status;
      await client.close();
      await stderrDone;
      return status;
    },
  };
}
