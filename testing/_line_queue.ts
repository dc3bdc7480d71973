// Lines as they arrive, and a reader that waits for the next one with a
// deadline; shared by spawnRaw (a process's stdout) and serveRaw (in memory).
// Linear in the output: each byte is scanned for the newline once, when it
// arrives, and a line spread over many chunks is joined once, when it ends.
// Decoding whole lines is the same as decoding the stream: "\n" is never part
// of a multi-byte UTF-8 sequence.

import { concatBytes } from "../internal/concat_bytes.ts";

const LF = 0x0a;

/** Collects text into lines and hands them out in order. */
export class LineQueue {
  /** Every complete line so far. */
  readonly lines: string[] = [];
  readonly #decoder = new TextDecoder();
  // The unfinished line's pieces, copied: a caller may reuse its buffer after push().
  #partial: Uint8Array[] = [];
  #taken = 0;
  #ended = false;
  #wake: (() => void) | undefined;

  /** Adds bytes; complete lines become available to `next()`. */
  push(bytes: Uint8Array): void {
    let start = 0;
    for (let nl = bytes.indexOf(LF); nl >= 0; nl = bytes.indexOf(LF, start)) {
      this.#partial.push(bytes.subarray(start, nl));
      this.lines.push(this.#decoder.decode(concatBytes(this.#partial)));
      this.#partial = [];
      start = nl + 1;
    }
    if (start < bytes.length) this.#partial.push(bytes.slice(start));
    this.#wake?.();
  }

  /** Marks the end of input; a final partial line becomes a line. */
  end(): void {
    if (this.#partial.length > 0) this.lines.push(this.#decoder.decode(concatBytes(this.#partial)));
    this.#partial = [];
    this.#ended = true;
    this.#wake?.();
  }

  /** The next line, parsed as JSON. */
  async next(timeoutMs: number, ended: () => string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (this.#taken >= this.lines.length) {
      if (this.#ended) throw new Error(`Cannot read a reply: ${ended()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`Cannot read a reply: none within ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
    return JSON.parse(this.lines[this.#taken++]);
  }
}
