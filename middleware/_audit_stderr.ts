// Records on stderr, where hosts usually keep a server's log. The write is
// asynchronous and bounded in time: a host that stops reading stderr makes
// side-effecting calls fail closed instead of freezing the server.

import { type AuditTarget, AuditUnavailable } from "./_audit_log.ts";

const encoder = new TextEncoder();

/** Stderr as an audit target; `timeoutMs` bounds each batch. */
export class AuditStderr implements AuditTarget {
  #timeoutMs: number;
  #stuck: Promise<unknown> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  ready(): Promise<string | undefined> {
    if (this.#stuck !== undefined) {
      return Promise.reject(new AuditUnavailable("stderr is not being read"));
    }
    return Promise.resolve(undefined);
  }

  async write(text: string): Promise<void> {
    const bytes = encoder.encode(text);
    const written = (async () => {
      for (let offset = 0; offset < bytes.length;) offset += await Deno.stderr.write(bytes.subarray(offset));
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), this.#timeoutMs));
    try {
      const settled = await Promise.race([written, late]);
      if (settled === "late") {
        // The write stays queued; until it ends no other record may start, or lines would interleave.
        this.#stuck = written.catch(() => {}).finally(() => this.#stuck = undefined);
        throw new AuditUnavailable("stderr is not being read");
      }
    } catch (err) {
      throw err instanceof AuditUnavailable ? err : new AuditUnavailable("stderr cannot be written");
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {}
}
