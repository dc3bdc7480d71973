/**
 * Drive a server the way a host does, in tests: the official SDK client in
 * memory (through the real framer) or over a real subprocess, raw bytes for
 * hostile input, probes, and a spy to prove a handler did not run.
 *
 * The client is the official SDK's own `Client`, so a test talks to the server
 * the way a host does; its type appears here only as `McpClient`, the calls
 * tests make, so the SDK's large type tree stays out of this module's API.
 * A child process gets a clean environment: `childEnv()` says what it keeps.
 * `attack()` attacks every tool a server lists, in each protocol era, and
 * judges by canaries it plants (see docs/testing.md).
 *
 * ```ts
 * import { addTool, schema, Server, text } from "@forge/toolkit";
 * import { connectInMemory } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "demo" });
 * addTool(server, {
 *   name: "hi",
 *   description: "Says hi",
 *   inputSchema: schema(),
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 * }, () => text("hi"));
 * const session = await connectInMemory(server);
 * assert.equal((await session.client.listTools()).tools[0].name, "hi");
 * await session.close();
 * ```
 *
 * @module
 */
export * from "./attack/mod.ts";
export { CHILD_ENV_NAMES, childEnv } from "../internal/child_env.ts";
export type { CallResult, ListedTool, McpClient, RequestOptions } from "./client.ts";
export { connectInMemory, type InMemoryOptions, type InMemorySession } from "./in_memory.ts";
export { handshake, type HandshakeOptions, type RawLines } from "./handshake.ts";
export { type MemoryPipe, memoryPipe } from "./memory_pipe.ts";
export { probe, type ProbeResult } from "./probe.ts";
export { ALWAYS_META_KEY, PROBE_META_KEY } from "../engine/probe.ts";
export { type RawOptions, type RawServer, spawnRaw } from "./raw_client.ts";
export { type RecordingProxy, startRecordingProxy, withRecordingProxy } from "./recording_proxy.ts";
export { runDeno, type RunDenoOptions, type RunDenoResult } from "./run_deno.ts";
export { type ServerProcess, type SpawnOptions, spawnServer } from "./subprocess.ts";
export { type SpyHandler, spyHandler } from "./spy.ts";
export { StreamText } from "./stream_text.ts";
export { testFilesByPermissions, type TestFilesOptions, type TestGroup } from "./test_files.ts";
export { type RawSession, serveRaw } from "./raw_session.ts";
