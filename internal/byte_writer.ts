// The one writer shape the stdout writer, the stderr queue and the test pipes share.

/** Where bytes go: `Deno.stdout`, `Deno.stderr`, or an in-memory pipe in tests. */
export interface ByteWriter {
  /**
   * Writes some of `bytes`; resolves with how many were written. Keeps no
   * reference to `bytes` once it resolves, as `Deno.Writer` asks: the
   * toolkit's writer reuses one buffer for every write.
   */
  write(bytes: Uint8Array): Promise<number>;
}
