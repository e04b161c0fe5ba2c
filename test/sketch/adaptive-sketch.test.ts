/**
 * The adaptive sketch size of src/sketch/frequent-directions.ts (params.m: adaptive): Δ_t ≤ 1 + ε in
 * every round, the growth step against a dense FD step with the grown m on the same rows, the
 * m ≥ Kd identity when nothing may be discarded, and m_t on a fixed low-rank spectrum.
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { SymmetricEigen } from '../../src/linalg/eigen.js';
import { hessianFactor } from '../../src/model/loss.js';
import { budgetShare, FrequentDirections } from '../../src/sketch/frequent-directions.js';
import { jacobianDense, kronHessian, lowRankDense, randomVector, seededNormal, seededUniform, softmaxDense } from '../helpers/dense.js';

interface Sample {
  x: number[];
  jacobian: number[][];
}

/**
 * A stream of (x, ∇σ) pairs like a bandit's: actions of norm up to 1 in a random `rank`-dimensional
 * subspace of R^d (rank = d: anywhere), σ at a random parameter.
 */
function stream(K: number, d: number, seed: number, rank = d): () => Sample {
  const normal = seededNormal(seed);
  const uniform = seededUniform(seed + 17);
  const w = randomVector(K * d, normal, 3);
  const span = Array.from({ length: rank }, () => randomVector(d, normal, 1));
  return () => {
    const c = randomVector(rank, normal, 0.2 + 0.8 * uniform());
    const x = Array.from({ length: d }, (_, a) => span.reduce((s, v, k) => s + c[k] * v[a], 0));
    const z = Array.from({ length: K }, (_, i) => x.reduce((s, xa, a) => s + w[i * d + a] * xa, 0));
    return { x, jacobian: jacobianDense(softmaxDense(z)) };
  };
}

function factorOf(K: number, jacobian: number[][]): Float64Array {
  return hessianFactor(K, Float64Array.from(jacobian.flat()), 1, new SymmetricEigen(K), new Float64Array(K), new Float64Array(K * K), new Float64Array(K * K));
}

function feed(sketch: FrequentDirections, sample: Sample): void {
  sketch.update(Float64Array.from(sample.x), factorOf(sketch.K, sample.jacobian));
}

function sketchDense(sketch: FrequentDirections): Matrix {
  return lowRankDense(sketch.dimension, sketch.rank, sketch.basis, sketch.eigenvalues);
}

/** Eigenpairs of a symmetric matrix, values descending. */
function eigenpairs(m: Matrix): { values: number[]; vectors: Matrix } {
  const e = new EigenvalueDecomposition(m.add(m.transpose()).mul(0.5), { assumeSymmetric: true });
  const order = e.realEigenvalues.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
  const vectors = new Matrix(m.rows, m.rows);
  order.forEach(([, i], k) => vectors.setColumn(k, e.eigenvectorMatrix.getColumn(i)));
  return { values: order.map(([v]) => v), vectors };
}

/**
 * The dense reference: one FD step (eq. (15)) with the adaptive rule written out on explicit Kd×Kd
 * matrices. `before + ∇²ℓ` has the spectrum of [VΛ^{1/2}, B_t]'s Gram matrix; values at or below
 * 1e-13 of the largest are zero. A sketch of size m in [2^j, 2^{j+1}) may have discarded ελ(1 − 2^{−(j+1)})
 * in all; if discarding the (m+1)-th value would exceed that, m grows to the smallest m' whose
 * (m'+1)-th value fits the share of m' or is zero. Returns the new sketch matrix, m and ρ.
 */
function denseAdaptiveStep(
  before: Matrix,
  hessian: Matrix,
  m: number,
  rho: number,
  lambda: number,
  epsilon: number,
): { sketch: Matrix; m: number; rho: number } {
  const n = before.rows;
  const { values, vectors } = eigenpairs(before.clone().add(hessian));
  const zero = 1e-13 * Math.max(values[0], 0);
  const share = (size: number) => 1 - 2 ** -(Math.floor(Math.log2(size)) + 1);
  const fits = (v: number, size: number) => (rho + v) / lambda <= epsilon * share(size);
  if (m < n && values[m] > zero && !fits(values[m], m)) {
    m++;
    while (m < n && values[m] > zero && !fits(values[m], m)) m++;
  }
  const shrink = m < n && values[m] > zero ? values[m] : 0;
  const sketch = Matrix.zeros(n, n);
  for (let k = 0; k < Math.min(m, n); k++) {
    const weight = values[k] - shrink;
    if (weight <= zero) continue;
    const u = vectors.getColumnVector(k);
    sketch.add(u.mmul(u.transpose()).mul(weight));
  }
  return { sketch, m, rho: rho + shrink };
}

describe('FrequentDirections, adaptive m: bad arguments', () => {
  it('rejects a budget ε that is not a finite number > 0, and a λ ≤ 0', () => {
    for (const deltaMax of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new FrequentDirections(4, 2, 1, false, { deltaMax, regularization: 1 })).toThrow(/delta_max \(ε of Δ_t ≤ 1 \+ ε\) must be a finite number > 0/);
    }
    expect(() => new FrequentDirections(4, 2, 1, false, { deltaMax: 0.1, regularization: 0 })).toThrow(/λ must be a finite number > 0, got 0/);
  });
});

describe('FrequentDirections, adaptive m: the dyadic shares of ε', () => {
  it('a size in [2^j, 2^{j+1}) may use 1 − 2^{−(j+1)} of ε: 1/2, 3/4, 3/4, 7/8, …, below 1', () => {
    expect([1, 2, 3, 4, 7, 8, 785].map(budgetShare)).toEqual([0.5, 0.75, 0.75, 0.875, 0.875, 0.9375, 1 - 2 ** -10]);
  });
});

describe('FrequentDirections, adaptive m: Δ_t ≤ 1 + ε in every round (property over random traces)', () => {
  for (const K of [1, 3]) {
    it(`K = ${K}: 24 traces (seeds × ε × λ × FD/RFD), 400 rounds each`, () => {
      const d = K === 1 ? 24 : 8;
      let grew = 0;
      let discarded = 0;
      for (const seed of [1, 2, 3]) {
        for (const epsilon of [1e-3, 0.05, 0.5, 5]) {
          for (const lambda of [0.5, 4]) {
            const robust = seed === 2;
            const sketch = new FrequentDirections(d, K, 1, robust, { deltaMax: epsilon, regularization: lambda });
            const next = stream(K, d, 100 * seed + K);
            let previous = sketch.sketchSize;
            for (let t = 1; t <= 400; t++) {
              feed(sketch, next());
              // Δ_t exactly as the policies report it (stats().delta).
              expect(1 + sketch.sketchError / lambda).toBeLessThanOrEqual(1 + epsilon);
              // …and within the dyadic share of the size class m_t is in.
              expect(sketch.sketchError / lambda).toBeLessThanOrEqual(epsilon * budgetShare(sketch.sketchSize));
              expect(sketch.sketchSize).toBeGreaterThanOrEqual(previous);
              expect(sketch.sketchSize - previous).toBeLessThanOrEqual(K);
              expect(sketch.sketchSize).toBeLessThanOrEqual(K * d);
              expect(sketch.rank).toBeLessThanOrEqual(sketch.sketchSize);
              expect(sketch.capacity).toBeGreaterThanOrEqual(sketch.sketchSize);
              previous = sketch.sketchSize;
            }
            expect(sketch.orthonormalityError()).toBeLessThan(1e-10);
            grew += sketch.growths;
            if (sketch.sketchError > 0) discarded++;
          }
        }
      }
      // The traces exercise both branches: growth, and discards that fit the budget.
      expect(grew).toBeGreaterThan(100);
      expect(discarded).toBeGreaterThan(10);
    });
  }

  it('capacity doubles (never more than max(2·m_t, m_t + K), capped at Kd), so copies are amortised', () => {
    const [K, d] = [2, 40];
    const sketch = new FrequentDirections(d, K, 1, false, { deltaMax: 1e-6, regularization: 1 });
    const next = stream(K, d, 5);
    const capacities = new Set<number>();
    for (let t = 0; t < 60; t++) {
      feed(sketch, next());
      capacities.add(sketch.capacity);
      expect(sketch.capacity).toBeLessThanOrEqual(Math.min(K * d, Math.max(2 * sketch.sketchSize, sketch.sketchSize + K)));
    }
    // m_t reached Kd = 80 through about log₂(80) reallocations, not one per round.
    expect(sketch.sketchSize).toBe(K * d);
    expect(capacities.size).toBeLessThanOrEqual(8);
  });
});

describe('FrequentDirections, adaptive m: each step against a dense FD step with that m on the same rows', () => {
  for (const [K, d, epsilon, lambda] of [
    [1, 10, 0.05, 1],
    [3, 6, 0.3, 0.5],
  ] as const) {
    it(`K = ${K}, d = ${d}, ε = ${epsilon}: equal sketch (1e-10), m_t and ρ every round, growth rounds included`, () => {
      const sketch = new FrequentDirections(d, K, 1, false, { deltaMax: epsilon, regularization: lambda });
      const next = stream(K, d, 40 + K);
      let m = 1;
      let rho = 0;
      let growthRounds = 0;
      let discardRounds = 0;
      for (let t = 0; t < 150; t++) {
        const sample = next();
        const before = sketchDense(sketch);
        const reference = denseAdaptiveStep(before, kronHessian(sample.jacobian, sample.x), m, rho, lambda, epsilon);
        const mBefore = sketch.sketchSize;
        const rhoBefore = sketch.sketchError;
        feed(sketch, sample);
        if (sketch.sketchSize > mBefore) growthRounds++;
        if (sketch.sketchError > rhoBefore) discardRounds++;
        expect(sketch.sketchSize).toBe(reference.m);
        const scale = Math.max(1, reference.sketch.norm('frobenius'));
        expect(sketchDense(sketch).sub(reference.sketch).norm('frobenius')).toBeLessThan(1e-10 * scale);
        expect(Math.abs(sketch.sketchError - reference.rho)).toBeLessThan(1e-10 * Math.max(1, reference.rho));
        m = reference.m;
        rho = reference.rho;
      }
      expect(growthRounds).toBeGreaterThan(2);
      expect(discardRounds).toBeGreaterThan(10);
    });
  }
});

describe('FrequentDirections, adaptive m: limits', () => {
  it('ε so small that nothing may be discarded: ρ = 0 and the sketch is the exact cumulative Hessian (the m ≥ Kd identity)', () => {
    const [K, d] = [2, 5];
    const sketch = new FrequentDirections(d, K, 1, false, { deltaMax: 1e-300, regularization: 1 });
    const next = stream(K, d, 9);
    let cumulative = Matrix.zeros(K * d, K * d);
    for (let t = 0; t < 80; t++) {
      const sample = next();
      cumulative = cumulative.add(kronHessian(sample.jacobian, sample.x));
      feed(sketch, sample);
      expect(sketch.sketchError).toBe(0);
    }
    expect(sketch.sketchSize).toBe(K * d);
    expect(sketchDense(sketch).sub(cumulative).norm('frobenius')).toBeLessThan(1e-12 * cumulative.norm('frobenius'));
  });

  it('a budget never reached: bit for bit the fixed-m sketch (m_1 = 1)', () => {
    const [K, d] = [3, 6];
    const adaptive = new FrequentDirections(d, K, 1, false, { deltaMax: 1e12, regularization: 1 });
    const fixed = new FrequentDirections(d, K, 1);
    const next = stream(K, d, 11);
    for (let t = 0; t < 100; t++) {
      const sample = next();
      feed(adaptive, sample);
      feed(fixed, sample);
    }
    expect(adaptive.sketchSize).toBe(1);
    expect(adaptive.growths).toBe(0);
    expect(adaptive.sketchError).toBe(fixed.sketchError);
    expect(Array.from(adaptive.basis.subarray(0, d * K))).toEqual(Array.from(fixed.basis.subarray(0, d * K)));
  });

  for (const [K, d, r] of [
    [1, 30, 4],
    [3, 12, 3],
  ] as const) {
    it(`a fixed spectrum (actions of rank ${r}, K = ${K}): m_t stops growing at ≤ Kr = ${K * r} and early`, () => {
      const sketch = new FrequentDirections(d, K, 1, false, { deltaMax: 1e-6, regularization: 1 });
      const next = stream(K, d, 21 + K, r);
      let lastGrowth = 0;
      for (let t = 1; t <= 600; t++) {
        const before = sketch.sketchSize;
        feed(sketch, next());
        if (sketch.sketchSize > before) lastGrowth = t;
      }
      // ∇σ ⊗ xxᵀ lives in the Kr-dimensional I_K ⊗ span(x): once m_t holds it, nothing is discarded.
      expect(sketch.sketchSize).toBeLessThanOrEqual(K * r);
      expect(sketch.sketchSize).toBeGreaterThanOrEqual(K * r - K);
      expect(lastGrowth).toBeLessThan(100);
      expect(sketch.capacity).toBeLessThanOrEqual(2 * K * r);
      expect(1 + sketch.sketchError).toBeLessThanOrEqual(1 + 1e-6);
    });
  }
});
