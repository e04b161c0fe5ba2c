import { describe, expect, it } from 'vitest';
import { ConfidenceRadius, type ConfidenceRadiusSpec } from '../../src/model/beta.js';

/** One fixed instance: K = 2, d = 3, rank m = 2, λ = 2, η = 1.5, S = 1, D = 1, δ = 0.1. */
function radius(overrides: Partial<ConfidenceRadiusSpec> = {}): ConfidenceRadius {
  return new ConfidenceRadius({
    mode: 'order',
    scale: 1,
    d: 3,
    K: 2,
    rank: 2,
    regularization: 2,
    stepSize: 1.5,
    normBound: 1,
    maxActionNorm: 1,
    delta: 0.1,
    ...overrides,
  });
}

describe('ConfidenceRadius: bad arguments', () => {
  it('rejects unknown modes, non-positive constants and scales', () => {
    expect(() => radius({ mode: 'thoery' as never })).toThrow(/expected 'theory', 'order' or a number ≥ 0 \(0: greedy\), got "thoery"/);
    expect(() => radius({ mode: -0.5 })).toThrow(/a finite number ≥ 0 \(0: greedy\), got -0.5/);
    expect(() => radius({ mode: Infinity })).toThrow(/a finite number ≥ 0 \(0: greedy\), got Infinity/);
    expect(() => radius({ mode: Number.NaN })).toThrow(/got NaN/);
    expect(() => radius({ scale: -1 })).toThrow(/beta_scale: expected a positive finite number, got -1/);
  });
});

describe('ConfidenceRadius: hand-computed values', () => {
  it("'order' is eq. (27) with constants 1", () => {
    // t = 1, ρ = 0: Δ = 1; ln²3 · ln 2 · (2 ln 2 + 6 ln 1 + ln 10) = 1.206948·0.693147·3.688879
    expect(radius().value(1, 0)).toBeCloseTo(3.086091722449034, 12);
    // t = 4, ρ = 0.5: Δ = 1.25; 1.25 · ln²3 · ln 5 · (2 ln 5 + 6 ln 1.25 + ln 10)
    expect(radius().value(4, 0.5)).toBeCloseTo(16.657800649568596, 12);
  });

  it("'theory' is eq. (36) with its running sum", () => {
    const beta = radius({ mode: 'theory' });
    expect(beta.needsRunningSum).toBe(true);
    // t = 1 (s = 0), ρ = 0: λS² = 2; 2η(DS + ln 3 + 2 ln 2)(5/4 + 4 ln 10) = 117.1598…;
    // 2η(2 + ln 3) = 9.2958…; the sketch term vanishes (ln 1 = 0, ln(1 + 0) = 0). Total 120.65577.
    expect(beta.value(1, 0)).toBeCloseTo(120.6557660300414, 10);
    // Two rounds of the running sum: 2√6·η·L·S = 3.6742 (L = 1/2 for K ≥ 2) times (0.2 + 0.1), and
    // (24ηKd/λ − 1) = 107 times (0.3 + 0.4): 76.00227.
    beta.accumulate(0.2, 0.3);
    beta.accumulate(0.1, 0.4);
    // t = 3 (s = 2), ρ = 0.5: Δ = 1.25, Δ^{λ/2} = 1 + 2ρ/λ = 1.5.
    expect(beta.value(3, 0.5)).toBeCloseTo(344.5782330489123, 9);
  });

  it('a constant radius is returned as given, times beta_scale', () => {
    expect(radius({ mode: 2.5, scale: 4 }).value(17, 3)).toBe(10);
    expect(radius({ scale: 2 }).value(1, 0)).toBeCloseTo(2 * 3.086091722449034, 12);
  });

  it('β = 0 is a legal constant: 0 every round, whatever the scale (greedy play)', () => {
    const greedy = radius({ mode: 0, scale: 3 });
    expect([1, 10, 1000].map((t) => greedy.value(t, 2))).toEqual([0, 0, 0]);
  });

  it("only 'theory' asks for the running sum", () => {
    expect(radius().needsRunningSum).toBe(false);
    expect(radius({ mode: 1 }).needsRunningSum).toBe(false);
  });
});
