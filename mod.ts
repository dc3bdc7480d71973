/**
 * @forge/toolkit — write small, least-privilege MCP servers that speak
 * JSON-RPC over stdio.
 *
 * @module
 */
export * from "./toolkit/mod.ts";
