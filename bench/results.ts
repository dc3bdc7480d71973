// Assembles the table's rows from the phases' cells and checks the issue's
// targets against them.

import type { Cell, RssReadings } from "./measure.ts";
import type { RssFigures, ThroughputFigures } from "./phases.ts";
import { formatBytes, type Plan } from "./plan.ts";
import { type Figure, formatNumber, ratioTarget, type Target, valueOf } from "./report.ts";
import { BASELINE, type ServerSpec } from "./servers.ts";
import { median } from "./stats.ts";

/** Everything the phases measured. */
export interface Measured {
  plan: Plan;
  servers: readonly ServerSpec[];
  cold: Record<string, Cell>;
  fresh: Record<string, Cell>;
  health: Record<string, Cell>;
  tput: Record<string, ThroughputFigures>;
  trips: Record<number, Record<string, Cell>>;
  over: Record<string, Cell>;
  /** Readings after `plan.rssFirst`, `plan.rssMiddle` and `plan.rssSecond` calls, in that order. */
  rss: Record<string, RssFigures>;
  /** Pipelined calls/s of the four-argument `echo`, per typed server (empty when not selected). */
  typed?: Record<string, Cell>;
}

/** The table's rows, in print order. */
export function collectFigures(m: Measured): Figure[] {
  const per = (pick: (name: string) => Cell | undefined): Record<string, Cell> =>
    Object.fromEntries(m.servers.map((s) => [s.name, pick(s.name) ?? { failed: "n/a" }]));
  const kib = (cell: Cell | undefined): Cell | undefined =>
    cell && "value" in cell ? { value: cell.value / 1024 } : cell;
  const { plan } = m;
  const rssPoints = [["First", plan.rssFirst], ["Middle", plan.rssMiddle], ["Second", plan.rssSecond]] as const;
  return [
    row("coldStart", "cold start to initialize answered", "ms", "lower", per((n) => m.cold[n])),
    row("health", "--health", "ms", "lower", per((n) => m.health[n])),
    row(
      "fresh",
      `pipelined calls, fresh process (first ${plan.fresh}), ${plan.window} in flight`,
      "calls/s",
      "higher",
      per((n) => m.fresh[n]),
    ),
    row("sequential", "sequential calls, warm", "calls/s", "higher", per((n) => m.tput[n]?.sequential)),
    row("sequentialP50", "sequential latency p50", "µs", "lower", per((n) => m.tput[n]?.p50)),
    row("sequentialP99", "sequential latency p99", "µs", "lower", per((n) => m.tput[n]?.p99)),
    row(
      "pipelined",
      `pipelined calls, warm, ${plan.window} in flight`,
      "calls/s",
      "higher",
      per((n) => m.tput[n]?.pipelined),
    ),
    row("cpu", "server CPU per pipelined call, warm", "µs", "lower", per((n) => m.tput[n]?.cpu)),
    ...plan.largeSizes.map((bytes) =>
      row(`roundTrip${bytes}`, `${formatBytes(bytes)} echo round trip`, "ms", "lower", per((n) => m.trips[bytes]?.[n]))
    ),
    row(
      "concurrent",
      `${plan.concurrent} concurrent ${plan.sleepMs} ms calls, wall`,
      "ms",
      "lower",
      per((n) => m.tput[n]?.concurrent),
    ),
    ...rssPoints.map(([key, calls], i) =>
      row(`rss${key}`, `RSS after ${calls} calls`, "MiB", "lower", per((n) => kib(m.rss[n]?.rss[i])))
    ),
    ...rssPoints.map(([key, calls], i) =>
      row(
        `anon${key}`,
        `  of which anonymous (heap etc.), after ${calls}`,
        "MiB",
        "lower",
        per((n) => kib(m.rss[n]?.anon[i])),
      )
    ),
  ];
}

function row(
  key: string,
  label: string,
  unit: string,
  better: "higher" | "lower",
  cells: Record<string, Cell>,
): Figure {
  return { key, label, unit, better, cells };
}

/** The targets for the toolkit, measured. */
export function collectTargets(m: Measured, figures: readonly Figure[]): Target[] {
  const get = (key: string, name: string) => figures.find((f) => f.key === key)?.cells[name];
  const targets: Target[] = [
    ratioTarget(
      "sequential calls/s, warm, ≥ 1.0× the bare SDK",
      get("sequential", "toolkit"),
      get("sequential", BASELINE),
      1.0,
      false,
    ),
    ratioTarget(
      "pipelined calls/s, fresh process, ≥ 2.5× the bare SDK",
      get("fresh", "toolkit"),
      get("fresh", BASELINE),
      2.5,
      false,
    ),
    ratioTarget(
      "pipelined calls/s, warm, ≥ 2.5× the bare SDK",
      get("pipelined", "toolkit"),
      get("pipelined", BASELINE),
      2.5,
      false,
    ),
  ];
  const ten = 10 * 1024 * 1024;
  const tenCell = m.trips[ten]?.toolkit;
  targets.push(
    tenCell === undefined
      ? { name: "10 MiB round trip correct and < 300 ms", measured: "not measured at this size", pass: undefined }
      : "value" in tenCell
      ? {
        name: "10 MiB round trip correct and < 300 ms",
        measured: `${formatNumber(tenCell.value)} ms`,
        pass: tenCell.value < 300,
      }
      : { name: "10 MiB round trip correct and < 300 ms", measured: tenCell.failed, pass: false },
  );
  const overEntries = Object.entries(m.over);
  const configured = overEntries.find(([label]) => !label.includes("default"));
  targets.push(
    configured === undefined
      ? {
        name: "over-limit message answered with an error naming the limit and the id",
        measured: "not measured",
        pass: undefined,
      }
      : {
        name: "over-limit message answered with an error naming the limit and the id",
        measured: "value" in configured[1] ? `${configured[0]}: ${configured[1].detail}` : configured[1].failed,
        pass: "value" in configured[1],
      },
  );
  const byDefault = overEntries.find(([label]) => label.includes("default"));
  targets.push(
    byDefault === undefined
      ? { name: "default maximum ≥ 64 MiB, answered over it", measured: "not measured in this plan", pass: undefined }
      : {
        name: "default maximum ≥ 64 MiB, answered over it",
        measured: "value" in byDefault[1] ? `${byDefault[0]}: ${byDefault[1].detail}` : byDefault[1].failed,
        pass: "value" in byDefault[1],
      },
  );
  targets.push(
    ratioTarget("cold start ≤ 1.1× the bare SDK", get("coldStart", "toolkit"), get("coldStart", BASELINE), 1.1, true),
    ratioTarget("--health ≤ 1.3× deno run of an empty file", get("health", "toolkit"), m.health.empty, 1.3, true),
  );
  targets.push(
    ratioTarget(
      "pipelined calls/s, four typed arguments validated, ≥ 0.95× the same tool unvalidated",
      m.typed?.typed,
      m.typed?.["typed-unvalidated"],
      0.95,
      false,
    ),
  );
  // Growth is taken within one process (a later reading against an earlier
  // one); over several processes the target takes the median of those.
  const perProcess = (
    name: string,
    pick: (run: RssReadings) => Cell[],
    from: number,
    to: number,
    growth: (a: number, b: number) => number,
  ): number[] | undefined => {
    const out: number[] = [];
    for (const run of m.rss[name]?.runs ?? []) {
      const a = valueOf(pick(run)[from]);
      const b = valueOf(pick(run)[to]);
      if (a === undefined || b === undefined) return undefined;
      out.push(growth(a, b));
    }
    return out.length === 0 ? undefined : out;
  };
  const rssRatios = (name: string, from: number) => perProcess(name, (run) => run.rss, from, 2, (a, b) => b / a);
  const medianOf = (list: number[] | undefined): number | undefined => list && median(list);
  const percent = (ratio: number): string => `${signed((ratio - 1) * 100)} %`;
  const toolkitRatios = rssRatios("toolkit", 0);
  const toolkitRatio = medianOf(toolkitRatios);
  const floorRatio = medianOf(rssRatios("raw-floor", 0));
  const laterRatio = medianOf(rssRatios("toolkit", 1));
  const anonMiB = medianOf(perProcess("toolkit", (run) => run.anon, 0, 2, (a, b) => (b - a) / 1024));
  // Informative context after the figure: each process, the floor, the growth
  // once V8's optimizing compiler has run, and the anonymous part. The check
  // itself is the issue's: total RSS, the 10k reading against the 100k one.
  const context = [
    toolkitRatios && toolkitRatios.length > 1
      ? `median of ${toolkitRatios.length} processes: ${toolkitRatios.map(percent).join(", ")}`
      : undefined,
    floorRatio === undefined ? undefined : `raw floor, for reference: ${percent(floorRatio)}`,
    laterRatio === undefined ? undefined : `from ${m.plan.rssMiddle} calls: ${percent(laterRatio)}`,
    anonMiB === undefined ? undefined : `anonymous memory ${signed(anonMiB)} MiB`,
  ].filter((part) => part !== undefined);
  const rssName = `RSS after ${m.plan.rssSecond} calls within 10 % of RSS after ${m.plan.rssFirst}`;
  targets.push(
    toolkitRatio === undefined ? { name: rssName, measured: "not measured", pass: undefined } : {
      name: rssName,
      measured: percent(toolkitRatio) + (context.length === 0 ? "" : ` (${context.join("; ")})`),
      // A quotient is correctly rounded, so exactly 10 % compares equal to 1.1.
      pass: toolkitRatio <= 1.1,
    },
  );
  return targets;
}

/** `+1.2`, `-0.4`, and `+0.0` rather than `-0.0`. */
function signed(value: number): string {
  const text = value.toFixed(1);
  return text === "-0.0" ? "+0.0" : value >= 0 ? `+${text}` : text;
}
