// What the end-to-end tests read about the server's processes, from /proc
// (Linux). Deno grants /proc/<pid> only to -A, so it is read through `sh`
// (with its own `read`, so that a look starts no program) and `cat` (for the
// files that hold NUL bytes). Imported only by *_test.ts files in this folder.

/** The programs these helpers run: add them to a test's `run` permission (`sh` also runs `sleep` between looks). */
export const PROC_PROGRAMS: readonly string[] = ["sh", "cat"];

/**
 * Shell functions the scripts below share, built from `sh`'s own `read`:
 * `gone PID` (true when PID is no process, or a zombie); `tree ROOT`
 * (ROOT and every descendant, one line); `tree_sum FIELD ROOT` (the sum of
 * FIELD in /proc/<pid>/status over `tree ROOT`, in kB).
 */
const FUNCTIONS = `
gone() { { read -r s < /proc/"$1"/stat; } 2>/dev/null || return 0; s=\${s##*") "}; [ "\${s%% *}" = Z ]; }
tree() {
  found=$1; queue=$1
  while [ -n "$queue" ]; do
    set -- $queue; queue=
    for p; do
      for c in /proc/"$p"/task/*/children; do kids=; { read -r kids < "$c"; } 2>/dev/null; queue="$queue $kids"; done
    done
    found="$found $queue"
  done
  echo $found
}
tree_sum() {
  field=$1; total=0
  for p in $(tree "$2"); do
    { while read -r k v rest; do [ "$k" = "$field:" ] && total=$((total + v)); done < /proc/"$p"/status; } 2>/dev/null
  done
  echo "$total"
}
`;

/** `sh` running `script` with the functions above and `args` as its `$1`…, its output piped, its errors dropped. */
function shell(script: string, ...args: string[]): Deno.Command {
  return new Deno.Command("sh", { args: ["-c", FUNCTIONS + script, "sh", ...args], stdout: "piped", stderr: "null" });
}

async function sh(script: string, ...args: string[]): Promise<string> {
  return new TextDecoder().decode((await shell(script, ...args).output()).stdout);
}

/** The process ids of `pid`'s children and their children, and so on. */
export async function descendants(pid: number): Promise<number[]> {
  return (await sh('tree "$1"', String(pid))).split(/\s+/).filter((word) => word !== "").map(Number).slice(1);
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
  return (await sh('gone "$1" || echo alive', String(pid))).trim() === "alive";
}

/** Waits until every one of `pids` has ended; one that never ends fails the test after `limitMs`. */
export async function ended(pids: readonly number[], limitMs = 30_000): Promise<void> {
  await waitInShell("all", pids, limitMs);
}

/** Waits until one of `pids` has ended, and returns it. */
export async function oneEnded(pids: readonly number[], limitMs = 30_000): Promise<number> {
  return Number(await waitInShell("one", pids, limitMs));
}

/**
 * Waits in one `sh` that looks at `pids` every 20 ms (the end of a process
 * that is not this one's child is no event it can wait for), until one is
 * gone (`"one"`: printed) or all are (`"all"`). One that never ends fails the
 * test after `limitMs`: the shell is killed.
 */
async function waitInShell(mode: "one" | "all", pids: readonly number[], limitMs: number): Promise<string> {
  const script = `mode=$1; shift
while :; do
  left=0
  for p; do
    if gone "$p"; then [ "$mode" = one ] && { echo "$p"; exit 0; }; else left=1; fi
  done
  [ "$mode" = all ] && [ "$left" = 0 ] && exit 0
  sleep 0.02
done`;
  const child = shell(script, mode, ...pids.map(String)).spawn();
  const limit = setTimeout(() => child.kill("SIGKILL"), limitMs);
  try {
    const out = await child.output();
    if (!out.success) throw new Error(`no process ended within ${limitMs} ms`);
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    clearTimeout(limit);
  }
}

/**
 * Waits until `count` of `pid`'s descendants each hold the file at `path` open
 * (the same device and inode, through /proc/<pid>/fd), looking every 20 ms in
 * one `sh`. A database process opens its database once Deno has loaded (and
 * cached) its modules, and says it is ready just after: a count of a pool's
 * writes that starts here sees no start of its processes. Fails the test after
 * `limitMs`.
 */
export async function descendantsOpened(pid: number, path: string, count: number, limitMs = 30_000): Promise<void> {
  const script = `while :; do
  n=0
  for p in $(tree "$1"); do
    [ "$p" = "$1" ] && continue
    for f in /proc/"$p"/fd/*; do [ "$f" -ef "$2" ] && { n=$((n + 1)); break; }; done 2>/dev/null
  done
  [ "$n" -ge "$3" ] && exit 0
  sleep 0.02
done`;
  const child = shell(script, String(pid), path, String(count)).spawn();
  const limit = setTimeout(() => child.kill("SIGKILL"), limitMs);
  try {
    if (!(await child.output()).success) {
      throw new Error(`${count} processes did not open ${path} within ${limitMs} ms`);
    }
  } finally {
    clearTimeout(limit);
  }
}

/** The resident set of `pid` and every descendant, in bytes. */
export async function treeRss(pid: number): Promise<number> {
  return Number(await sh('tree_sum VmRSS "$1"', String(pid))) * 1024;
}

/**
 * The peak resident set (VmHWM) of each of `pid` and its descendants, summed,
 * in bytes: at least their resident set summed at any moment since each
 * started, so a bound on it bounds every moment's. A process that ends takes
 * its figure with it: see {@linkcode watchPeakRss}.
 */
export async function treePeakRss(pid: number): Promise<number> {
  return Number(await sh('tree_sum VmHWM "$1"', String(pid))) * 1024;
}

/**
 * Reads {@linkcode treePeakRss} of `pid` every 20 ms, in one `sh`, until
 * `stop()`, which reads it once more and returns the largest reading: a
 * process that ended in between counts with its peak up to its last look.
 */
export function watchPeakRss(pid: number): { stop(): Promise<number> } {
  const child = shell('while :; do tree_sum VmHWM "$1"; sleep 0.02; done', String(pid)).spawn();
  let peak = 0;
  const read = (async () => {
    let rest = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const line of lines) peak = Math.max(peak, Number(line) * 1024);
    }
  })();
  return {
    async stop() {
      child.kill("SIGKILL");
      await child.status;
      await read;
      return Math.max(peak, await treePeakRss(pid));
    },
  };
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
  const script = `for p in $(tree "$1"); do
  { while read -r k v; do [ "$k" = write_bytes: ] && echo "$p $v"; done < /proc/"$p"/io; } 2>/dev/null
done`;
  const figures = new Map<number, number>();
  for (const line of (await sh(script, String(pid))).split("\n")) {
    const [p, bytes] = line.split(" ").map(Number);
    if (line !== "") figures.set(p, bytes);
  }
  return figures;
}
