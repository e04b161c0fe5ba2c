/**
 * Confidence intervals for paired samples (e.g. two methods run on the same seeds): the Student-t
 * interval of the mean per-pair difference, absolute or relative to the second sample's mean.
 */
import { mean } from './descriptive.js';
import { studentTQuantile } from './student-t.js';

/** Mean, sample standard deviation and two-sided Student-t confidence interval of a paired difference. */
export interface PairedInterval {
  /** Number of pairs. */
  n: number;
  /** Mean of the differences. */
  mean: number;
  /** Sample standard deviation of the differences (n − 1 denominator; 0 for n = 1). */
  std: number;
  /** Lower end of the interval (NaN for n < 2). */
  low: number;
  /** Upper end of the interval (NaN for n < 2). */
  high: number;
  /** Confidence level of the interval, in (0, 1). */
  level: number;
}

function checkPaired(a: ArrayLike<number>, b: ArrayLike<number>, level: number): void {
  if (a.length < 1) throw new RangeError(`a must hold at least one value, got ${a.length}`);
  if (b.length !== a.length) {
    throw new RangeError(`b must have the length of a (${a.length}), got ${b.length}`);
  }
  if (!(level > 0 && level < 1)) throw new RangeError(`level must lie in (0, 1), got ${level}`);
}

/**
 * Student-t interval for the mean of the paired differences d_i = a_i − b_i:
 * mean ± t_{(1+level)/2, n−1}·std/√n. `a` and `b` must have the same length n ≥ 1 and `level` lie in
 * (0, 1) (RangeError otherwise); for n = 1 the interval ends are NaN.
 */
export function pairedDifference(a: ArrayLike<number>, b: ArrayLike<number>, level = 0.95): PairedInterval {
  checkPaired(a, b, level);
  const n = a.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i] - b[i];
  const meanDifference = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const deviation = a[i] - b[i] - meanDifference;
    squares += deviation * deviation;
  }
  const std = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
  if (n < 2) return { n, mean: meanDifference, std, low: NaN, high: NaN, level };
  const halfWidth = (studentTQuantile((1 + level) / 2, n - 1) * std) / Math.sqrt(n);
  const low = meanDifference - halfWidth;
  const high = meanDifference + halfWidth;
  return { n, mean: meanDifference, std, low, high, level };
}

/**
 * The paired difference as a percentage of the second sample's mean, 100·(mean(a) − mean(b))/mean(b):
 * the `pairedDifference` interval (mean, std, low, high) scaled by 100/mean(b), ends swapped if
 * mean(b) < 0 so that low ≤ high. This treats mean(b) as a fixed constant, the usual first-order
 * choice, ignoring its own sampling error. mean, std, low and high are NaN when mean(b) = 0. Same
 * argument checks as `pairedDifference`.
 */
export function pairedRelativeDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  level = 0.95,
): PairedInterval {
  const absolute = pairedDifference(a, b, level);
  const meanB = mean(b);
  if (meanB === 0) return { ...absolute, mean: NaN, std: NaN, low: NaN, high: NaN };
  const scale = 100 / meanB;
  const low = scale * (scale > 0 ? absolute.low : absolute.high);
  const high = scale * (scale > 0 ? absolute.high : absolute.low);
  return { ...absolute, mean: scale * absolute.mean, std: Math.abs(scale) * absolute.std, low, high };
}
