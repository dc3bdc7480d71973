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
