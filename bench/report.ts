// Turns measured cells into the printed table (each figure with its ratio to
// the bare SDK) and the toolkit's targets with PASS/FAIL.

import type { Cell } from "./measure.ts";
import { median } from "./stats.ts";

/** One row of the table: a figure measured on every server. */
export interface Figure {
  key: string;
  label: string;
  unit: string;
  /** Which way is better: ratios read the same way. */
  better: "higher" | "lower";
  cells: Record<string, Cell>;
}

/** A target the toolkit must meet and whether this run meets it; `pass` undefined = not measured. */
export interface Target {
  name: string;
  measured: string;
  pass: boolean | undefined;
}

/** The value of a cell, or undefined. */
export function valueOf(cell: Cell | undefined): number | undefined {
  return cell !== undefined && "value" in cell ? cell.value : undefined;
}

/** `cell / base`, or undefined when either is missing. */
export function ratio(cell: Cell | undefined, base: Cell | undefined): number | undefined {
  const a = valueOf(cell);
  const b = valueOf(base);
  return a === undefined || b === undefined || b === 0 ? undefined : a / b;
}

/** Formats a number for the table: thousands separated, few significant digits. */
export function formatNumber(value: number): string {
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Renders the figure × server table as monospace text. */
export function renderTable(
  figures: readonly Figure[],
  servers: readonly { name: string; label: string }[],
  baseline: string,
): string {
  const header = ["figure", ...servers.map((s) => s.label)];
  const rows = figures.map((figure) => [
    `${figure.label} (${figure.unit}, ${figure.better} is better)`,
    ...servers.map((s) => cellText(figure.cells[s.name], figure.cells[baseline])),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
  const line = (row: string[]) => row.map((text, i) => text.padEnd(widths[i])).join(" | ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
}

/** Renders the same table as Markdown, for docs/benchmarks.md. */
export function renderMarkdown(
  figures: readonly Figure[],
  servers: readonly { name: string; label: string }[],
  baseline: string,
): string {
  const head = `| figure | ${servers.map((s) => s.label).join(" | ")} |`;
  const rule = `|---|${servers.map(() => "---").join("|")}|`;
  const rows = figures.map((f) =>
    `| ${f.label} (${f.unit}, ${f.better} is better) | ${
      servers.map((s) => cellText(f.cells[s.name], f.cells[baseline])).join(" | ")
    } |`
  );
  return [head, rule, ...rows].join("\n");
}

function cellText(cell: Cell | undefined, base: Cell | undefined): string {
  if (cell === undefined) return "–";
  if ("failed" in cell) return cell.failed;
  const r = ratio(cell, base);
  return r === undefined ? formatNumber(cell.value) : `${formatNumber(cell.value)} (${r.toFixed(2)}×)`;
}

/** Renders targets one per line. */
export function renderTargets(targets: readonly Target[]): string {
  return targets.map((t) => `${t.pass === undefined ? "n/a " : t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.measured}`)
    .join("\n");
}

/** A ratio target: `cell / base` compared with `limit`. */
export function ratioTarget(
  name: string,
  cell: Cell | undefined,
  base: Cell | undefined,
  limit: number,
  atMost: boolean,
): Target {
  const r = ratio(cell, base);
  if (r === undefined) {
    return { name, measured: `not measured (${reason(cell) ?? reason(base) ?? "missing"})`, pass: undefined };
  }
  const measured = `${r.toFixed(2)}× (${formatNumber(valueOf(cell)!)} vs ${formatNumber(valueOf(base)!)})`;
  return { name, measured, pass: atMost ? r <= limit : r >= limit };
}

/**
 * A ratio target judged round by round: `cells[i] / bases[i]` of each round
 * (the two measured back to back, so the load of that moment cancels), the
 * median of those ratios compared with `limit`. Printed with the ratios'
 * range and, for the reader of the table, the medians of each side.
 */
export function pairedTarget(
  name: string,
  cells: readonly Cell[] | undefined,
  bases: readonly Cell[] | undefined,
  limit: number,
  atMost: boolean,
): Target {
  const failed = [...cells ?? [], ...bases ?? []].map(reason).find((r) => r !== undefined);
  if (failed !== undefined) return { name, measured: `not measured (${failed})`, pass: undefined };
  const values = (cells ?? []).map(valueOf) as number[];
  const baseValues = (bases ?? []).map(valueOf) as number[];
  if (values.length === 0 || values.length !== baseValues.length || baseValues.includes(0)) {
    return { name, measured: "not measured (missing rounds)", pass: undefined };
  }
  const ratios = values.map((value, i) => value / baseValues[i]);
  const r = median(ratios);
  const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  const rounds = `${ratios.length} round${ratios.length === 1 ? "" : "s"}`;
  const medians = `${formatNumber(median(values))} vs ${formatNumber(median(baseValues))}`;
  const measured = `${r.toFixed(2)}× paired (median of ${rounds}, range ${spread}; medians ${medians})`;
  return { name, measured, pass: atMost ? r <= limit : r >= limit };
}

function reason(cell: Cell | undefined): string | undefined {
  return cell !== undefined && "failed" in cell ? cell.failed : undefined;
}
