// The handshake the raw-frame tests open with: one `initialize` request and
// its reply taken off the stream, so every line the test reads next answers
// one of its own requests.
import type { RawServer } from "@forge/toolkit/testing";

/** Sends `initialize` for `version` (the newest session one unless told) and returns its reply. */
export async function initialize(server: RawServer, version = "2025-11-25"): Promise<Record<string, unknown>> {
  await server.send(JSON.stringify({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  }));
  return await server.next();
}
