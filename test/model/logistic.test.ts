import { describe, expect, it } from 'vitest';
import { logisticLoss, logisticSlope, sigmoid } from '../../src/model/logistic.js';

describe('the binary link (K = 1)', () => {
  it('σ, μ̇ = σ(1 − σ) and ℓ = −y ln σ − (1 − y) ln(1 − σ) agree with the textbook formulas where those are accurate', () => {
    for (const z of [-20, -3.5, -1, -1e-3, 0, 0.25, 2, 7, 20]) {
      const s = 1 / (1 + Math.exp(-z));
      expect(sigmoid(z)).toBe(s);
      expect(logisticSlope(z)).toBeCloseTo(s * (1 - s), 14);
      for (const y of [0, 1]) expect(logisticLoss(z, y)).toBeCloseTo(-y * Math.log(s) - (1 - y) * Math.log1p(-s), Math.abs(z) > 10 ? 6 : 12);
    }
  });

  it('stays finite and exact in the tails, where the textbook formulas give 0, ∞ or NaN', () => {
    expect(logisticSlope(800)).toBe(0);
    expect(logisticSlope(-40)).toBeCloseTo(Math.exp(-40), 30);
    expect(logisticLoss(800, 0)).toBe(800); // ln(1 + e^800) = 800 in doubles
    expect(logisticLoss(800, 1)).toBe(0);
    expect(logisticLoss(-800, 1)).toBe(800);
    expect(logisticLoss(-800, 0)).toBe(0);
  });
});
