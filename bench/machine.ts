// How busy the machine is before a run starts. On 2 shared cores another
// process's test suite moves every wall-clock figure, so a run says when it
// did not start on an idle machine.

/** The share (0–1) of all CPU time spent busy over `ms` milliseconds, from /proc/stat; undefined where unreadable. */
export async function busyShare(ms: number): Promise<number | undefined> {
  const first = await cpuTotals();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const second = await cpuTotals();
  if (first === undefined || second === undefined) return undefined;
  const total = second.total - first.total;
  return total > 0 ? (second.busy - first.busy) / total : undefined;
}

async function cpuTotals(): Promise<{ busy: number; total: number } | undefined> {
  try {
    // Through `cat`: the benchmark holds --allow-run but no read permission.
    const out = await new Deno.Command("cat", { args: ["/proc/stat"], stderr: "null" }).output();
    const line = new TextDecoder().decode(out.stdout).split("\n").find((l) => l.startsWith("cpu "));
    if (!line) return undefined;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = ticks[3] + (ticks[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** Where the servers and the driver run when pinned: CPU lists as `taskset -c` reads them. */
export interface Pinning {
  /** The one CPU every server runs on. */
  server: string;
  /** The CPUs the benchmark itself (the driver) runs on. */
  driver: string;
  /** Every CPU the benchmark was given: where a start is timed (a child would otherwise inherit the driver's). */
  all: string;
}

/**
 * The CPUs of an affinity list (`0-2,5`) in order; undefined when the list
 * cannot be read.
 */
export function cpusOf(list: string): number[] | undefined {
  const cpus: number[] = [];
  for (const part of list.trim().split(",")) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!range) return undefined;
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) return undefined;
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/**
 * Pins the benchmark (every thread) to all but the last CPU it may use and
 * returns where servers go: that last CPU. Two virtual CPUs of one machine
 * need not run a server at the same speed (docs/benchmarks.md, "Where a
 * server runs"), and a server the scheduler moves between them mixes both
 * speeds into its figures; pinned, every server of a run gets the same CPU and
 * the driver never competes with it. Where that is not possible (no
 * `taskset`, one CPU) it pins nothing and returns the reason.
 */
export async function pinToCpus(): Promise<Pinning | string> {
  let allowed: number[] | undefined;
  try {
    const out = await new Deno.Command("taskset", { args: ["-c", "-p", String(Deno.pid)], stderr: "null" }).output();
    if (!out.success) return "taskset could not read the benchmark's CPUs";
    allowed = cpusOf(new TextDecoder().decode(out.stdout).split(":").at(-1) ?? "");
  } catch {
    return "no taskset on this machine";
  }
  if (allowed === undefined) return "taskset printed an affinity list this cannot read";
  if (allowed.length < 2) return `only ${allowed.length} CPU to run on`;
  const server = String(allowed.at(-1));
  const driver = allowed.slice(0, -1).join(",");
  const out = await new Deno.Command("taskset", { args: ["-a", "-c", "-p", driver, String(Deno.pid)], stdout: "null" })
    .output();
  if (!out.success) return "taskset could not pin the benchmark";
  return { server, driver, all: allowed.join(",") };
}
