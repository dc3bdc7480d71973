import type { ByteReader, ByteWriter } from "@forge/toolkit/stdio";

/** A one-way in-memory byte channel: what is written to `writer` is read from `reader`. */
export interface MemoryPipe {
  /** The reading end. */
  reader: ByteReader;
  /** The writing end. */
  writer: ByteWriter;
  /** Ends the stream: the reader sees end of input once it drained what was written. */
  close(): void;
}

/**
 * Creates an in-memory byte channel, so a server and a client can talk
 * through the real framer without a process or a file descriptor.
 *
 * @returns The two ends.
 *
 * @example Write then read
 * ```ts
 * import { memoryPipe } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const pipe = memoryPipe();
 * await pipe.writer.write(new TextEncoder().encode("hi\n"));
 * pipe.close();
 * const buf = new Uint8Array(16);
 * assert.equal(await pipe.reader.read(buf), 3);
 * assert.equal(await pipe.reader.read(buf), null);
 * ```
 */
export function memoryPipe(): MemoryPipe {
  const chunks: Uint8Array[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    reader: {
      async read(buffer: Uint8Array): Promise<number | null> {
        while (chunks.length === 0) {
          if (closed) return null;
          await new Promise<void>((resolve) => (wake = resolve));
        }
        const chunk = chunks[0];
        const n = Math.min(chunk.length, buffer.length);
        buffer.set(chunk.subarray(0, n));
        if (n === chunk.length) chunks.shift();
        else chunks[0] = chunk.subarray(n);
        return n;
      },
    },
    writer: {
      write(bytes: Uint8Array): Promise<number> {
        if (closed) return Promise.reject(new Deno.errors.BrokenPipe("Cannot write: the pipe is closed"));
        chunks.push(bytes.slice());
        notify();
        return Promise.resolve(bytes.length);
      },
    },
    close() {
      closed = true;
      notify();
    },
  };
}
