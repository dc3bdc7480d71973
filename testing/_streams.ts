// Adapters from web streams (a child process's stdio) to the toolkit's
// ByteReader / ByteWriter.

import type { ByteReader, ByteWriter } from "@forge/toolkit/stdio";

/** Reads a ReadableStream through the ByteReader interface. */
export function readerOf(stream: ReadableStream<Uint8Array>): ByteReader {
  const reader = stream.getReader();
  let rest: Uint8Array | undefined;
  return {
    async read(buffer: Uint8Array): Promise<number | null> {
      if (!rest || rest.length === 0) {
        const { value, done } = await reader.read();
        if (done) return null;
        rest = value;
      }
      const n = Math.min(rest.length, buffer.length);
      buffer.set(rest.subarray(0, n));
      rest = rest.subarray(n);
      return n;
    },
  };
}

/** Writes a WritableStream through the ByteWriter interface; `close()` ends it. */
export function writerOf(stream: WritableStream<Uint8Array>): ByteWriter & { close(): Promise<void> } {
  const writer = stream.getWriter();
  return {
    async write(bytes: Uint8Array): Promise<number> {
      await writer.write(bytes);
      return bytes.length;
    },
    async close() {
      try {
        await writer.close();
      } catch {
        // Already closed or the process is gone: nothing left to end.
      }
    },
  };
}
