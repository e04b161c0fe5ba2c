/** Ratios back-transformed from log-scale intervals: by hand, and the reduction's bound below 100%. */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/random/stream.js';
import { pairedDifference, pairedLogRatio } from '../../src/stats/paired.js';
import { percentChange, percentReduction, ratioEstimate } from '../../src/stats/ratio.js';

/** t_{0.975, 2} (table value 4.302652729749464; closed form for df = 2: 0.95/√(2·0.975·0.025)). */
const T2 = 4.302652729749464;

function close(actual: number, expected: number, tolerance = 1e-10): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(expected)));
}

describe('time reduction on the log scale', () => {
  // Three trials: EOFD-MLogB at 0.117, 0.336, 1.0 ms/round against OFUL-MLogB's 10, 40, 100 — per-trial
  // reductions 98.83%, 99.16%, 99.00%. OFUL-MLogB's time varies tenfold between trials (say, d), so
  // dividing the mean difference by OFUL-MLogB's mean, as if fixed, gives a useless interval;
  // per-trial log ratios cancel that variation.
  const eofd = [0.117, 0.336, 1.0];
  const oful = [10, 40, 100];

  it('interval by hand: exp of the Student-t interval of ln(a_i/b_i)', () => {
    // ln r_i = ln 0.0117, ln 0.0084, ln 0.01 = −4.448166, −4.779524, −4.605170; mean −4.610953,
    // std 0.165754, half-width 4.302652729749464·0.165754/√3 = 0.411756:
    // ratio exp(−4.610953) = 0.009942 in [exp(−5.022710), exp(−4.199197)] = [0.006587, 0.015008];
    // reduction 99.006% in [98.499, 99.341].
    const logs = [0.0117, 0.0084, 0.01].map(Math.log);
    const mean = (logs[0]! + logs[1]! + logs[2]!) / 3;
    const std = Math.sqrt(((logs[0]! - mean) ** 2 + (logs[1]! - mean) ** 2 + (logs[2]! - mean) ** 2) / 2);
    const half = (T2 * std) / Math.sqrt(3);
    const log = pairedLogRatio(eofd, oful)!;
    const ratio = ratioEstimate(log);
    close(ratio.estimate, Math.exp(mean));
    close(ratio.low, Math.exp(mean - half));
    close(ratio.high, Math.exp(mean + half));
    const reduction = percentReduction(log);
    close(reduction.estimate, 100 * (1 - Math.exp(mean)));
    close(reduction.low, 100 * (1 - Math.exp(mean + half)));
    close(reduction.high, 100 * (1 - Math.exp(mean - half)));
    expect(reduction.estimate).toBeCloseTo(99.00577, 4);
    expect(reduction.low).toBeCloseTo(98.49924, 4);
    expect(reduction.high).toBeCloseTo(99.34133, 4);
    expect([reduction.n, reduction.level]).toEqual([3, 0.95]);
    // The old interval, the mean difference as a % of OFUL-MLogB's mean 50: about [36.6, 161.5]
    // around 99%, 100% and more inside it.
    const difference = pairedDifference(eofd, oful);
    expect(-difference.low * (100 / 50)).toBeGreaterThan(100);
  });

  it('a change in % is 100·(ratio − 1), ends in order', () => {
    const log = pairedLogRatio([105, 104, 106], [100, 100, 100])!;
    const change = percentChange(log);
    close(change.estimate, 100 * (Math.exp((Math.log(1.05) + Math.log(1.04) + Math.log(1.06)) / 3) - 1));
    expect(change.low).toBeLessThan(change.estimate);
    expect(change.high).toBeGreaterThan(change.estimate);
    close(change.low, 100 * (Math.exp(log.low) - 1));
  });

  it('no interval for one pair: NaN ends, the estimate still given', () => {
    const reduction = percentReduction(pairedLogRatio([1], [4])!);
    expect(reduction.estimate).toBe(75);
    expect(reduction.low).toBeNaN();
    expect(reduction.high).toBeNaN();
  });

  it('property: over random positive inputs the reduction interval is ordered and its upper end never exceeds 100%', () => {
    const uniform = mulberry32(20240611);
    for (let run = 0; run < 2000; run++) {
      const n = 2 + Math.floor(uniform() * 9);
      // Values over twelve orders of magnitude, ratios from 1e-6 to 1e6.
      const value = () => 10 ** (12 * uniform() - 6);
      const a = Array.from({ length: n }, value);
      const b = Array.from({ length: n }, value);
      const level = [0.8, 0.95, 0.99, 0.9999][run % 4] as number;
      const reduction = percentReduction(pairedLogRatio(a, b, level)!);
      expect(reduction.high).toBeLessThanOrEqual(100);
      expect(reduction.low).toBeLessThanOrEqual(reduction.estimate);
      expect(reduction.estimate).toBeLessThanOrEqual(reduction.high);
      expect(reduction.estimate).toBeLessThan(100);
      const change = percentChange(pairedLogRatio(a, b, level)!);
      expect(change.low).toBeGreaterThanOrEqual(-100);
    }
  });
});
