/** Medians and spreads of repeated rounds. */

/** A figure measured over several rounds: its median and how far the rounds spread. */
export interface Summary {
  median: number;
  /** First and third quartiles (the middle half of the rounds lies between them). */
  q1: number;
  q3: number;
  min: number;
  max: number;
  /** Rounds measured. */
  n: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Median, quartiles and range of `values`. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
}

/** Per-round values `f(a[i], b[i])` of two series measured side by side in the same rounds. */
export function paired(a: readonly number[], b: readonly number[], f: (x: number, y: number) => number): number[] {
  return a.map((x, i) => f(x, b[i]));
}
