/** One JSON line per measured figure, so results can be collected by any tool. */
export function report(
  bench: string,
  figure: string,
  value: number,
  unit: string,
  labels: Record<string, unknown> = {},
): void {
  console.log(JSON.stringify({ bench, figure, value: Math.round(value * 100) / 100, unit, ...labels }));
}

/** Percentile (0..100) of a list of samples; sorts a copy. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = Float64Array.from(samples).sort();
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
