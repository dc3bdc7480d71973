import type { Server } from "@forge/toolkit";
import { type Connection, serve, type ServeOptions } from "@forge/toolkit/stdio";
import { LineQueue } from "./_line_queue.ts";
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
  const log: string[] = [];
  const queue = new LineQueue();
  const writer = {
    write(bytes: Uint8Array): Promise<number> {
      queue.push(bytes);
      return Promise.resolve(bytes.length);
    },
  };
  const connection = serve(server, { reader: toServer.reader, writer }, { log: (l) => log.push(l), ...options });
  connection.closed.then(() => queue.end());
  const encoder = new TextEncoder();
  return {
    lines: queue.lines,
    log,
    connection,
    send(data) {
      return toServer.writer.write(typeof data === "string" ? encoder.encode(data + "\n") : data).then(() => {});
    },
    next: (timeoutMs = 5_000) => queue.next(timeoutMs, () => "the server finished"),
    async close() {
      toServer.close();
      await connection.closed;
    },
  };
}
