// Lines as they arrive, and a reader that waits for the next one with a
// deadline; shared by spawnRaw (a process's stdout) and serveRaw (in memory).

/** Collects text into lines and hands them out in order. */
export class LineQueue {
  /** Every complete line so far. */
  readonly lines: string[] = [];
  readonly #decoder = new TextDecoder();
  #partial = "";
  #taken = 0;
  #ended = false;
  #wake: (() => void) | undefined;

  /** Adds bytes; complete lines become available to `next()`. */
  push(bytes: Uint8Array): void {
    this.#partial += this.#decoder.decode(bytes, { stream: true });
    let nl: number;
    while ((nl = this.#partial.indexOf("\n")) >= 0) {
      this.lines.push(this.#partial.slice(0, nl));
      this.#partial = this.#partial.slice(nl + 1);
    }
    this.#wake?.();
  }

  /** Marks the end of input; a final partial line becomes a line. */
  end(): void {
    if (this.#partial) this.lines.push(this.#partial);
    this.#partial = "";
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
