// Starts `deno run <args>` with piped stdio, a clean environment (but for what
// childEnv() passes on), and its stderr collected as text; shared by
// spawnServer and spawnRaw.

import type { ByteReader } from "@forge/toolkit/stdio";
import { denoRun } from "../internal/deno_run.ts";
import { StreamText } from "./stream_text.ts";
import { readerOf, writerOf } from "./_streams.ts";

/** A started child with its ends adapted. */
export interface Spawned {
  child: Deno.ChildProcess;
  stdin: ReturnType<typeof writerOf>;
  stdout: ByteReader;
  /** What the child wrote to stderr so far. */
  stderr(): string;
  /** Resolves once stderr holds `marker` `times` times (see StreamText.waitFor). */
  waitForStderr(marker: string, times?: number): Promise<void>;
  /** Resolves once stderr has ended. */
  stderrDone: Promise<void>;
}

/** Spawns `deno run --quiet <args>` with only `env` and what `childEnv()` adds in its environment. */
export function spawnDeno(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Spawned {
  const child = denoRun(args, { env, cwd }).spawn();
  const stderr = new StreamText(child.stderr);
  return {
    child,
    stdin: writerOf(child.stdin),
    stdout: readerOf(child.stdout),
    stderr: () => stderr.text,
    waitForStderr: (marker, times) => stderr.waitFor(marker, times),
    stderrDone: stderr.done,
  };
}
