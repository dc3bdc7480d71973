// The benchmark's one client: it spawns a server, frames its stdout in linear
// time, matches replies to requests by id, pipelines with N in flight and
// reads the child's RSS. Every wait has a deadline, so a server that never
// answers is reported as such instead of hanging the run.

const LF = 0x0a;
const CR = 0x0d;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Splits a byte stream into newline-delimited lines in linear time: each chunk
 * is scanned once, an unfinished tail is copied once, and a line split over
 * many chunks is joined once. A trailing `\r` is removed.
 */
export class LineSplitter {
  #parts: Uint8Array[] = [];
  #size = 0;
  /** Bytes copied so far (tails kept plus lines joined): linear framing keeps it under twice the input. */
  copiedBytes = 0;

  /** Hands every complete line in `chunk` to `onLine`; keeps the rest. `chunk` may be reused afterwards. */
  push(chunk: Uint8Array, onLine: (line: Uint8Array) => void): void {
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#size === 0) {
        onLine(trimCr(piece));
        continue;
      }
      const line = new Uint8Array(this.#size + piece.length);
      let at = 0;
      for (const part of this.#parts) {
        line.set(part, at);
        at += part.length;
      }
      line.set(piece, at);
      this.copiedBytes += line.length;
      this.#parts = [];
      this.#size = 0;
      onLine(trimCr(line));
    }
    if (start < chunk.length) {
      this.#parts.push(chunk.slice(start));
      this.#size += chunk.length - start;
      this.copiedBytes += chunk.length - start;
    }
  }

  /** Bytes of an unfinished line held back. */
  get pending(): number {
    return this.#size;
  }
}

function trimCr(line: Uint8Array): Uint8Array {
  return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
}

/** A parsed JSON-RPC message from the server. */
export type Message = Record<string, unknown>;

/** What a request came to: a reply, or the reason there was none. */
export type Outcome =
  | { kind: "reply"; message: Message; ms: number }
  | { kind: "none"; reason: string; ms: number };

/** How to start a server. */
export interface SpawnSpec {
  /** The executable (the benchmark uses `Deno.execPath()`). */
  command: string;
  /** Its arguments, e.g. `["run", "--quiet", "server.ts"]`. */
  args: string[];
  /** Working directory. */
  cwd?: string;
}

/** Result of {@linkcode ServerProcess.pipeline}. */
export interface PipelineResult {
  /** Calls answered as `check` expected. */
  ok: number;
  /** Calls answered otherwise. */
  bad: number;
  /** Wall time from the first request to the last reply, in milliseconds; or the reason it stopped. */
  ms: number;
  /** Set when the run stopped before every call was answered. */
  stopped?: string;
}

/** One server subprocess over real stdio pipes. */
export class ServerProcess {
  readonly pid: number;
  /** Resolves with the exit status. */
  readonly exited: Promise<Deno.CommandStatus>;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<string | number, (message: Message) => void>();
  readonly #exitWaiters = new Set<(reason: string) => void>();
  #queue: (string | Uint8Array)[] = [];
  #pumping = false;
  #exitReason: string | undefined;
  #nextId = 1;
  #stderr = "";
  // CPU time counted thread by thread (cpuSeconds()): the total so far, and each live thread's counter at the last reading.
  #cpuNs = 0;
  #threadNs = new Map<string, number>();

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.pid = child.pid;
    this.#writer = child.stdin.getWriter();
    // A failed write means the child is gone; `exited` reports that.
    this.#writer.closed.catch(() => {});
    void this.#readStdout();
    void this.#readStderr();
    this.exited = child.status.then((status) => {
      this.#exitReason = `server exited (code ${status.code}${status.signal ? `, ${status.signal}` : ""})`;
      for (const wake of this.#exitWaiters) wake(this.#exitReason);
      return status;
    });
  }

  /** Starts `spec` with piped stdin, stdout and stderr. */
  static spawn(spec: SpawnSpec): ServerProcess {
    const child = new Deno.Command(spec.command, {
      args: spec.args,
      cwd: spec.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new ServerProcess(child);
  }

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** The last 2 KiB the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** Sends one request and waits for its reply, at most `timeoutMs`. */
  request(method: string, params: unknown, timeoutMs: number): Promise<Outcome> {
    const id = this.nextId();
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    return this.requestLine(id, line, timeoutMs);
  }

  /**
   * Sends a pre-built request line (it must end with `\n`) and waits for the
   * reply with `id`. The clock starts before the first byte is queued.
   */
  requestLine(id: string | number, line: string | Uint8Array, timeoutMs: number): Promise<Outcome> {
    const started = performance.now();
    return new Promise<Outcome>((resolve) => {
      const elapsed = () => performance.now() - started;
      if (this.#exitReason !== undefined) return resolve({ kind: "none", reason: this.#exitReason, ms: elapsed() });
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        this.#exitWaiters.delete(onExit);
        resolve(outcome);
      };
      const onExit = (reason: string) => finish({ kind: "none", reason, ms: elapsed() });
      const timer = setTimeout(() => {
        finish({ kind: "none", reason: `no answer (timeout after ${formatSeconds(timeoutMs)})`, ms: elapsed() });
      }, timeoutMs);
      this.#exitWaiters.add(onExit);
      this.#pending.set(id, (message) => finish({ kind: "reply", message, ms: elapsed() }));
      this.send(line);
    });
  }

  /** Queues raw bytes or text for stdin; everything queued in one turn goes out in one write. */
  send(data: string | Uint8Array): void {
    this.#queue.push(data);
    if (!this.#pumping) {
      this.#pumping = true;
      queueMicrotask(() => void this.#pump());
    }
  }

  /**
   * Sends `count` requests built by `line(id)`, keeping `window` in flight,
   * and counts the replies `check` accepts. Stops when a reply takes longer
   * than `stallMs`.
   */
  pipeline(
    count: number,
    window: number,
    line: (id: number) => string,
    check: (message: Message) => boolean,
    stallMs: number,
  ): Promise<PipelineResult> {
    return new Promise((resolve) => {
      const started = performance.now();
      let sent = 0;
      let ok = 0;
      let bad = 0;
      let lastProgress = started;
      const done = (stopped?: string) => {
        clearInterval(watchdog);
        this.#exitWaiters.delete(onExit);
        resolve({ ok, bad, ms: performance.now() - started, stopped });
      };
      const onReply = (message: Message) => {
        if (check(message)) ok++;
        else bad++;
        lastProgress = performance.now();
        if (sent < count) sendOne();
        else if (ok + bad === count) done();
      };
      const sendOne = () => {
        const id = this.nextId();
        this.#pending.set(id, onReply);
        this.send(line(id));
        sent++;
      };
      const onExit = (reason: string) => done(reason);
      this.#exitWaiters.add(onExit);
      const watchdog = setInterval(() => {
        if (performance.now() - lastProgress > stallMs) done(`no answer (stalled for ${formatSeconds(stallMs)})`);
      }, Math.min(stallMs, 250));
      for (let i = 0; i < Math.min(window, count); i++) sendOne();
    });
  }

  /**
   * The child's resident set size (VmRSS of /proc/<pid>/status) and its
   * anonymous part (RssAnon: the heap and everything else the process
   * allocated, as opposed to pages of mapped files such as the deno
   * executable's code) in KiB; undefined where unreadable.
   */
  async memoryKiB(): Promise<{ rss: number; anon: number | undefined; peak: number | undefined } | undefined> {
    const status = await this.#procFile("status");
    const rss = status?.match(/^VmRSS:\s+(\d+)\s+kB$/m);
    if (!rss) return undefined;
    const anon = status?.match(/^RssAnon:\s+(\d+)\s+kB$/m);
    // The kernel's high-water mark: the largest RSS the process has had.
    const peak = status?.match(/^VmHWM:\s+(\d+)\s+kB$/m);
    return { rss: Number(rss[1]), anon: anon ? Number(anon[1]) : undefined, peak: peak ? Number(peak[1]) : undefined };
  }

  /**
   * CPU time the child's threads have used so far, in seconds, from the
   * nanosecond counters in /proc/<pid>/task/<tid>/schedstat; undefined where
   * unreadable. Unlike wall time it hardly moves with what else runs on the
   * machine. Counted thread by thread since the first reading
   * ({@linkcode addThreadCpu}): a thread that exits takes its counter with it
   * (Deno's blocking-pool threads exit after 10 s idle, as the toolkit's do
   * once its stdio moved onto the event loop), and a plain sum then dropped by
   * all the time that thread had ever used, or failed when its file vanished
   * while it was read.
   */
  async cpuSeconds(): Promise<number | undefined> {
    try {
      const out = await new Deno.Command("sh", {
        args: [
          "-c",
          'for f in /proc/"$1"/task/*/schedstat; do echo "$f $(cat "$f" 2>/dev/null)"; done',
          "sh",
          String(this.pid),
        ],
        stderr: "null",
      }).output();
      const readings = new Map<string, number>();
      for (const line of decoder.decode(out.stdout).split("\n")) {
        const [file, ns] = line.trim().split(" ");
        const tid = file?.match(/\/task\/(\d+)\/schedstat$/)?.[1];
        if (tid !== undefined && ns !== undefined && Number.isFinite(Number(ns))) readings.set(tid, Number(ns));
      }
      if (readings.size === 0) return undefined;
      this.#cpuNs += addThreadCpu(this.#threadNs, readings);
      return this.#cpuNs / 1e9;
    } catch {
      return undefined;
    }
  }

  /** Reads /proc/<pid>/<name> through `cat`: Deno grants /proc/<pid> only to --allow-all. */
  async #procFile(name: string): Promise<string | undefined> {
    try {
      const out = await new Deno.Command("cat", { args: [`/proc/${this.pid}/${name}`], stderr: "null" }).output();
      return out.success ? decoder.decode(out.stdout) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Closes stdin and waits for the exit; kills the child if it is still running after `graceMs`. */
  async close(graceMs = 2_000): Promise<Deno.CommandStatus> {
    this.#queue = [];
    this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    const first = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (first === "late") {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }
    return await this.exited;
  }

  async #pump(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        for (const bytes of joinBatch(batch)) await this.#writer.write(bytes);
      }
    } catch {
      this.#queue = [];
    } finally {
      this.#pumping = false;
    }
  }

  async #readStdout(): Promise<void> {
    const splitter = new LineSplitter();
    const onLine = (line: Uint8Array) => {
      if (line.length === 0) return;
      let message: Message;
      try {
        message = JSON.parse(decoder.decode(line));
      } catch {
        return;
      }
      const id = message.id as string | number | undefined;
      if (id === undefined || id === null) return;
      this.#pending.get(id)?.(message);
    };
    try {
      for await (const chunk of this.#child.stdout) splitter.push(chunk, onLine);
    } catch {
      // The child went away; `exited` reports it.
    }
  }

  async #readStderr(): Promise<void> {
    try {
      for await (const chunk of this.#child.stderr) {
        this.#stderr = (this.#stderr + decoder.decode(chunk)).slice(-2048);
      }
    } catch {
      // The child went away.
    }
  }
}

/** Joins queued strings into one encoded buffer; large byte arrays pass through uncopied. */
function joinBatch(batch: (string | Uint8Array)[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let text = "";
  for (const item of batch) {
    if (typeof item === "string") {
      text += item;
      continue;
    }
    if (text) out.push(encoder.encode(text));
    text = "";
    out.push(item);
  }
  if (text) out.push(encoder.encode(text));
  return out;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * The CPU time (ns) the threads used since `last` was read, `last` updated to
 * `readings` (thread id to its schedstat counter). A thread not in `last`
 * counts whole (it started since); one gone from `readings` adds nothing and
 * takes nothing away; a counter lower than before is a new thread under a
 * reused id, counted whole.
 */
export function addThreadCpu(last: Map<string, number>, readings: Map<string, number>): number {
  let added = 0;
  for (const [tid, ns] of readings) {
    const before = last.get(tid);
    added += before === undefined || ns < before ? ns : ns - before;
  }
  last.clear();
  for (const [tid, ns] of readings) last.set(tid, ns);
  return added;
}
