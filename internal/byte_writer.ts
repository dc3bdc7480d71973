// The one writer shape the stdout writer, the stderr queue and the test pipes share.

/** Where bytes go: `Deno.stdout`, `Deno.stderr`, or an in-memory pipe in tests. */
export interface ByteWriter {
  /** Writes some of `bytes`; resolves with how many were written. */
  write(bytes: Uint8Array): Promise<number>;
}
