// The toolkit's one writer to stderr, shared by the core and the audit trail. `Deno.stderr.writeSync` blocks the whole
// event loop once the pipe is full, and a host that reads only stdout fills it
// within a few hundred lines; a closed stderr makes it throw. Here every write
// is asynchronous, log lines wait in a bounded buffer and are dropped (and
// counted) when it is full, and a closed stderr only ends stderr output.
// Records (the audit trail) are never dropped silently: their promise says
// whether they were written, and once stderr drains one line counts the
// records that were not.

import { type Clock, systemClock } from "./clock.ts";
import { DeadlineTimer } from "./deadline_timer.ts";
import type { ByteWriter } from "./byte_writer.ts";
import { concatBytes } from "./concat_bytes.ts";
import { escapeUnit } from "./quote.ts";
import { startTimer } from "./native_timer.ts";

const encoder = new TextEncoder();

/** Log bytes that may wait for stderr; past it, log lines are dropped and counted. */
export const LOG_BUFFER_BYTES = 1024 * 1024;
/** Record bytes that may wait for stderr; past it, a record is refused at once. */
export const RECORD_BUFFER_BYTES = 4 * 1024 * 1024;
/** How long a record may wait to be written before its promise rejects, by default. */
export const RECORD_TIMEOUT_MS = 1_000;
// Small lines are joined into writes of at most this size: one syscall per burst.
const WRITE_CHUNK = 64 * 1024;

interface Pending {
  resolve(): void;
  reject(error: Error): void;
  /** When it is refused unless written, on the queue's clock. */
  deadline: number;
  timeoutMs: number;
  settled: boolean;
}

interface Entry {
  bytes: Uint8Array;
  /** Set for a record: who waits for it to be written. */
  record?: Pending;
}

/** A bounded, never-blocking queue in front of one byte writer (stderr in production). */
export class StderrQueue {
  readonly #out: ByteWriter;
  readonly #logLimit: number;
  readonly #recordLimit: number;
  #queue: Entry[] = [];
  #logBytes = 0;
  #recordBytes = 0;
  #dropped = 0;
  #lostRecords = 0;
  #writing = false;
  #closed = false;
  #idle: (() => void)[] = [];
  // The records not yet settled, oldest first, and the one timer that refuses them past their deadlines. A timer per
  // record, cancelled once it was written, held ~3 KB each on V8's timer (./native_timer.ts) until its time had
  // passed: 300 MB for 100,000 records a second. The timer is left to fire when records are written, and re-armed
  // then only for a record still waiting, as the call table's deadline timer is (./deadline_timer.ts).
  readonly #waiting = new Set<Entry>();
  readonly #clock: Clock;
  readonly #timer: DeadlineTimer;

  constructor(out: ByteWriter, logLimit = LOG_BUFFER_BYTES, recordLimit = RECORD_BUFFER_BYTES, clock = systemClock) {
    this.#out = out;
    this.#logLimit = logLimit;
    this.#recordLimit = recordLimit;
    this.#clock = clock;
    this.#timer = new DeadlineTimer(clock, (now) => this.#sweep(now));
  }

  /** True once a write failed: nothing more is written. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Log lines dropped since the last count line was queued. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Record lines refused or expired since the last count line was queued. */
  get lostRecords(): number {
    return this.#lostRecords;
  }

  /**
   * Queues `text` and a newline; drops it (counted) when the buffer is full.
   * A line break or other control character in `text` is written escaped
   * (`\n`, `\u001b`), so one call is one line on stderr whatever it quotes.
   * Never blocks, never throws.
   */
  logLine(text: string): void {
    if (this.#closed) return;
    text = oneLine(text);
    // A string is at least as many UTF-8 bytes as it is long: refuse before encoding.
    if (this.#logBytes + text.length + 1 > this.#logLimit) return void this.#dropped++;
    this.logBytes(encoder.encode(text + "\n"));
  }

  /** Queues raw bytes (for diverted stdout writes); drops them (counted) when the buffer is full. */
  logBytes(bytes: Uint8Array): void {
    if (this.#closed || bytes.length === 0) return;
    if (this.#logBytes + bytes.length > this.#logLimit) return void this.#dropped++;
    this.#logBytes += bytes.length;
    // Copy: the caller may reuse its buffer as soon as we return.
    this.#push({ bytes: bytes.slice() });
  }

  /**
   * Queues `text` and a newline; resolves once all of it was written. Rejects
   * when stderr is closed, when too many record bytes already wait, or when it
   * was not written within `timeoutMs` (it is then taken off the queue if no
   * write has started on it; otherwise it may still reach stderr later).
   */
  writeRecord(text: string, timeoutMs: number = RECORD_TIMEOUT_MS): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    const bytes = encoder.encode(text + "\n");
    if (this.#recordBytes + bytes.length > this.#recordLimit) {
      this.#lostRecords += lineCount(bytes);
      return Promise.reject(
        new Error(`Cannot write a record to stderr: ${this.#recordBytes} bytes of records are waiting to be read`),
      );
    }
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const deadline = this.#clock.now() + timeoutMs;
    const entry: Entry = { bytes, record: { resolve, reject, deadline, timeoutMs, settled: false } };
    this.#waiting.add(entry);
    // V8's timer (systemClock), not setTimeout: an audit trail's first record pays no load of node:timers.
    this.#timer.arm(deadline);
    this.#recordBytes += bytes.length;
    this.#push(entry);
    return promise;
  }

  /**
   * Resolves once everything queued was written, stderr closed, or `timeoutMs` passed. Its bound is V8's timer, not
   * the global `setTimeout`: run() flushes at the end of every shutdown, no time to load node:timers. That timer
   * keeps no process alive, and needs no hold: there is something to wait for only while a write is pending, and a
   * pending write to stderr holds the process (in run(), its signal listeners do too, until after this flush).
   */
  flush(timeoutMs: number): Promise<void> {
    if (this.#closed || (!this.#writing && this.#queue.length === 0)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = startTimer(resolve, timeoutMs);
      this.#idle.push(() => {
        timer.cancel();
        resolve();
      });
    });
  }

  #push(entry: Entry): void {
    this.#queue.push(entry);
    if (!this.#writing) void this.#pump();
  }

  /** Refuses the records past their deadlines at `now`; returns the next deadline. */
  #sweep(now: number): number {
    let next = Infinity;
    for (const entry of this.#waiting) {
      const deadline = entry.record!.deadline;
      if (deadline <= now) this.#expire(entry);
      else if (deadline < next) next = deadline;
    }
    return next;
  }

  #expire(entry: Entry): void {
    const record = entry.record!;
    if (record.settled) return;
    const at = this.#queue.indexOf(entry);
    if (at !== -1) {
      this.#queue.splice(at, 1);
      this.#recordBytes -= entry.bytes.length;
      this.#lostRecords += lineCount(entry.bytes);
    }
    this.#settle(entry, new Error(`Cannot write a record to stderr: it was not read within ${record.timeoutMs} ms`));
  }

  #settle(entry: Entry, error?: Error): void {
    const record = entry.record!;
    if (record.settled) return;
    record.settled = true;
    this.#waiting.delete(entry);
    if (error) record.reject(error);
    else record.resolve();
  }

  async #pump(): Promise<void> {
    this.#writing = true;
    let batch: Entry[] = [];
    try {
      while (this.#queue.length > 0) {
        batch = this.#take();
        const bytes = batch.length === 1 ? batch[0].bytes : join(batch);
        for (let offset = 0; offset < bytes.length;) {
          offset += await this.#out.write(offset === 0 ? bytes : bytes.subarray(offset));
        }
        for (const entry of batch) {
          if (entry.record) {
            this.#recordBytes -= entry.bytes.length;
            this.#settle(entry);
          } else this.#logBytes -= entry.bytes.length;
        }
        // stderr drained: say how many lines it cost, once; records apart, since their callers heard of each.
        if (this.#queue.length === 0 && (this.#dropped > 0 || this.#lostRecords > 0)) {
          const lost = this.#lostRecords > 0
            ? `${this.#lostRecords} audit records not written: stderr was not read\n`
            : "";
          const line = lost + (this.#dropped > 0 ? `${this.#dropped} log lines dropped: stderr was not read\n` : "");
          this.#dropped = 0;
          this.#lostRecords = 0;
          const count = encoder.encode(line);
          this.#logBytes += count.length;
          this.#queue.push({ bytes: count });
        }
        batch = [];
      }
    } catch {
      // A closed or broken stderr: the server serves on without it.
      this.#closed = true;
      for (const entry of [...batch, ...this.#queue]) if (entry.record) this.#settle(entry, closedError());
      this.#queue = [];
      this.#logBytes = 0;
      this.#recordBytes = 0;
    } finally {
      this.#writing = false;
      const waiters = this.#idle;
      this.#idle = [];
      for (const wake of waiters) wake();
    }
  }

  /** Takes entries from the head of the queue up to one write chunk (at least one entry). */
  #take(): Entry[] {
    let size = this.#queue[0].bytes.length;
    let count = 1;
    while (count < this.#queue.length && size + this.#queue[count].bytes.length <= WRITE_CHUNK) {
      size += this.#queue[count].bytes.length;
      count++;
    }
    return this.#queue.splice(0, count);
  }
}

// Control characters, and the separators some log viewers break lines at.
// deno-lint-ignore no-control-regex -- matching control characters is the point
const BREAKS = /[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/;
const BREAKS_ALL = new RegExp(BREAKS.source, "g");

/**
 * `text` with every control character escaped as JSON escapes it: a value a
 * client chose (an id, a name) that reaches a log line can neither start a
 * line of its own — a forged log line, or a forged audit record where the
 * trail shares stderr — nor drive a terminal. Tabs stay.
 */
export function oneLine(text: string): string {
  if (!BREAKS.test(text)) return text;
  return text.replace(BREAKS_ALL, (c) => SHORT_ESCAPES[c] ?? escapeUnit(c));
}

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\b": "\\b", "\f": "\\f" };

/** How many lines `bytes` holds (each ends with a newline). */
function lineCount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte === 10) count++;
  return count;
}

function closedError(): Error {
  return new Error("Cannot write a record to stderr: stderr is closed");
}

function join(entries: Entry[]): Uint8Array {
  return concatBytes(entries.map((entry) => entry.bytes));
}

let shared: StderrQueue | undefined;

/** The process's stderr queue, created on first use. */
export function stderrQueue(): StderrQueue {
  // Bound now: while serving, Deno.stderr.write itself is diverted into this queue.
  return shared ??= new StderrQueue({ write: Deno.stderr.write.bind(Deno.stderr) });
}

/**
 * Writes one line to stderr without ever blocking: queued in a bounded buffer
 * and written asynchronously. When the buffer is full the line is dropped and
 * counted; once stderr drains, one line `N log lines dropped: stderr was not
 * read` is written. A closed stderr is ignored. Never throws.
 *
 * @param text The line, without its newline.
 */
export function logLine(text: string): void {
  stderrQueue().logLine(text);
}

/**
 * Writes one record (an audit line) to stderr and resolves once it was
 * written in full. It is never dropped silently: the promise rejects when
 * stderr is closed, when more than {@linkcode RECORD_BUFFER_BYTES} of records
 * already wait, or when it was not written within `timeoutMs`; once stderr
 * drains, one line `N audit records not written: stderr was not read` counts
 * the lines of the records refused meanwhile. Records and log
 * lines reach stderr in the order they were queued; a record is never split by
 * another line.
 *
 * @param text The record, without its newline.
 * @param timeoutMs How long it may wait for stderr, in milliseconds.
 * @returns Resolves when written.
 */
export function writeRecord(text: string, timeoutMs: number = RECORD_TIMEOUT_MS): Promise<void> {
  return stderrQueue().writeRecord(text, timeoutMs);
}
