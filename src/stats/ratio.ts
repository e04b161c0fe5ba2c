/**
 * Ratios from a log-scale interval (`pairedLogRatio`): the per-trial log ratios' mean and interval
 * back-transformed by exp, so the ratio's interval is exp([low, high]) and always positive. A
 * reduction 1 − ratio therefore stays below 100%, a speed-up 1/ratio above 0.
 */
import type { PairedInterval } from './paired.js';

/** A back-transformed estimate and its interval (NaN ends when the log-scale interval has none). */
export interface Estimate {
  /** Number of pairs. */
  n: number;
  /** The back-transformed mean log ratio (e.g. the geometric mean ratio). */
  estimate: number;
  low: number;
  high: number;
  /** Confidence level, as on the log scale. */
  level: number;
}

/** g applied to the mean and the ends of `log`; `decreasing` swaps the ends so that low ≤ high. */
function transform(log: PairedInterval, g: (x: number) => number, decreasing = false): Estimate {
  const [low, high] = decreasing ? [g(log.high), g(log.low)] : [g(log.low), g(log.high)];
  return { n: log.n, estimate: g(log.mean), low, high, level: log.level };
}

/** The geometric mean ratio exp(mean ln(a/b)) and its interval exp([low, high]). */
export function ratioEstimate(log: PairedInterval): Estimate {
  return transform(log, Math.exp);
}

/** The change in % of the reference, 100·(ratio − 1) (e.g. a regret overhead): > −100% always. */
export function percentChange(log: PairedInterval): Estimate {
  return transform(log, (x) => 100 * Math.expm1(x));
}

/** The reduction in % of the reference, 100·(1 − ratio) (e.g. a time reduction): < 100% for every finite log ratio. */
export function percentReduction(log: PairedInterval): Estimate {
  return transform(log, (x) => -100 * Math.expm1(x), true);
}
