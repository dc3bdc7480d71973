// Order statistics for the benchmark: medians across repetitions resist the
// outliers a shared 2-core machine produces.

/** The median of `values`; NaN when empty. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The nearest-rank percentile `p` (0–100) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
