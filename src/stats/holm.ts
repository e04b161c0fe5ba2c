/**
 * Holm's step-down procedure over a family of one-sample t intervals (paired differences, or log
 * ratios on the log scale), with the adjusted intervals that go with it.
 *
 * The m comparisons that have an interval (n ≥ 2) are sorted by raw two-sided p (`tTestP`); the i-th
 * smallest (1-based) is rejected when it and every one before it has p_(j) < α/(m − j + 1). Adjusted
 * p: p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)), monotone in i. The adjusted interval of the i-th
 * is its t interval at level 1 − α/(m − i + 1), except that from the first comparison Holm does not
 * reject on, every later one keeps that comparison's level: then an adjusted interval excludes 0
 * exactly when Holm rejects (p̃ < α), so a verdict read from it agrees with the test. These are the
 * intervals of Holm's tests, not simultaneous confidence intervals.
 */
import { atLevel, tTestP, type PairedInterval } from './paired.js';

export interface HolmResult {
  /** Comparisons in the family with an interval (m). */
  family: number;
  /** Raw two-sided p (NaN without an interval). */
  p: number;
  /** Holm-adjusted p (NaN without an interval). */
  adjustedP: number;
  /** The interval at Holm's level (its `level`); the raw one unchanged when it has no interval. */
  adjusted: PairedInterval;
  /** Holm rejects a zero mean at family-wise level α. */
  rejected: boolean;
}

/** Holm's adjustment of `intervals` (one family, one quantity) at family-wise level `alpha`, in the given order. */
export function holm(intervals: readonly PairedInterval[], alpha = 0.05): HolmResult[] {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must lie in (0, 1), got ${alpha}`);
  const p = intervals.map(tTestP);
  const order = intervals.map((_, i) => i).filter((i) => Number.isFinite(p[i])).sort((i, j) => (p[i] as number) - (p[j] as number));
  const m = order.length;
  const results: HolmResult[] = intervals.map((x, i) => ({ family: m, p: p[i] as number, adjustedP: NaN, adjusted: x, rejected: false }));
  let adjustedP = 0;
  let stopped = m; // rank (0-based) of the first comparison not rejected
  order.forEach((index, rank) => {
    adjustedP = Math.max(adjustedP, Math.min(1, (m - rank) * (p[index] as number)));
    if (stopped === m && !(adjustedP < alpha)) stopped = rank;
    const result = results[index] as HolmResult;
    result.adjustedP = adjustedP;
    result.rejected = rank < stopped;
    result.adjusted = atLevel(intervals[index] as PairedInterval, 1 - alpha / (m - Math.min(rank, stopped)));
  });
  return results;
}
