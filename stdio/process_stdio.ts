// Stdin and stdout for run(): read and written through Deno.stdin and
// Deno.stdout, which hand every read and every write to a thread of Deno's
// blocking pool (a wake-up of that thread and one of the main thread each,
// some 20-40 µs of CPU per operation on the benchmark's machine), until the
// server has done enough of them that loading `node:net` (~30 ms of CPU,
// once) is worth it, and then only in a pause: while the server waits for
// input with nothing going out (or, with no pause, after twice as many).
// Then, between two operations, stdin and stdout move onto the event loop as
// non-blocking sockets (`new net.Socket({ fd })`): a read or a write is one
// system call on the main thread (docs/benchmarks.md, "Stdio on the event
// loop"). A descriptor that is not a pipe or a socket (a file, a terminal)
// stays where it was. Nothing is ever read or written by both at once: each
// side moves only when no operation of its own is pending.

import type { ByteReader } from "./_read_loop.ts";
import type { ByteWriter } from "../internal/byte_writer.ts";
import { type Clock, systemClock } from "../internal/clock.ts";

/** The reader and writer of a process's stdin and stdout, and how to let them go. */
export interface ProcessStdio {
  /** Reads stdin. */
  readonly reader: ByteReader;
  /** Writes stdout. */
  readonly writer: ByteWriter;
  /** Whether stdin and stdout have moved onto the event loop, each. */
  readonly moved: { readonly stdin: boolean; readonly stdout: boolean };
  /**
   * Stops using the sockets, if any: they are released and the descriptors
   * made blocking again, so that code run after the server (a test serving
   * in-process) finds them as Deno left them.
   */
  close(): void;
}

/** Where a {@linkcode processStdio} reads and writes before it moves. */
export interface ProcessStdioOptions {
  /**
   * After how many reads and writes stdin and stdout move onto the event
   * loop, at the first pause of 50 ms after them (waiting for input, nothing
   * going out), or after twice as many without one: 0 at once, `Infinity`
   * never.
   * @default {256}
   */
  moveAfter?: number;
  /** What reads stdin until then. @default {Deno.stdin} */
  reader?: ByteReader;
  /** What writes stdout until then (run() passes its stdout guard's writer). @default {Deno.stdout} */
  writer?: ByteWriter;
  /** Told once, when `node:net` is loaded and the move begins (run() logs a line on stderr). */
  onMove?: (operations: number) => void;
}

/**
 * When the move is due: the load costs ~30 ms of CPU and 4-6 MiB once,
 * about what 1,000-3,000 pool operations cost beside the socket's (10-40 µs
 * each). A server that does fewer than 256 never pays it; one that does more
 * pays it once, early, and every later read and write saves a hop. At 1,024
 * the move of a pipelining client's server fell between its 10,000th and
 * 100,000th call, where the benchmark bounds RSS growth (docs/benchmarks.md,
 * "Stdio on the event loop"); at 256 it is due by the 5,000th.
 */
const MOVE_AFTER = 256;
/**
 * How long the server must wait for input, with nothing going out, before
 * it loads `node:net`: loading blocks the main thread for 30-110 ms, so it is
 * done in a pause, never while a client streams calls (the benchmark's
 * driver leaves microseconds between them; an agent thinks for seconds).
 */
const IDLE_MS = 50;
/**
 * How many times `moveAfter` operations a server does without a pause
 * before it loads `node:net` anyway, stalling one read's calls by the load:
 * a client that sends each call as soon as the last is answered never
 * pauses, and its every call pays two hops (the benchmark's sequential row:
 * 1.03x and 0.99x the SDK's calls/s waiting for a pause, 1.22x and 1.27x
 * moved early). At four times, the load fell at the end of the benchmark's
 * 20,000 calls of warm-up or inside the 40,000 measured after them, at
 * random: one server's run lost 10-25 % of its calls/s to it.
 */
const UNPAUSED = 2;
// Bytes read from the socket and not yet taken before it pauses: the read loop takes a read's bytes at once.
const PAUSE_BYTES = 1024 * 1024;
// The socket's own read buffer, as large as the read loop's.
const READ_BUFFER = 64 * 1024;

type NetModule = typeof import("node:net");
type Socket = InstanceType<NetModule["Socket"]>;

/**
 * Stdin and stdout as {@linkcode ByteReader} and {@linkcode ByteWriter},
 * moved onto Deno's event loop after `moveAfter` operations (see the module
 * comment). It sets stdin and stdout non-blocking once they move (the flag
 * belongs to the descriptor, which a child process spawned with inherited
 * stdio shares).
 *
 * @param options See {@linkcode ProcessStdioOptions}.
 * @returns The reader, the writer and their state.
 *
 * @example Serve a server on stdin and stdout
 * ```ts ignore
 * import { Server } from "@forge/toolkit";
 * import { processStdio, serve } from "@forge/toolkit/stdio";
 *
 * const stdio = processStdio();
 * await serve(new Server({ name: "demo" }), stdio).closed;
 * stdio.close();
 * ```
 */
export function processStdio(options: ProcessStdioOptions = {}): ProcessStdio {
  return processStdioOn(systemClock, options);
}

/** {@linkcode processStdio} on `clock`, telling whether the load of `node:net` has begun (for its tests). */
export function processStdioOn(
  clock: Clock,
  options: ProcessStdioOptions = {},
): ProcessStdio & { readonly loadBegun: boolean } {
  const moveAfter = options.moveAfter ?? MOVE_AFTER;
  const poolReader = options.reader ?? Deno.stdin;
  const poolWriter = options.writer ?? Deno.stdout;
  let operations = 0;
  let net: NetModule | undefined;
  // The load is due once moveAfter operations are done, and starts at the next pause (see IDLE_MS).
  let due = false;
  let loading = false;
  let input: SocketInput | undefined;
  let output: SocketOutput | undefined;
  // A side that cannot move (not a pipe or socket, or the load failed) is not tried again.
  let inputStays = false;
  let outputStays = false;
  let closed = false;
  // What the pool is doing: a read waiting for input, writes going out, and when either last began or ended.
  let reading = false;
  let writing = 0;
  let lastActivity = 0;
  let idleTimer: unknown;

  const load = (): void => {
    if (loading || closed) return;
    loading = true;
    clock.clearTimer(idleTimer);
    import("node:net").then((module) => {
      net = module;
      options.onMove?.(operations);
    }, () => (inputStays = outputStays = true));
  };
  const idle = (): boolean => reading && writing === 0 && clock.now() - lastActivity >= IDLE_MS;
  // Armed while the load is due and the server waits for input with nothing going out; re-armed for what is left
  // of the pause when activity came meanwhile.
  const armIdleTimer = (): void => {
    if (!due || loading || closed || idleTimer !== undefined || !reading || writing > 0) return;
    idleTimer = clock.setTimer(() => {
      idleTimer = undefined;
      if (idle()) load();
      else armIdleTimer();
    }, Math.max(1, IDLE_MS - (clock.now() - lastActivity)));
  };
  const counted = (): void => {
    if (++operations >= moveAfter) due = true;
  };
  // A client that never pauses is not waited for past UNPAUSED times the count: the stall is paid once, as a reply
  // goes out, never between two reads of one message (a 60 MiB line is ~960 reads, and the load in the middle of it
  // raised the process's peak by up to 21 MiB).
  const unpaused = (): void => {
    if (operations >= moveAfter * UNPAUSED) load();
  };
  if (moveAfter <= 0) load();

  const reader: ByteReader = {
    read(buffer) {
      if (input === undefined && net !== undefined && !inputStays && !closed) {
        input = SocketInput.open(net, 0);
        if (input === undefined) inputStays = true;
      }
      if (input !== undefined) return input.read(buffer);
      counted();
      reading = true;
      lastActivity = clock.now();
      armIdleTimer();
      return poolReader.read(buffer).finally(() => {
        reading = false;
        lastActivity = clock.now();
      });
    },
  };
  const writer: ByteWriter = {
    write(bytes) {
      if (output === undefined && net !== undefined && !outputStays && !closed) {
        output = SocketOutput.open(net, 1);
        if (output === undefined) outputStays = true;
      }
      if (output !== undefined) return output.write(bytes);
      counted();
      unpaused();
      writing++;
      lastActivity = clock.now();
      return poolWriter.write(bytes).finally(() => {
        writing--;
        lastActivity = clock.now();
        armIdleTimer();
      });
    },
  };
  return {
    reader,
    writer,
    get moved() {
      return { stdin: input !== undefined, stdout: output !== undefined };
    },
    get loadBegun() {
      return loading;
    },
    close() {
      closed = true;
      clock.clearTimer(idleTimer);
      input?.close();
      output?.close();
    },
  };
}

/** What a socket reads into, and what it calls with each read's bytes (false: stop reading for now). */
interface OnRead {
  buffer: Uint8Array;
  callback(n: number, buffer: Uint8Array): boolean;
}

/** A socket of `net` on descriptor `fd`, or undefined when the descriptor cannot be one. */
function socketOn(net: NetModule, fd: number, readable: boolean, onread?: OnRead): Socket | undefined {
  try {
    return new net.Socket({ fd, readable, writable: !readable, allowHalfOpen: true, onread } as never);
  } catch {
    // A file or a terminal ("Unsupported fd type"): it stays on Deno's pool.
    return undefined;
  }
}

/** Gives the descriptor back blocking, as Deno found it, and lets the socket go. */
function release(socket: Socket): void {
  const handle = (socket as unknown as { _handle?: { setBlocking?(blocking: boolean): number } })._handle;
  try {
    handle?.setBlocking?.(true);
  } catch {
    // Already closed.
  }
  socket.destroy();
}

/**
 * Stdin as a socket that reads into one buffer of its own (Node's `onread`
 * option: no buffer is made per read). A read the read loop waits for gets
 * the bytes copied straight into its buffer; bytes that arrive while none
 * waits are copied aside, in order, and past PAUSE_BYTES of them the socket
 * stops reading until they are taken.
 */
class SocketInput {
  #socket: Socket | undefined;
  #chunks: Uint8Array[] = [];
  #queued = 0;
  #paused = false;
  #ended = false;
  #failure: unknown;
  // The read loop's read in progress, if any: its buffer and how to settle it.
  #waiting: { buffer: Uint8Array; resolve: (n: number | null) => void; reject: (error: unknown) => void } | undefined;

  static open(net: NetModule, fd: number): SocketInput | undefined {
    const input = new SocketInput();
    const socket = socketOn(net, fd, true, {
      buffer: new Uint8Array(READ_BUFFER),
      callback: (n: number, bytes: Uint8Array) => input.#arrived(bytes.subarray(0, n)),
    });
    if (socket === undefined) return undefined;
    input.#socket = socket;
    socket.on("end", () => {
      input.#ended = true;
      input.#settle();
    });
    socket.on("error", (error: unknown) => {
      input.#failure ??= error;
      input.#ended = true;
      input.#settle();
    });
    return input;
  }

  read(buffer: Uint8Array): Promise<number | null> {
    if (this.#chunks.length > 0 || this.#ended) return this.#take(buffer);
    return new Promise((resolve, reject) => (this.#waiting = { buffer, resolve, reject }));
  }

  close(): void {
    if (this.#socket !== undefined) release(this.#socket);
  }

  /** Bytes read into the socket's buffer, which the next read reuses: copied now. Returns false to stop reading. */
  #arrived(bytes: Uint8Array): boolean {
    const waiting = this.#waiting;
    if (waiting !== undefined && this.#chunks.length === 0 && bytes.length <= waiting.buffer.length) {
      this.#waiting = undefined;
      waiting.buffer.set(bytes);
      waiting.resolve(bytes.length);
      return true;
    }
    this.#chunks.push(bytes.slice());
    this.#queued += bytes.length;
    this.#settle();
    if (this.#queued <= PAUSE_BYTES) return true;
    this.#paused = true;
    return false;
  }

  /** Settles the waiting read, if any, with what is queued, the end, or the failure. */
  #settle(): void {
    const waiting = this.#waiting;
    if (waiting === undefined || (this.#chunks.length === 0 && !this.#ended)) return;
    this.#waiting = undefined;
    this.#take(waiting.buffer).then(waiting.resolve, waiting.reject);
  }

  /** The next bytes into `buffer`; null at the end (after every byte read); the socket's error after them. */
  #take(buffer: Uint8Array): Promise<number | null> {
    const first = this.#chunks[0];
    if (first === undefined) return this.#failure === undefined ? Promise.resolve(null) : Promise.reject(this.#failure);
    const n = Math.min(first.length, buffer.length);
    buffer.set(n === first.length ? first : first.subarray(0, n));
    if (n === first.length) this.#chunks.shift();
    else this.#chunks[0] = first.subarray(n);
    this.#queued -= n;
    if (this.#paused && this.#queued <= PAUSE_BYTES) {
      this.#paused = false;
      this.#socket?.resume();
    }
    return Promise.resolve(n);
  }
}

/** Stdout as a socket: a write resolves once every byte of it is in the pipe. */
class SocketOutput {
  readonly #socket: Socket;

  static open(net: NetModule, fd: number): SocketOutput | undefined {
    const socket = socketOn(net, fd, false);
    return socket === undefined ? undefined : new SocketOutput(socket);
  }

  private constructor(socket: Socket) {
    this.#socket = socket;
    // A failed write is reported to its callback; the event would otherwise be uncaught.
    socket.on("error", () => {});
  }

  write(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#socket.write(bytes, (error?: Error | null) => error ? reject(error) : resolve(bytes.length));
    });
  }

  close(): void {
    release(this.#socket);
  }
}
