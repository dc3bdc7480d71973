import { type Connection, serve, type ServeOptions, type Server } from "@forge/toolkit";
import { memoryPipe } from "./memory_pipe.ts";

/** A server served in memory and driven with raw lines. */
export interface RawSession {
  /** Writes bytes, or a string followed by a newline. */
  send(data: string | Uint8Array): Promise<void>;
  /** The next line the server wrote, parsed; rejects after `timeoutMs` or at end of output. */
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every line the server wrote so far (raw text). */
  lines: string[];
  /** Diagnostics the server logged. */
  log: string[];
  /** The served connection. */
  connection: Connection;
  /** Ends the input (EOF) and waits for the server side to finish. */
  close(): Promise<void>;
}

/**
 * Serves `server` in memory and returns a session that speaks raw lines:
 * the in-process twin of `spawnRaw`, for protocol tests that need exact bytes.
 *
 * @param server The server.
 * @param options Options for the served side.
 * @returns The session.
 *
 * @example Ping without a client library
 * ```ts
 * import { Server } from "@forge/toolkit";
 * import { serveRaw } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const session = serveRaw(new Server({ name: "demo" }));
 * await session.send('{"jsonrpc":"2.0","id":1,"method":"ping"}');
 * assert.deepEqual(await session.next(), { jsonrpc: "2.0", id: 1, result: {} });
 * await session.close();
 * ```
 */
export function serveRaw(server: Server, options: ServeOptions = {}): RawSession {
  const toServer = memoryPipe();
  const lines: string[] = [];
  const log: string[] = [];
  const decoder = new TextDecoder();
  let partial = "";
  let wake: (() => void) | undefined;
  let ended = false;
  const writer = {
    write(bytes: Uint8Array): Promise<number> {
      partial += decoder.decode(bytes, { stream: true });
      let nl: number;
      while ((nl = partial.indexOf("\n")) >= 0) {
        lines.push(partial.slice(0, nl));
        partial = partial.slice(nl + 1);
      }
      wake?.();
      return Promise.resolve(bytes.length);
    },
  };
  const connection = serve(server, { reader: toServer.reader, writer }, { log: (l) => log.push(l), ...options });
  connection.closed.then(() => {
    ended = true;
    wake?.();
  });
  let taken = 0;
  const encoder = new TextEncoder();
  return {
    lines,
    log,
    connection,
    send(data) {
      return toServer.writer.write(typeof data === "string" ? encoder.encode(data + "\n") : data).then(() => {});
    },
    async next(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= lines.length) {
        if (ended) throw new Error("Cannot read a reply: the server finished");
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`Cannot read a reply: none within ${timeoutMs} ms`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
      }
      return JSON.parse(lines[taken++]);
    },
    async close() {
      toServer.close();
      await connection.closed;
    },
  };
}
