/** What {@linkcode handshake} drives: a raw in-memory session (`serveRaw`) or a raw subprocess (`spawnRaw`). */
export interface RawLines {
  /** Writes a line. */
  send(data: string): Promise<void>;
  /** The next line the server wrote, parsed. */
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** The client a {@linkcode handshake} introduces. */
export interface HandshakeOptions {
  /**
   * The client's capabilities, e.g. `{ elicitation: {}, roots: {} }` for a
   * server whose handlers ask the client.
   * @default {{}}
   */
  capabilities?: Record<string, unknown>;
  /**
   * The protocol version the client asks for.
   * @default {"2025-06-18"}
   */
  protocolVersion?: string;
}

/**
 * Opens an initialize-era session over raw lines: sends `initialize` (id 0),
 * waits for its reply, then says `notifications/initialized`, after which the
 * server may send the client requests of its own.
 *
 * @param session The raw session or subprocess.
 * @param options The client's capabilities and protocol version.
 * @returns The reply to `initialize`.
 *
 * @example Open a session, then call
 * ```ts
 * import { Server } from "@forge/toolkit";
 * import { handshake, serveRaw } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const session = serveRaw(new Server({ name: "demo" }));
 * const reply = await handshake(session, { capabilities: { elicitation: {} } });
 * assert.equal((reply.result as { serverInfo: { name: string } }).serverInfo.name, "demo");
 * await session.close();
 * ```
 */
export async function handshake(session: RawLines, options: HandshakeOptions = {}): Promise<Record<string, unknown>> {
  await session.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: options.protocolVersion ?? "2025-06-18",
      capabilities: options.capabilities ?? {},
      clientInfo: { name: "forge-test-client", version: "0.0.0" },
    },
  }));
  const reply = await session.next();
  await session.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return reply;
}
