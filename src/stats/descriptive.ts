/**
 * Descriptive statistics of a sample: mean, sample standard deviation and median. Plain loops over
 * any array-like of numbers; only the median allocates (a sorted copy).
 */

/** Arithmetic mean of `values`; NaN for an empty sample. */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i];
  return sum / n;
}

/**
 * Sample standard deviation of `values` (denominator n − 1, computed in two passes about the mean);
 * 0 for a single value, NaN for an empty sample.
 */
export function sampleStd(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  if (n === 1) return 0;
  const m = mean(values);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const deviation = values[i] - m;
    sum += deviation * deviation;
  }
  return Math.sqrt(sum / (n - 1));
}

/** Median of `values` (the mean of the two middle values for an even count); NaN for an empty sample. */
export function median(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const middle = n >> 1;
  return n % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
