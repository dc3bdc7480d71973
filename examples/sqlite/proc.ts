// What the end-to-end tests read about the server's processes, from /proc
// (Linux). Deno grants /proc/<pid> only to -A, so it is read through `sh`
// and `cat`. Imported only by *_test.ts files in this folder.

/** The programs these helpers run: add them to a test's `run` permission. */
export const PROC_PROGRAMS: readonly string[] = ["sh", "cat"];

async function sh(script: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", script, "sh", ...args], stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** The process ids of `pid`'s children and their children, and so on. */
export async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (let next = [pid]; next.length > 0;) {
    const text = await sh('for p; do cat /proc/"$p"/task/*/children; done', ...next.map(String));
    next = text.split(/\s+/).filter((word) => word !== "").map(Number);
    found.push(...next);
  }
  return found;
}

/** The command line of `pid`, one word per element. */
export async function commandLine(pid: number): Promise<string[]> {
  return (await sh('cat /proc/"$1"/cmdline', String(pid))).split("\0").slice(0, -1);
}

/** The environment `pid` was started with, as `NAME=value` words. */
export async function environment(pid: number): Promise<string[]> {
  return (await sh('cat /proc/"$1"/environ', String(pid))).split("\0").filter((word) => word !== "");
}

/** Whether `pid` is still a process (a zombie counts as gone). */
export async function alive(pid: number): Promise<boolean> {
  const state = (await sh('cat /proc/"$1"/stat', String(pid))).split(") ")[1]?.[0];
  return state !== undefined && state !== "Z";
}

/** Waits until every one of `pids` has ended; one that never ends fails the test after `limitMs`. */
export async function ended(pids: readonly number[], limitMs = 30_000): Promise<void> {
  await until(async () => (await Promise.all(pids.map(alive))).every((live) => !live), limitMs);
}

/** Waits until one of `pids` has ended, and returns it. */
export async function oneEnded(pids: readonly number[], limitMs = 30_000): Promise<number> {
  let gone: number | undefined;
  await until(async () => (gone = pids[(await Promise.all(pids.map(alive))).indexOf(false)]) !== undefined, limitMs);
  return gone!;
}

async function until(done: () => Promise<boolean>, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!await done()) {
    if (Date.now() > deadline) throw new Error(`no process ended within ${limitMs} ms`);
  }
}

/** The resident set of `pid` and every descendant, in bytes. */
export async function treeRss(pid: number): Promise<number> {
  const pids = [pid, ...await descendants(pid)].map(String);
  const text = await sh('for p; do cat /proc/"$p"/status; done', ...pids);
  return [...text.matchAll(/^VmRSS:\s+(\d+) kB$/gm)].reduce((sum, [, kib]) => sum + Number(kib) * 1024, 0);
}

/**
 * The bytes each of `pid` and its descendants caused to be written to
 * storage, by process id (`write_bytes` of /proc/<pid>/io: counted when a page
 * is dirtied, so an unlinked temp file that is never flushed still counts).
 * A process that ends takes its figure with it (a parent's /proc/<pid>/io
 * does not add its reaped children's), so a caller comparing two readings
 * must check that no process of the first is gone from the second.
 */
export async function treeWriteBytes(pid: number): Promise<Map<number, number>> {
  const pids = [pid, ...await descendants(pid)];
  const figures = new Map<number, number>();
  for (const p of pids) {
    const text = await sh('cat /proc/"$1"/io', String(p));
    const found = /^write_bytes: (\d+)$/m.exec(text);
    if (found !== null) figures.set(p, Number(found[1]));
  }
  return figures;
}
