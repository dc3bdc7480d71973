// While a server runs, stdout carries JSON-RPC and nothing else. This guard
// sends the author's console output and direct stdout writes to stderr, and
// hands the real stdout writer to the toolkit's one serialized writer.

import type { ByteWriter } from "./_writer.ts";

// Deno's console writes these to stdout. log, info, debug, dir and dirxml
// format like console.error (group indents through log); table, count and the
// timers print directly, so they get small stderr versions here.
const CONSOLE_METHODS = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
] as const;

function stderrConsole(): Pick<Console, (typeof CONSOLE_METHODS)[number]> {
  const error = console.error;
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const elapsed = (label: string) => `${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`;
  return {
    log: (...data: unknown[]) => error(...data),
    info: (...data: unknown[]) => error(...data),
    debug: (...data: unknown[]) => error(...data),
    dir: (item?: unknown) => error(item),
    dirxml: (...data: unknown[]) => error(...data),
    table: (data: unknown) => error(data),
    count: (label = "default") => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      error(`${label}: ${n}`);
    },
    countReset: (label = "default") => void counts.delete(label),
    time: (label = "default") => void timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]) => error(elapsed(label), ...data),
    timeEnd: (label = "default") => {
      error(elapsed(label));
      timers.delete(label);
    },
  };
}

/** What `guardStdout()` returns: the real writer and a way to undo the guard. */
export interface StdoutGuard {
  /** Writes to the real stdout. */
  stdout: ByteWriter;
  /** Restores console and Deno.stdout as they were. */
  restore(): void;
}

/** Diverts every stdout path an author can reach to stderr. */
export function guardStdout(): StdoutGuard {
  const out = Deno.stdout;
  const write = out.write.bind(out);
  const saved = CONSOLE_METHODS.map((name) => [name, console[name]] as const);
  Object.assign(console, stderrConsole());
  const target = out as unknown as Record<string, unknown>;
  const own = {
    write: Object.getOwnPropertyDescriptor(target, "write"),
    writeSync: Object.getOwnPropertyDescriptor(target, "writeSync"),
    writable: Object.getOwnPropertyDescriptor(target, "writable"),
  };
  Object.defineProperty(target, "write", { value: (p: Uint8Array) => Deno.stderr.write(p), configurable: true });
  Object.defineProperty(target, "writeSync", {
    value: (p: Uint8Array) => Deno.stderr.writeSync(p),
    configurable: true,
  });
  Object.defineProperty(target, "writable", { get: () => Deno.stderr.writable, configurable: true });
  return {
    stdout: { write },
    restore() {
      for (const [name, fn] of saved) console[name] = fn;
      for (const [key, descriptor] of Object.entries(own)) {
        if (descriptor) Object.defineProperty(target, key, descriptor);
        else delete target[key];
      }
    },
  };
}
