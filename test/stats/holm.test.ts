/** Holm's step-down and its adjusted intervals, on an example worked out by hand (df = 2 closed forms). */
import { describe, expect, it } from 'vitest';
import { holm } from '../../src/stats/holm.js';
import { pairedDifference } from '../../src/stats/paired.js';

/** Student's t with df = 2: two-sided p = 1 − |t|/√(2 + t²); quantile t_p = (2p − 1)/√(2p(1 − p)). */
const pDf2 = (t: number) => 1 - Math.abs(t) / Math.sqrt(2 + t * t);
const tDf2 = (p: number) => (2 * p - 1) / Math.sqrt(2 * p * (1 - p));

function close(actual: number, expected: number, tolerance = 1e-9): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(expected)));
}

/** Three pairs with differences m − 1, m, m + 1: mean m, std 1, t = m√3 on 2 df. */
const sample = (m: number) => pairedDifference([m - 1, m, m + 1], [0, 0, 0]);

describe('holm', () => {
  // Family (in this order) with means 3, 6, 3.5, all std 1, n = 3:
  //   t² = 27, 108, 36.75 → raw p = 1 − √(27/29) = 0.0350987, 1 − √(108/110) = 0.0091326, 1 − √(36.75/38.75) = 0.0261483.
  // Sorted: 0.0091326 (mean 6), 0.0261483 (3.5), 0.0350987 (3).
  //   rank 1: 3·0.0091326 = 0.0273978 < 0.05: rejected, level 1 − 0.05/3;
  //   rank 2: 2·0.0261483 = 0.0522966 ≥ 0.05: not rejected (Holm stops), level 1 − 0.05/2;
  //   rank 3: 1·0.0350987, raised to 0.0522966 by monotonicity; keeps rank 2's level 1 − 0.05/2 (at its own
  //   level 0.95 its interval 3 ∓ 4.3027/√3 = [0.516, 5.484] would exclude 0 although Holm does not reject).
  const family = [sample(3), sample(6), sample(3.5)];
  const results = holm(family);

  it('raw and adjusted p by hand, monotone', () => {
    const raw = [pDf2(3 * Math.sqrt(3)), pDf2(6 * Math.sqrt(3)), pDf2(3.5 * Math.sqrt(3))];
    close(raw[0]!, 1 - Math.sqrt(27 / 29));
    results.forEach((r, i) => close(r.p, raw[i]!));
    close(results[1]!.adjustedP, 3 * raw[1]!);
    close(results[2]!.adjustedP, 2 * raw[2]!);
    close(results[0]!.adjustedP, 2 * raw[2]!); // max(2·0.026148, 1·0.035099)
    expect(results[1]!.adjustedP).toBeCloseTo(0.0273978, 7);
    expect(results[0]!.adjustedP).toBeCloseTo(0.0522966, 7);
    expect(results.map((r) => r.rejected)).toEqual([false, true, false]);
    expect(results.every((r) => r.family === 3)).toBe(true);
  });

  it('adjusted intervals at Holm levels, by hand', () => {
    const levels = [1 - 0.05 / 2, 1 - 0.05 / 3, 1 - 0.05 / 2];
    const means = [3, 6, 3.5];
    results.forEach((r, i) => {
      const level = levels[i]!;
      expect(r.adjusted.level).toBeCloseTo(level, 15);
      const half = tDf2((1 + level) / 2) / Math.sqrt(3); // std 1
      close(r.adjusted.low, means[i]! - half);
      close(r.adjusted.high, means[i]! + half);
    });
    // Mean 6 at level 1 − 0.05/3: t_{0.991667,2} = 0.983333/√(2·0.991667·0.008333) = 7.648804, half 4.416039:
    // [1.583961, 10.416039], above 0. Means 3 and 3.5 at 1 − 0.05/2: t_{0.99375,2} = 6.205347, half 3.582659:
    // [−0.582659, 6.582659] and [−0.082659, 7.082659], both straddle 0.
    expect(results[1]!.adjusted.low).toBeCloseTo(1.583961, 6);
    expect(results[0]!.adjusted.low).toBeCloseTo(-0.582659, 6);
    expect(results[2]!.adjusted.low).toBeCloseTo(-0.082659, 6);
    // Holm's rejections and the adjusted intervals agree everywhere.
    for (const r of results) expect(r.adjusted.low > 0 || r.adjusted.high < 0).toBe(r.rejected);
  });

  it('comparisons without an interval are left out of the family', () => {
    const [a, b] = holm([sample(6), pairedDifference([1], [0])]);
    expect(a!.family).toBe(1);
    close(a!.adjustedP, a!.p);
    expect(a!.adjusted.level).toBe(0.95);
    expect(b!.p).toBeNaN();
    expect(b!.adjustedP).toBeNaN();
    expect(b!.rejected).toBe(false);
  });

  it('one comparison: Holm is the raw test', () => {
    const [only] = holm([sample(3)]);
    expect(only!.adjusted).toEqual(sample(3));
    expect(only!.adjustedP).toBe(only!.p);
  });

  it('rejects alpha outside (0, 1)', () => {
    expect(() => holm([sample(3)], 0)).toThrow(RangeError);
  });
});
