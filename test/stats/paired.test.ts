/** Paired-sample Student-t intervals of differences and of log ratios, and the t test, on data worked out by hand. */
import { describe, expect, it } from 'vitest';
import { atLevel, pairedDifference, pairedLogRatio, tInterval, tTestP } from '../../src/stats/paired.js';

/** |actual − expected| ≤ tolerance·|expected|. */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

const A = [10, 12, 9, 11];
const B = [8, 11, 9, 9];

describe('bad arguments', () => {
  it('rejects empty samples and samples of different lengths', () => {
    for (const paired of [pairedDifference, pairedLogRatio]) {
      expect(() => paired([], [])).toThrow(RangeError);
      expect(() => paired([], [])).toThrow(/\ba\b/);
      expect(() => paired([1, 2], [1])).toThrow(RangeError);
      expect(() => paired([1, 2], [1])).toThrow(/\bb\b/);
      expect(() => paired([1], [1, 2])).toThrow(/\bb\b/);
    }
  });

  it('rejects a level outside (0, 1)', () => {
    for (const paired of [pairedDifference, pairedLogRatio]) {
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

/** t_{0.975, 2} in closed form (df = 2: t_p = (2p − 1)/√(2p(1 − p))): 0.95/√0.04875 = 4.302652729749464. */
const T2 = 0.95 / Math.sqrt(2 * 0.975 * 0.025);

describe('pairedLogRatio', () => {
  it('is the Student-t interval of the per-pair log ratios, by hand', () => {
    // Reference times 10, 40, 100 ms, ratios 0.0117, 0.0084, 0.0100 (reductions 98.83%, 99.16%, 99.00%).
    // ln r = −4.448166437178426, −4.779523573132869, −4.605170185988091: mean −4.610953398766462,
    // std 0.16575425198019125, half-width T2·std/√3 = 0.4117563882269601.
    const b = [10, 40, 100];
    const r = [0.0117, 0.0084, 0.01];
    const a = b.map((x, i) => x * (r[i] as number));
    const logs = r.map(Math.log);
    const mean = (logs[0]! + logs[1]! + logs[2]!) / 3;
    const std = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / 2);
    const half = (T2 * std) / Math.sqrt(3);
    const interval = pairedLogRatio(a, b)!;
    expect(interval.n).toBe(3);
    expectRelative(interval.mean, mean, 1e-12);
    expectRelative(interval.mean, -4.610953398766462, 1e-12);
    expectRelative(interval.std, 0.16575425198019125, 1e-9);
    expectRelative(interval.low, mean - half, 1e-12);
    expectRelative(interval.high, mean + half, 1e-12);
    expectRelative(interval.high, -4.199197010539502, 1e-9);
  });

  it('is null when a value is not > 0 (a log ratio is undefined there)', () => {
    expect(pairedLogRatio([1, 0, 2], [1, 1, 1])).toBeNull();
    expect(pairedLogRatio([1, 2, 3], [1, -1, 1])).toBeNull();
    expect(pairedLogRatio([1, Infinity], [1, 1])).toBeNull();
    expect(pairedLogRatio([1, NaN], [1, 1])).toBeNull();
  });

  it('has no interval for a single pair', () => {
    const interval = pairedLogRatio([5], [4])!;
    expect(interval.mean).toBeCloseTo(Math.log(1.25), 15);
    expect(interval.low).toBeNaN();
  });
});

describe('tInterval, atLevel and the t test', () => {
  it('tInterval from n, mean and std equals pairedDifference on the data', () => {
    const interval = pairedDifference(A, B);
    expect(tInterval(interval.n, interval.mean, interval.std)).toEqual(interval);
    expect(atLevel(interval, 0.9)).toEqual(pairedDifference(A, B, 0.9));
    expect(() => tInterval(3, 1, 1, 1)).toThrow(RangeError);
  });

  it('two-sided p by hand (df = 2: P(|T| > t) = 1 − t/√(2 + t²))', () => {
    // d = [5, 6, 7]: mean 6, std 1, t = 6√3, t² = 108: p = 1 − √(108/110) = 0.009133...
    expectRelative(tTestP(pairedDifference([5, 6, 7], [0, 0, 0])), 1 - Math.sqrt(108 / 110), 1e-10);
    // A − B = [2, 1, 0, 2]: t = 1.25/(√(11/12)/2) = 2.6111648, df = 3: p = 0.079596 (table: t_{0.95,3} = 2.353 < t < t_{0.975,3} = 3.182)
    const p = tTestP(pairedDifference(A, B));
    expect(p).toBeGreaterThan(0.05);
    expect(p).toBeLessThan(0.1);
    // The interval at level 1 − p has 0 at its end.
    expect(Math.abs(atLevel(pairedDifference(A, B), 1 - p).low)).toBeLessThan(1e-9);
  });

  it('std 0: p is 0 for a non-zero mean and 1 for a zero one; NaN for one pair', () => {
    expect(tTestP({ n: 3, mean: 2, std: 0 })).toBe(0);
    expect(tTestP({ n: 3, mean: 0, std: 0 })).toBe(1);
    expect(tTestP({ n: 1, mean: 2, std: 0 })).toBeNaN();
  });
});
