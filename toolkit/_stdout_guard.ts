// While a server runs, stdout carries JSON-RPC and nothing else. This guard
// sends the author's console output and direct stdout writes to stderr, and
// hands the real stdout writer to the toolkit's one serialized writer.

import type { ByteWriter } from "./_writer.ts";

const CONSOLE_METHODS = ["log", "info", "debug", "dir", "dirxml"] as const;

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
  for (const name of CONSOLE_METHODS) {
    // console.error formats like console.log and writes to stderr; table,
    // count, group and time* reach stdout through these methods.
    console[name] = (...data: unknown[]) => console.error(...data);
  }
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
