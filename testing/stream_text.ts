// A child's output collected as text, with waits for a marker in it: a test
// that must act once a server has reached some point (a handler started, a
// task expired) waits for the line the server prints there, never for time.

import { quote } from "../internal/quote.ts";

/** How long a wait for a marker lasts, unless told: a backstop against a hang, not a timing. */
const BACKSTOP_MS = 60_000;

interface Waiter {
  marker: string;
  times: number;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Everything a byte stream (a child's stderr) wrote, as text, and waits for
 * what it will write. `spawnServer()` and `spawnRaw()` collect stderr with
 * one; use it directly for a child you spawn yourself.
 *
 * @example Wait for a readiness marker
 * ```ts
 * import { StreamText } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const bytes = new TextEncoder().encode("booting\nREADY on 127.0.0.1:8080\n");
 * const stderr = new StreamText(ReadableStream.from([bytes]));
 * await stderr.waitFor("READY");
 * assert.match(stderr.text, /READY on 127\.0\.0\.1:\d+/);
 * ```
 */
export class StreamText {
  #text = "";
  #ended = false;
  readonly #waiters = new Set<Waiter>();
  /** Resolves once the stream has ended (or failed). */
  readonly done: Promise<void>;

  /**
   * Starts collecting `stream` until it ends.
   *
   * @param stream The bytes, decoded as UTF-8.
   */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (chunk) => this.#add(chunk) }),
    ).catch(() => {}).finally(() => this.#end());
  }

  /** What the stream wrote so far. */
  get text(): string {
    return this.#text;
  }

  /**
   * Waits until the text holds `marker` at least `times` times.
   *
   * @param marker The text to find, as the server prints it.
   * @param times How many times it must appear.
   * @param timeoutMs A backstop: how long before a server that never prints it fails the wait.
   * @returns A promise that resolves at once when the text already holds it.
   * @throws {Error} (the promise rejects) When the stream ends first, or after `timeoutMs`.
   *
   * @example Wait for two handlers to start
   * ```ts
   * import { StreamText } from "@forge/toolkit/testing";
   *
   * const lines = ["STARTED a\n", "STARTED b\n"].map((line) => new TextEncoder().encode(line));
   * const stderr = new StreamText(ReadableStream.from(lines));
   * await stderr.waitFor("STARTED", 2);
   * ```
   */
  waitFor(marker: string, times = 1, timeoutMs: number = BACKSTOP_MS): Promise<void> {
    if (count(this.#text, marker) >= times) return Promise.resolve();
    if (this.#ended) return Promise.reject(this.#missing(marker, times, "the stream ended"));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { marker, times, resolve, reject, timer: undefined };
      // Registered before the timer is set: under `deno test`, setting a
      // timer can let the stream deliver (and end) first.
      this.#waiters.add(waiter);
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(this.#missing(marker, times, `none within ${timeoutMs} ms`));
      }, timeoutMs);
      if (this.#waiters.has(waiter)) waiter.timer = timer;
      else clearTimeout(timer);
    });
  }

  #add(chunk: string): void {
    this.#text += chunk;
    for (const waiter of this.#waiters) {
      if (count(this.#text, waiter.marker) < waiter.times) continue;
      this.#waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }

  #end(): void {
    this.#ended = true;
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(this.#missing(waiter.marker, waiter.times, "the stream ended"));
    }
    this.#waiters.clear();
  }

  #missing(marker: string, times: number, why: string): Error {
    const wanted = times === 1 ? "" : ` ${times} times (seen ${count(this.#text, marker)})`;
    return new Error(`Cannot find ${quote(marker)}${wanted}: ${why}; it wrote: ${this.#text.slice(-1000)}`);
  }
}

function count(text: string, marker: string): number {
  let found = 0;
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) found++;
  return found;
}
