// Output streams split into lines as they arrive, with one wake-up shared by
// stdout and stderr, and a gate that stops reading a stream (a client that
// never reads) until it is opened again.

/** Wakes whoever waits for the next line of any stream. */
export class Bell {
  #waiters: (() => void)[] = [];

  /** Wakes every waiter. */
  ring(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves on the next ring or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#waiters.push(done);
    });
  }
}

/** Lines of one stream. */
export class Lines {
  readonly lines: string[] = [];
  readonly #decoder = new TextDecoder();
  readonly #bell: Bell;
  /** The pieces of the line not yet ended; each chunk is searched once, so a long line costs linear time. */
  #parts: string[] = [];

  constructor(bell: Bell) {
    this.#bell = bell;
  }

  /** Adds bytes (or text); complete lines become visible. */
  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      this.#parts.push(text.slice(start, nl));
      this.lines.push(this.#parts.join("").replace(/\r$/, ""));
      this.#parts = [];
      start = nl + 1;
    }
    if (start < text.length) this.#parts.push(text.slice(start));
    if (start > 0) this.#bell.ring();
  }

  /** Ends the stream: a final partial line becomes a line. */
  end(): void {
    const last = this.#parts.join("");
    if (last) this.lines.push(last);
    this.#parts = [];
    this.#bell.ring();
  }
}

/** A gate a reading loop passes before each read. */
export class Gate {
  #open = true;
  #waiters: (() => void)[] = [];

  set(open: boolean): void {
    this.#open = open;
    if (!open) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  pass(): Promise<void> {
    return this.#open ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Reads `stream` into `lines` through `gate`, and ends `lines` with it. */
export async function pump(stream: ReadableStream<Uint8Array>, lines: Lines, gate: Gate): Promise<void> {
  const reader = stream.getReader();
  try {
    while (true) {
      await gate.pass();
      const { value, done } = await reader.read();
      if (done) break;
      lines.push(value);
    }
  } catch {
    // The stream failed (the process is gone): what was read stays.
  } finally {
    lines.end();
  }
}
