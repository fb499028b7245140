// Summaries of latency samples. Percentiles use the nearest-rank method on the sorted samples,
// so p99 of 100 samples is the 99th smallest: a value that was really observed.

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The middle value (nearest rank) of a few samples. */
export function median(samples: readonly number[]): number {
  return percentile(Float64Array.from(samples).sort(), 50);
}

/** Sorts a copy; `samples` may be a Float64Array of which only the first `count` are used. */
export function summarise(samples: ArrayLike<number>, count = samples.length): LatencySummary {
  const sorted = Float64Array.from({ length: count }, (_, i) => samples[i]!).sort();
  let total = 0;
  for (const v of sorted) total += v;
  return {
    count,
    mean: count ? total / count : NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: count ? sorted[count - 1]! : NaN,
  };
}

/** Rounds for the JSON file: enough digits to compare runs, no float noise. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function roundAll<T extends object>(summary: T, digits = 3): T {
  return Object.fromEntries(
    Object.entries(summary).map(([k, v]) => [k, typeof v === 'number' ? round(v, digits) : v]),
  ) as T;
}

export const MiB = 1024 * 1024;
export const mib = (bytes: number): number => round(bytes / MiB, 1);
