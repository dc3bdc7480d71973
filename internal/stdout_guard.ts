// While a server runs, stdout carries JSON-RPC and nothing else. This guard
// sends the author's console output and direct stdout writes to stderr, and
// hands the real stdout writer to the toolkit's one serialized writer.
// Everything it diverts goes through the non-blocking stderr queue: Deno's own
// console writes stderr synchronously, which blocks the whole event loop once
// a client stops reading stderr.

import { type StderrQueue, stderrQueue } from "./stderr.ts";
import type { ByteWriter } from "./byte_writer.ts";

// Every Console method that prints; the rest (profile, timeStamp) print nothing.
const CONSOLE_METHODS = [
  "log",
  "info",
  "debug",
  "error",
  "warn",
  "trace",
  "assert",
  "dir",
  "dirxml",
  "table",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
  "group",
  "groupCollapsed",
  "groupEnd",
] as const;

type Printing = Pick<Console, (typeof CONSOLE_METHODS)[number]>;

/** Formats console arguments as Deno does for a pipe: printf-style directives, then inspected values. */
export function formatConsole(data: readonly unknown[]): string {
  const parts: string[] = [];
  let rest = 0;
  const first = data[0];
  if (typeof first === "string" && data.length > 1 && first.includes("%")) {
    rest = 1;
    parts.push(first.replace(/%([sdifoOc%])/g, (directive, kind: string) => {
      if (kind === "%") return "%";
      if (rest >= data.length) return directive;
      const value = data[rest++];
      switch (kind) {
        case "s":
          return typeof value === "string" ? value : inspect(value);
        case "d":
        case "i":
          return typeof value === "bigint"
            ? `${value}n`
            : String(kind === "i" ? Math.trunc(Number(value)) : Number(value));
        case "f":
          return String(Number(value));
        case "c":
          return "";
        default:
          return inspect(value);
      }
    }));
  }
  for (let i = rest; i < data.length; i++) {
    const value = data[i];
    parts.push(typeof value === "string" ? value : inspect(value));
  }
  return parts.join(" ");
}

function inspect(value: unknown): string {
  return Deno.inspect(value, { colors: false, depth: 4 });
}

function stderrConsole(): Printing {
  const queue = stderrQueue();
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  let indent = "";
  const print = (...data: unknown[]) => {
    const text = formatConsole(data);
    queue.logLine(indent === "" ? text : indent + text.replaceAll("\n", "\n" + indent));
  };
  const elapsed = (label: string) => `${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`;
  return {
    log: print,
    info: print,
    debug: print,
    error: print,
    warn: print,
    trace: (...data: unknown[]) => {
      const stack = (new Error().stack ?? "").split("\n").slice(2).join("\n");
      print(`Trace${data.length > 0 ? ": " + formatConsole(data) : ""}\n${stack}`);
    },
    assert: (condition?: boolean, ...data: unknown[]) => {
      if (condition) return;
      print(data.length > 0 ? `Assertion failed: ${formatConsole(data)}` : "Assertion failed");
    },
    dir: (item?: unknown) => print(item),
    dirxml: print,
    table: (data: unknown) => print(data),
    count: (label = "default") => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      print(`${label}: ${n}`);
    },
    countReset: (label = "default") => void counts.delete(label),
    time: (label = "default") => void timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]) => print(elapsed(label), ...data),
    timeEnd: (label = "default") => {
      print(elapsed(label));
      timers.delete(label);
    },
    group: (...label: unknown[]) => {
      if (label.length > 0) print(...label);
      indent += "  ";
    },
    groupCollapsed: (...label: unknown[]) => {
      if (label.length > 0) print(...label);
      indent += "  ";
    },
    groupEnd: () => void (indent = indent.slice(2)),
  };
}

/** What `guardStdout()` returns: the real writer and a way to undo the guard. */
export interface StdoutGuard {
  /** Writes to the real stdout. */
  stdout: ByteWriter;
  /** Restores console and Deno.stdout as they were. */
  restore(): void;
}

/** What a guard diverts besides stdout and the console. */
export interface GuardOptions {
  /**
   * Also divert direct `Deno.stderr` writes (`write`, `writeSync`,
   * `writable`, and so Node's `process.stderr`): an author's
   * `Deno.stderr.writeSync` would otherwise block the whole event loop once
   * nobody reads stderr. Only while serving: before that, a line written just
   * before `Deno.exit()` must not wait in a queue the exit discards.
   * @default {false}
   */
  stderr?: boolean;
}

/**
 * Diverts every stdout path an author can reach, and the console's stderr
 * output, to the stderr queue; with `stderr`, direct `Deno.stderr` writes too.
 * A reference to a real method taken before the guard is out of its reach.
 */
export function guardStdout(options: GuardOptions = {}): StdoutGuard {
  const out = Deno.stdout;
  const write = out.write.bind(out);
  // Created now, before Deno.stderr is diverted: the queue keeps the real stderr writer.
  const queue = stderrQueue();
  const saved = CONSOLE_METHODS.map((name) => [name, console[name]] as const);
  Object.assign(console, stderrConsole());
  const undo = [divertWrites(out, queue)];
  if (options.stderr) undo.push(divertWrites(Deno.stderr, queue));
  return {
    stdout: { write },
    restore() {
      Object.assign(console, Object.fromEntries(saved));
      for (const restore of undo) restore();
    },
  };
}

/** Sends `write`, `writeSync` and `writable` of `stream` to the queue, without blocking; returns the undo. */
function divertWrites(stream: typeof Deno.stdout | typeof Deno.stderr, queue: StderrQueue): () => void {
  const target = stream as unknown as Record<string, unknown>;
  const own = {
    write: Object.getOwnPropertyDescriptor(target, "write"),
    writeSync: Object.getOwnPropertyDescriptor(target, "writeSync"),
    writable: Object.getOwnPropertyDescriptor(target, "writable"),
  };
  const divert = (p: Uint8Array) => {
    queue.logBytes(p);
    return p.length;
  };
  Object.defineProperty(target, "write", { value: (p: Uint8Array) => Promise.resolve(divert(p)), configurable: true });
  Object.defineProperty(target, "writeSync", { value: divert, configurable: true });
  // Made at first use: the first WritableStream of a process loads Deno's streams, a cost at every start.
  let writable: WritableStream<Uint8Array> | undefined;
  const diverted = () => writable ??= new WritableStream<Uint8Array>({ write: (chunk) => void divert(chunk) });
  Object.defineProperty(target, "writable", { get: diverted, configurable: true });
  return () => {
    for (const [key, descriptor] of Object.entries(own)) {
      if (descriptor) Object.defineProperty(target, key, descriptor);
      else delete target[key];
    }
  };
}
