/** Paired-sample Student-t intervals, absolute and relative, on data worked out by hand. */
import { describe, expect, it } from 'vitest';
import { pairedDifference, pairedRelativeDifference } from '../../src/stats/paired.js';

/** |actual − expected| ≤ tolerance·|expected|. */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

const A = [10, 12, 9, 11];
const B = [8, 11, 9, 9];

describe('bad arguments', () => {
  it('rejects empty samples and samples of different lengths', () => {
    for (const paired of [pairedDifference, pairedRelativeDifference]) {
      expect(() => paired([], [])).toThrow(RangeError);
      expect(() => paired([], [])).toThrow(/\ba\b/);
      expect(() => paired([1, 2], [1])).toThrow(RangeError);
      expect(() => paired([1, 2], [1])).toThrow(/\bb\b/);
      expect(() => paired([1], [1, 2])).toThrow(/\bb\b/);
    }
  });

  it('rejects a level outside (0, 1)', () => {
    for (const paired of [pairedDifference, pairedRelativeDifference]) {
      for (const level of [0, 1, -0.5, 95, NaN]) {
        expect(() => paired(A, B, level)).toThrow(RangeError);
        expect(() => paired(A, B, level)).toThrow(/level/);
      }
    }
  });
});

describe('pairedDifference', () => {
  it('gives the 95 % Student-t interval of hand-computed differences', () => {
    // d = a − b = [2, 1, 0, 2]; mean = 5/4 = 1.25.
    // Squared deviations 0.75² + 0.25² + 1.25² + 0.75² = 0.5625 + 0.0625 + 1.5625 + 0.5625 = 2.75,
    // variance 2.75/3 = 0.91666…, std = √(11/12) = 0.95742710775633811.
    // t_{0.975, 3} = 3.1824463052837084, half-width = t·std/√4 = 1.5234801808288126,
    // interval 1.25 ∓ 1.5234801808288126 = [−0.27348018082881260, 2.7734801808288126].
    const interval = pairedDifference(A, B);
    expect(interval.n).toBe(4);
    expect(interval.level).toBe(0.95);
    expect(interval.mean).toBe(1.25);
    expectRelative(interval.std, 0.95742710775633811, 1e-12);
    expectRelative(interval.low, -0.2734801808288126, 1e-12);
    expectRelative(interval.high, 2.7734801808288126, 1e-12);
  });

  it('uses the requested level', () => {
    // t_{0.95, 3} = 2.3533634348018229, half-width = t·√(11/12)/2 = 1.1265869734409154,
    // interval 1.25 ∓ 1.1265869734409154 = [0.12341302655908457, 2.3765869734409154].
    const interval = pairedDifference(A, B, 0.9);
    expect(interval.level).toBe(0.9);
    expectRelative(interval.low, 0.12341302655908457, 1e-12);
    expectRelative(interval.high, 2.3765869734409154, 1e-12);
  });

  it('accepts typed arrays and gives a zero-width interval for identical differences', () => {
    const interval = pairedDifference(Float64Array.from([3, 4, 5]), Float64Array.from([1, 2, 3]));
    expect(interval).toEqual({ n: 3, mean: 2, std: 0, low: 2, high: 2, level: 0.95 });
  });

  it('has no interval for a single pair', () => {
    const interval = pairedDifference([7], [4]);
    expect(interval.n).toBe(1);
    expect(interval.mean).toBe(3);
    expect(interval.std).toBe(0);
    expect(interval.low).toBeNaN();
    expect(interval.high).toBeNaN();
  });
});

describe('pairedRelativeDifference', () => {
  // mean(b) = 37/4 = 9.25, scale 100/9.25 = 10.810810810810811 applied to the interval above:
  // mean 1.25·scale = 13.513513513513514, std 0.95742710775633811·scale = 10.350563327095547,
  // low −0.2734801808288126·scale = −2.9565424954466227, high 2.7734801808288126·scale = 29.983569522473650.
  it('scales the absolute interval by 100/mean(b)', () => {
    const interval = pairedRelativeDifference(A, B);
    expect(interval.n).toBe(4);
    expect(interval.level).toBe(0.95);
    expectRelative(interval.mean, 13.513513513513514, 1e-12);
    expectRelative(interval.std, 10.350563327095547, 1e-12);
    expectRelative(interval.low, -2.9565424954466227, 1e-12);
    expectRelative(interval.high, 29.98356952247365, 1e-12);
  });

  it('keeps low ≤ high when mean(b) is negative', () => {
    // Negating both samples negates the differences and mean(b); the percentages are unchanged.
    const interval = pairedRelativeDifference(
      A.map((v) => -v),
      B.map((v) => -v),
    );
    expectRelative(interval.mean, 13.513513513513514, 1e-12);
    expectRelative(interval.std, 10.350563327095547, 1e-12);
    expectRelative(interval.low, -2.9565424954466227, 1e-12);
    expectRelative(interval.high, 29.98356952247365, 1e-12);
  });

  it('is NaN when mean(b) = 0', () => {
    const interval = pairedRelativeDifference([1, 2, 3], [-1, 0, 1]);
    expect(interval.n).toBe(3);
    expect(interval.mean).toBeNaN();
    expect(interval.std).toBeNaN();
    expect(interval.low).toBeNaN();
    expect(interval.high).toBeNaN();
  });

  it('has no interval for a single pair', () => {
    const interval = pairedRelativeDifference([5], [4]);
    expect(interval.mean).toBe(25);
    expect(interval.low).toBeNaN();
    expect(interval.high).toBeNaN();
  });
});
