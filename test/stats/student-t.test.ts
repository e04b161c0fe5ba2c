/**
 * Student's t quantile and CDF against tables, high-precision references (mpmath, 40 digits), the
 * closed forms of df = 1 (Cauchy) and df = 2, symmetry and CDF∘quantile round trips; and the log-gamma
 * and incomplete beta functions they are built on.
 */
import { describe, expect, it } from 'vitest';
import {
  logGamma,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
} from '../../src/stats/student-t.js';

/** |actual − expected| ≤ tolerance·|expected|. */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

const P_GRID = [1e-6, 0.001, 0.01, 0.025, 0.1, 0.25, 0.4, 0.49, 0.51, 0.6, 0.75, 0.9, 0.975, 0.99, 0.999];
const DF_GRID = [1, 1.5, 2, 3, 4.7, 10, 30, 99, 100, 250, 1e4, 1e7];

describe('bad arguments', () => {
  it('rejects p outside (0, 1)', () => {
    for (const p of [0, 1, -0.1, 1.5, NaN, Infinity]) {
      expect(() => studentTQuantile(p, 5)).toThrow(RangeError);
      expect(() => studentTQuantile(p, 5)).toThrow(/\bp\b/);
    }
  });

  it('rejects df below 1 or not finite', () => {
    for (const df of [0.999, 0, -3, NaN, Infinity]) {
      expect(() => studentTQuantile(0.9, df)).toThrow(RangeError);
      expect(() => studentTQuantile(0.9, df)).toThrow(/df/);
      expect(() => studentTCdf(1, df)).toThrow(RangeError);
      expect(() => studentTCdf(1, df)).toThrow(/df/);
    }
  });

  it('gives NaN outside the domain of the special functions and of the CDF', () => {
    expect(studentTCdf(NaN, 3)).toBeNaN();
    expect(logGamma(0)).toBeNaN();
    expect(logGamma(-1.5)).toBeNaN();
    expect(regularizedIncompleteBeta(-0.1, 1, 1)).toBeNaN();
    expect(regularizedIncompleteBeta(1.1, 1, 1)).toBeNaN();
    expect(regularizedIncompleteBeta(0.5, 0, 1)).toBeNaN();
  });
});

describe('studentTQuantile', () => {
  it('matches standard t tables', () => {
    const table: [p: number, df: number, t: number][] = [
      [0.975, 1, 12.7062047],
      [0.975, 2, 4.30265273],
      [0.975, 3, 3.18244631],
      [0.975, 4, 2.77644511],
      [0.975, 9, 2.26215716],
      [0.975, 29, 2.04522964],
      [0.95, 10, 1.81246112],
      [0.995, 5, 4.03214298],
      [0.99, 20, 2.527977],
    ];
    for (const [p, df, t] of table) expectRelative(studentTQuantile(p, df), t, 1e-7);
  });

  it('matches 20-digit references, also for non-integer and large df', () => {
    const references: [p: number, df: number, t: number][] = [
      [0.975, 1, 12.706204736174693],
      [0.975, 3, 3.1824463052837084],
      [0.975, 9, 2.262157162798205],
      [0.995, 5, 4.032142983555227],
      [0.99, 20, 2.527977002741573],
      [0.975, 2.5, 3.5746548420036818],
      [0.9, 7.3, 1.4089223177480422],
      [0.975, 1000, 1.9623390808264081],
      [0.975, 10000, 1.9602012398906259],
    ];
    for (const [p, df, t] of references) expectRelative(studentTQuantile(p, df), t, 1e-13);
  });

  it('tends to the normal quantile for large df', () => {
    const z = 1.9599639845400538; // Φ⁻¹(0.975)
    expect(Math.abs(studentTQuantile(0.975, 1e6) - 1.95996398)).toBeLessThanOrEqual(1e-5);
    // Cornish–Fisher: t = z + (z³ + z)/(4·df) + O(z⁵/df²), the remainder below 1e−15 at df = 1e8.
    expectRelative(studentTQuantile(0.975, 1e8), z + (z ** 3 + z) / 4e8, 1e-14);
  });

  it('is antisymmetric: t_p = −t_{1−p}, and 0 at p = ½', () => {
    expect(studentTQuantile(0.5, 3)).toBe(0);
    for (const df of DF_GRID) {
      // Dyadic p, for which 1 − p is exact: exactly antisymmetric.
      for (const p of [2 ** -40, 2 ** -20, 1 / 1024, 1 / 64, 0.125, 0.25, 0.375, 0.4375]) {
        expect(studentTQuantile(p, df)).toBe(-studentTQuantile(1 - p, df));
      }
      // Otherwise up to the rounding of 1 − p.
      for (const p of [0.001, 0.025, 0.1, 0.3, 0.45]) {
        expectRelative(studentTQuantile(p, df), -studentTQuantile(1 - p, df), 1e-12);
      }
    }
  });

  it('reproduces the df = 1 closed form, tan(π(p − ½))', () => {
    for (const p of [0.001, 0.01, 0.1, 0.25, 0.4, 0.49, 0.6, 0.75, 0.9, 0.99, 0.999]) {
      expectRelative(studentTQuantile(p, 1), Math.tan(Math.PI * (p - 0.5)), 1e-10);
    }
  });

  it('reproduces the df = 2 closed form, (2p − 1)/√(2p(1 − p))', () => {
    for (const p of [0.001, 0.01, 0.1, 0.25, 0.4, 0.49, 0.6, 0.75, 0.9, 0.99, 0.999]) {
      expectRelative(studentTQuantile(p, 2), (2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 1e-10);
    }
  });

  it('stays accurate in the far tails', () => {
    // df = 1: t_p = −cot(πp) = −1/(πp)·(1 − (πp)²/3 − …); df = 2: t_p = (2p − 1)/√(2p(1 − p)).
    expectRelative(studentTQuantile(1e-100, 1), -1 / (Math.PI * 1e-100), 1e-13);
    expectRelative(studentTQuantile(1e-200, 2), -1 / Math.sqrt(2e-200), 1e-13);
    expect(studentTQuantile(1e-320, 1)).toBe(-Infinity);
  });

  it('inverts the CDF: CDF(quantile(p)) = p', () => {
    for (const df of DF_GRID) {
      for (const p of P_GRID) {
        const t = studentTQuantile(p, df);
        expect(Math.abs(studentTCdf(t, df) - p)).toBeLessThanOrEqual(1e-12 * Math.min(p, 1 - p));
      }
    }
  });
});

describe('studentTCdf', () => {
  it('reproduces the closed forms of df = 1 and df = 2', () => {
    // Written without cancellation for t < 0, F(t) = 1 − F(−t) for t > 0:
    // df = 1: F(t) = ½ + atan(t)/π = atan(1/|t|)/π;
    // df = 2: F(t) = ½·(1 − |t|/s) = 1/(s·(s + |t|)), s = √(2 + t²).
    const cauchy = (t: number): number => Math.atan(1 / Math.abs(t)) / Math.PI;
    const df2 = (t: number): number => {
      const s = Math.sqrt(2 + t * t);
      return 1 / (s * (s + Math.abs(t)));
    };
    for (const t of [-1e12, -50, -3, -1, -0.2, 0.3, 1, 2.5, 40]) {
      expectRelative(studentTCdf(t, 1), t < 0 ? cauchy(t) : 1 - cauchy(t), 1e-14);
      expectRelative(studentTCdf(t, 2), t < 0 ? df2(t) : 1 - df2(t), 1e-14);
    }
  });

  it('is ½ at 0, 0 and 1 at ∓∞, and symmetric', () => {
    expect(studentTCdf(0, 4)).toBe(0.5);
    expect(studentTCdf(-Infinity, 4)).toBe(0);
    expect(studentTCdf(Infinity, 4)).toBe(1);
    for (const df of [1, 3.5, 60, 1e5]) {
      for (const t of [0.01, 0.7, 2, 6]) expect(studentTCdf(-t, df) + studentTCdf(t, df)).toBeCloseTo(1, 15);
    }
  });

  it('keeps relative accuracy in the far lower tail', () => {
    // df = 1: F(t) = atan(1/|t|)/π ≈ 1/(π|t|); df = 2: F(t) = 1/(s·(s + |t|)) ≈ 1/(2t²).
    expectRelative(studentTCdf(-1e150, 1), 1 / (Math.PI * 1e150), 1e-13);
    expectRelative(studentTCdf(-1e100, 2), 1 / 2e200, 1e-13);
    // df = 4: F(t) = (df/t²)^(df/2)/(df·B(df/2, ½))·(1 + O(df/t²)) = 16/t⁴/(4·4/3) = 3/t⁴ for t → −∞.
    expectRelative(studentTCdf(-1e50, 4), 3e-200, 1e-13);
  });
});

describe('logGamma and regularizedIncompleteBeta', () => {
  it('logGamma matches factorials, Γ(½) = √π and references', () => {
    let factorial = 1;
    for (let n = 1; n <= 20; n++) {
      if (n > 1) factorial *= n - 1;
      const expected = Math.log(factorial);
      expect(Math.abs(logGamma(n) - expected)).toBeLessThanOrEqual(1e-14 * Math.max(1, expected));
    }
    expectRelative(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-14);
    expectRelative(logGamma(0.1), 2.252712651734206, 1e-14);
    expectRelative(logGamma(3.7), 1.4280723266653881, 1e-14);
    expectRelative(logGamma(25.5), 56.38916764371995, 1e-14);
    expectRelative(logGamma(1234.5), 7550.550901077895, 1e-14);
  });

  it('regularizedIncompleteBeta matches references, its ends and I_x(a, b) + I_{1−x}(b, a) = 1', () => {
    expectRelative(regularizedIncompleteBeta(0.3, 2.5, 3.5), 0.29675298929566638, 1e-13);
    expectRelative(regularizedIncompleteBeta(0.9, 0.5, 0.5), 0.79516723530086657, 1e-13);
    expectRelative(regularizedIncompleteBeta(0.45, 30, 40), 0.64474800855856811, 1e-13);
    // I_x(1, 3) = 1 − (1 − x)³: 1 − 0.8³ = 0.488.
    expectRelative(regularizedIncompleteBeta(0.2, 1, 3), 0.488, 1e-14);
    expect(regularizedIncompleteBeta(0, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(1, 2, 3)).toBe(1);
    for (const [x, a, b] of [
      [0.1, 0.5, 7],
      [0.5, 3, 3],
      [0.75, 12.5, 2],
    ]) {
      expect(regularizedIncompleteBeta(x, a, b) + regularizedIncompleteBeta(1 - x, b, a)).toBeCloseTo(1, 14);
    }
  });
});
