/**
 * The toolkit's stdio path on its own, for code that does not go through
 * {@linkcode https://jsr.io/@forge/toolkit/doc/~/run | run()}: `serve()` puts a
 * toolkit `Server` on any pair of byte streams (tests, an embedding host), and
 * `StdioTransport` gives the official SDK's `Server` the toolkit's linear
 * framing, size limit and backpressured writes.
 *
 * It is a separate entry point so that `@forge/toolkit` stays small:
 * `deno run main.ts --health` loads only the authoring half of the toolkit,
 * and `run()` loads this half when it starts serving.
 *
 * @example Serve a server over your own byte streams
 * ```ts
 * import { Server } from "@forge/toolkit";
 * import { serve } from "@forge/toolkit/stdio";
 *
 * const server = new Server({ name: "demo" });
 * // An input that ends at once: the connection closes after its (empty) work.
 * const reader = { read: (_buffer: Uint8Array) => Promise.resolve(null) };
 * const writer = { write: (bytes: Uint8Array) => Promise.resolve(bytes.length) };
 * await serve(server, { reader, writer }).closed;
 * ```
 *
 * @module
 */
export { type ByteReader, type Connection, serve, type ServeIo, type ServeOptions } from "./serve.ts";
export type { ByteWriter } from "../internal/byte_writer.ts";
export { type ProcessStdio, processStdio, type ProcessStdioOptions } from "./process_stdio.ts";
export { type JsonRpcMessage, StdioTransport, type StdioTransportOptions } from "./stdio_transport.ts";
