/**
 * Confidence intervals for paired samples (e.g. two methods run on the same seeds): the Student-t
 * interval of the mean per-pair difference a_i − b_i, or of the mean per-pair log ratio ln(a_i/b_i)
 * (for ratios: back-transform it with ratio.ts), and the two-sided t test of a zero mean.
 */
import { studentTCdf, studentTQuantile } from './student-t.js';

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

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must lie in (0, 1), got ${level}`);
}

function checkPaired(a: ArrayLike<number>, b: ArrayLike<number>, level: number): void {
  if (a.length < 1) throw new RangeError(`a must hold at least one value, got ${a.length}`);
  if (b.length !== a.length) {
    throw new RangeError(`b must have the length of a (${a.length}), got ${b.length}`);
  }
  checkLevel(level);
}

/**
 * The Student-t interval mean ± t_{(1+level)/2, n−1}·std/√n of a sample summarised by its size n,
 * mean and sample std; the ends are NaN for n < 2. RangeError unless `level` lies in (0, 1).
 */
export function tInterval(n: number, mean: number, std: number, level = 0.95): PairedInterval {
  checkLevel(level);
  if (n < 2) return { n, mean, std, low: NaN, high: NaN, level };
  const halfWidth = (studentTQuantile((1 + level) / 2, n - 1) * std) / Math.sqrt(n);
  return { n, mean, std, low: mean - halfWidth, high: mean + halfWidth, level };
}

/** The same sample's interval at another level. */
export function atLevel(x: PairedInterval, level: number): PairedInterval {
  return tInterval(x.n, x.mean, x.std, level);
}

/**
 * `tInterval` of the values d_i = difference(i): mean and std in two passes, the mean summed about d_0
 * so that equal values give exactly that value and std 0 (a zero-width interval, not one of rounding).
 */
function sampleInterval(n: number, difference: (i: number) => number, level: number): PairedInterval {
  const first = difference(0);
  let sum = 0;
  for (let i = 1; i < n; i++) sum += difference(i) - first;
  const mean = first + sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const deviation = difference(i) - mean;
    squares += deviation * deviation;
  }
  return tInterval(n, mean, n > 1 ? Math.sqrt(squares / (n - 1)) : 0, level);
}

/**
 * Student-t interval for the mean of the paired differences d_i = a_i − b_i:
 * mean ± t_{(1+level)/2, n−1}·std/√n. `a` and `b` must have the same length n ≥ 1 and `level` lie in
 * (0, 1) (RangeError otherwise); for n = 1 the interval ends are NaN.
 */
export function pairedDifference(a: ArrayLike<number>, b: ArrayLike<number>, level = 0.95): PairedInterval {
  checkPaired(a, b, level);
  return sampleInterval(a.length, (i) => a[i] - b[i], level);
}

/**
 * Student-t interval for the mean of the per-pair log ratios ln(a_i/b_i), on the log scale (exp of
 * it is the geometric mean ratio and its interval: ratio.ts). null when some a_i or b_i is not a
 * finite number > 0, where a log ratio is undefined. Same argument checks as `pairedDifference`.
 */
export function pairedLogRatio(a: ArrayLike<number>, b: ArrayLike<number>, level = 0.95): PairedInterval | null {
  checkPaired(a, b, level);
  const positive = (x: number) => x > 0 && x < Infinity;
  for (let i = 0; i < a.length; i++) if (!positive(a[i]) || !positive(b[i])) return null;
  return sampleInterval(a.length, (i) => Math.log(a[i] / b[i]), level);
}

/**
 * Two-sided p-value of the one-sample t test of a zero mean (the paired t test when `x` is a
 * paired difference): 2·P(T_{n−1} ≥ |mean|·√n/std). With std = 0 it is 0 for a non-zero mean and 1
 * for a zero one; NaN for n < 2 or a non-finite mean.
 */
export function tTestP(x: Pick<PairedInterval, 'n' | 'mean' | 'std'>): number {
  if (x.n < 2 || !Number.isFinite(x.mean) || !(x.std >= 0)) return NaN;
  if (x.std === 0) return x.mean === 0 ? 1 : 0;
  const t = (Math.abs(x.mean) * Math.sqrt(x.n)) / x.std;
  return 2 * studentTCdf(-t, x.n - 1);
}
