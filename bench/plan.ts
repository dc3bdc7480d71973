// How much of each measurement a run makes. The full plan finishes in a few
// minutes on 2 cores; the smoke plan in seconds, only to prove the benchmark
// still runs and every server still answers.

/** Sizes and repetitions of one run. */
export interface Plan {
  /** Per-request deadline in milliseconds; past it a request counts as "no answer". */
  timeoutMs: number;
  /** Cold starts measured per server, after `coldWarmRuns` discarded ones. */
  coldRuns: number;
  coldWarmRuns: number;
  /** `--health` runs measured per server (one more is discarded). */
  healthRuns: number;
  /**
   * Throughput rounds; each round starts a fresh process per server, servers
   * interleaved. The floor rows are judged on the median of the per-round
   * ratios, so an odd count makes that median one round's own ratio.
   */
  rounds: number;
  /** Pipelined calls measured straight after `initialize`, before any warm-up, on `freshRuns` processes. */
  fresh: number;
  freshRuns: number;
  warmup: number;
  sequential: number;
  pipelined: number;
  /** Requests in flight when pipelining. */
  window: number;
  concurrent: number;
  sleepMs: number;
  /**
   * Argument sizes (bytes of the echoed text) of the sized pipelined rows,
   * in both eras, each measured over `sizedCalls` calls after `sizedWarmup`
   * on the warm process of the throughput round. The warm-up is as long as
   * the small rows' `warmup`: 5,000 calls into a new size V8 was still
   * recompiling the toolkit's paths for it (docs/benchmarks.md, "Judged
   * paired, sized rows after 20,000 calls").
   */
  argumentSizes: number[];
  sizedWarmup: number;
  sizedCalls: number;
  /**
   * How many parts a pipelined row is measured in: the servers judged
   * together (the toolkit, its bundle, the floor) take turns part by part,
   * so that a burst of load lands on each of them (docs/benchmarks.md, "How a
   * floor row is judged").
   */
  parts: number;
  /** Echo sizes of the round-trip rows, in bytes, with the runs of each. */
  largeSizes: number[];
  largeRuns: number[];
  /** The over-limit check: the toolkit server's configured maximum and the size sent. */
  overLimit: { limit: number; bytes: number };
  /** Whether to also send one message just over the default maximum (64 MiB). */
  overDefault: boolean;
  /** RSS is read after `rssFirst`, `rssMiddle` and `rssSecond` calls on one process; the target compares first and second. */
  rssFirst: number;
  /** Informative: a reading once V8's optimizing compiler has run (it first runs at about 16k calls of the toolkit's `echo`). */
  rssMiddle: number;
  rssSecond: number;
  /** Fresh processes per server for the RSS readings (the median is reported). */
  rssProcesses: number;
  /** The peak-memory cases (toolkit only): messages of each size and content, one deep nesting, one large escaped reply, several at once. */
  peaks: { messageSizes: number[]; depth: number; replyBytes: number; replies: number; timeoutMs: number };
  /** The sqlite example's rows: fresh servers for the first query, warm-up and measured sequential queries, kills. */
  sqlite: { freshServers: number; warmup: number; queries: number; kills: number };
}

const MiB = 1024 * 1024;

/** The two plans: `full` (`deno task bench`) and `smoke` (`--smoke`, for CI). */
export const plans: { full: Plan; smoke: Plan } = {
  full: {
    timeoutMs: 5_000,
    coldRuns: 11,
    coldWarmRuns: 1,
    healthRuns: 15,
    rounds: 7,
    fresh: 5_000,
    freshRuns: 11,
    warmup: 20_000,
    sequential: 3_500,
    pipelined: 40_000,
    window: 64,
    concurrent: 100,
    sleepMs: 100,
    argumentSizes: [1536, 8192],
    sizedWarmup: 20_000,
    sizedCalls: 20_000,
    parts: 4,
    largeSizes: [MiB, 10 * MiB],
    largeRuns: [5, 3],
    overLimit: { limit: MiB, bytes: 2 * MiB },
    overDefault: true,
    rssFirst: 10_000,
    rssMiddle: 30_000,
    rssSecond: 100_000,
    rssProcesses: 3,
    peaks: {
      messageSizes: [10 * MiB, 60 * MiB],
      depth: 1_000_000,
      replyBytes: 10 * MiB,
      replies: 8,
      timeoutMs: 120_000,
    },
    sqlite: { freshServers: 5, warmup: 100, queries: 1_000, kills: 5 },
  },
  smoke: {
    // A backstop, not a measurement: a busy machine may take seconds to start a server, and the smoke
    // run judges only that every server answers.
    timeoutMs: 60_000,
    coldRuns: 1,
    coldWarmRuns: 0,
    healthRuns: 1,
    rounds: 1,
    fresh: 200,
    freshRuns: 1,
    warmup: 50,
    sequential: 50,
    pipelined: 200,
    window: 64,
    concurrent: 100,
    sleepMs: 100,
    argumentSizes: [1536, 8192],
    sizedWarmup: 20,
    sizedCalls: 100,
    parts: 2,
    largeSizes: [64 * 1024, 256 * 1024],
    largeRuns: [1, 1],
    overLimit: { limit: 64 * 1024, bytes: 128 * 1024 },
    overDefault: false,
    rssFirst: 100,
    rssMiddle: 300,
    rssSecond: 1_000,
    rssProcesses: 1,
    // One size: a second, smaller one took each case down the same branch (answered or refused) but one, the
    // 2026-07-28 call of many keys and a junk requestState, which engine/input_required_test.ts ("requestState:
    // arguments that break the schema are answered before the state is opened…") answers with 50,000 keys.
    peaks: { messageSizes: [MiB], depth: 10_000, replyBytes: 64 * 1024, replies: 2, timeoutMs: 60_000 },
    sqlite: { freshServers: 1, warmup: 5, queries: 20, kills: 1 },
  },
};

/** "1 MiB", "64 KiB", "1.5 KiB" or "100 B". */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 512 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}
