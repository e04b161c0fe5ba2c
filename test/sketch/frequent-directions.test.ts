import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { SymmetricEigen } from '../../src/linalg/eigen.js';
import { hessianFactor } from '../../src/model/loss.js';
import { ActionCurvature, FrequentDirections, lemma1Matrix } from '../../src/sketch/frequent-directions.js';
import {
  denseInverse,
  jacobianDense,
  kronHessian,
  kronIdentity,
  lowRankDense,
  randomVector,
  seededNormal,
  softmaxDense,
  symmetricEigenvalues,
} from '../helpers/dense.js';

/** A stream of (x, ∇σ) pairs like a bandit's: unit actions, σ at a random parameter. */
function stream(K: number, d: number, seed: number) {
  const normal = seededNormal(seed);
  const w = randomVector(K * d, normal, 3);
  return () => {
    const x = randomVector(d, normal, 1);
    const z = Array.from({ length: K }, (_, i) => x.reduce((s, xa, a) => s + w[i * d + a] * xa, 0));
    return { x, jacobian: jacobianDense(softmaxDense(z)) };
  };
}

function factorOf(K: number, jacobian: number[][]): Float64Array {
  return hessianFactor(K, Float64Array.from(jacobian.flat()), 1, new SymmetricEigen(K), new Float64Array(K), new Float64Array(K * K), new Float64Array(K * K));
}

function feed(sketch: FrequentDirections, sample: { x: number[]; jacobian: number[][] }): void {
  sketch.update(Float64Array.from(sample.x), factorOf(sketch.K, sample.jacobian));
}

function sketchDense(sketch: FrequentDirections): Matrix {
  return lowRankDense(sketch.dimension, sketch.rank, sketch.basis, sketch.eigenvalues);
}

describe('FrequentDirections: bad arguments', () => {
  it('rejects a sketch size below 1 or not an integer', () => {
    expect(() => new FrequentDirections(4, 2, 0)).toThrow(/sketch size m must be an integer ≥ 1, got 0/);
    expect(() => new FrequentDirections(4, 2, 2.5)).toThrow(/got 2\.5/);
  });
  it('caps m at Kd (V has orthonormal columns in R^{Kd})', () => {
    expect(new FrequentDirections(3, 2, 50).sketchSize).toBe(6);
  });
});

describe('FrequentDirections: Alg. 1 on random streams', () => {
  it('keeps VᵀV = I to 1e-10 over 2,000 updates', () => {
    const sketch = new FrequentDirections(30, 3, 12);
    const next = stream(3, 30, 1);
    for (let t = 0; t < 2000; t++) feed(sketch, next());
    expect(sketch.rank).toBe(12);
    expect(sketch.orthonormalityError()).toBeLessThan(1e-10);
  });

  for (const [K, d, m] of [
    [1, 12, 4],
    [3, 5, 6],
  ] as const) {
    it(`Lemma 3 every round, Lemma 4 and ρ = Σ σ̄²_{m+1} (K=${K}, d=${d}, m=${m})`, () => {
      const sketch = new FrequentDirections(d, K, m);
      const next = stream(K, d, 7 + K);
      const n = K * d;
      let cumulative = Matrix.zeros(n, n);
      let discarded = 0;
      let truncations = 0;
      for (let t = 0; t < 120; t++) {
        const sample = next();
        const before = sketchDense(sketch);
        const hessian = kronHessian(sample.jacobian, sample.x);
        const rhoBefore = sketch.sketchError;
        feed(sketch, sample);
        const after = sketchDense(sketch);
        const combined = before.clone().add(hessian);
        const sigmaNext = symmetricEigenvalues(combined)[m];
        if (sigmaNext > 1e-12) truncations++;
        discarded += Math.max(0, sigmaNext);
        const scale = symmetricEigenvalues(combined)[0];
        const tol = 1e-12 * scale;
        // eq. (15): the kept spectrum is the top m of before + ∇², each shrunk by σ̄²_{m+1}.
        const top = symmetricEigenvalues(combined).slice(0, m);
        const kept = symmetricEigenvalues(after).slice(0, m);
        const shrink = Math.max(0, sigmaNext);
        top.forEach((value, k) => expect(Math.abs(kept[k] - Math.max(0, value - shrink))).toBeLessThan(tol * 10));
        // Lemma 3: after ⪯ before + ∇² ⪯ after + (ρ_t − ρ_{t−1}) I
        expect(symmetricEigenvalues(combined.clone().sub(after)).at(-1)!).toBeGreaterThan(-tol);
        const upper = after.clone().add(Matrix.eye(n).mul(sketch.sketchError - rhoBefore)).sub(combined);
        expect(symmetricEigenvalues(upper).at(-1)!).toBeGreaterThan(-tol);
        cumulative = cumulative.add(hessian);
        // Lemma 4: VΛVᵀ ⪯ M_t ⪯ VΛVᵀ + ρ I
        expect(symmetricEigenvalues(cumulative.clone().sub(after)).at(-1)!).toBeGreaterThan(-1e-10 * scale);
        const gap = after.clone().add(Matrix.eye(n).mul(sketch.sketchError)).sub(cumulative);
        expect(symmetricEigenvalues(gap).at(-1)!).toBeGreaterThan(-1e-10 * scale);
      }
      expect(truncations).toBeGreaterThan(50);
      expect(sketch.sketchError).toBeCloseTo(discarded, 9);
      expect(Math.abs(sketch.sketchError - discarded)).toBeLessThan(1e-9 * discarded);
    });
  }

  it('with m ≥ Kd reproduces the exact cumulative Hessian and discards nothing', () => {
    const K = 2;
    const d = 4;
    const sketch = new FrequentDirections(d, K, 100);
    const next = stream(K, d, 3);
    let cumulative = Matrix.zeros(K * d, K * d);
    for (let t = 0; t < 60; t++) {
      const sample = next();
      cumulative = cumulative.add(kronHessian(sample.jacobian, sample.x));
      feed(sketch, sample);
    }
    expect(sketch.sketchError).toBe(0);
    const diff = sketchDense(sketch).sub(cumulative);
    expect(diff.norm('frobenius')).toBeLessThan(1e-12 * cumulative.norm('frobenius'));
  });
});

describe('Lemma 1: ‖Z^{-1/2}(I ⊗ x)‖₂² = ‖A(x)‖₂', () => {
  for (const K of [2, 3, 5]) {
    it(`matches the dense (I⊗x)ᵀ Z⁻¹ (I⊗x) for K = ${K}`, () => {
      const d = 7;
      const m = 6;
      const lambda = 0.7;
      const sketch = new FrequentDirections(d, K, m);
      const next = stream(K, d, 20 + K);
      const normal = seededNormal(99 + K);
      for (let t = 0; t < 40; t++) feed(sketch, next());
      const Z = sketchDense(sketch).add(Matrix.eye(K * d).mul(lambda));
      const Zinv = denseInverse(Z);
      const r = sketch.rank;
      for (let trial = 0; trial < 10; trial++) {
        const x = randomVector(d, normal, 0.3 + trial * 0.2);
        const xf = Float64Array.from(x);
        const projection = sketch.project(xf, 0, new Float64Array(K * r));
        const woodbury = sketch.woodburyCoefficients(lambda, new Float64Array(r));
        const A = lemma1Matrix(K, r, woodbury, projection, 0, x.reduce((s, v) => s + v * v, 0), lambda, new Float64Array(K * K));
        const X = kronIdentity(K, x);
        const dense = X.transpose().mmul(Zinv).mmul(X);
        const expected = symmetricEigenvalues(dense)[0];
        const got = symmetricEigenvalues(new Matrix(Array.from({ length: K }, (_, i) => Array.from(A.subarray(i * K, i * K + K)))))[0];
        expect(Math.abs(got - expected)).toBeLessThan(1e-10 * expected);
        for (let i = 0; i < K; i++)
          for (let j = 0; j < K; j++) expect(Math.abs(A[i * K + j] - dense.get(i, j))).toBeLessThan(1e-10 * expected);
      }
    });
  }
});

describe('ActionCurvature: A(x) of every action of a round (one product over V read as r·K blocks)', () => {
  for (const [K, d, m] of [[1, 6, 4], [3, 5, 7], [4, 4, 16]] as const) {
    it(`matches the dense (I⊗x)ᵀ Z⁻¹ (I⊗x) for K = ${K}, d = ${d}, m = ${m}`, () => {
      const lambda = 0.6;
      const sketch = new FrequentDirections(d, K, m);
      const next = stream(K, d, 60 + K);
      for (let t = 0; t < 30; t++) feed(sketch, next());
      const Zinv = denseInverse(sketchDense(sketch).add(Matrix.eye(K * d).mul(lambda)));
      const normal = seededNormal(5 + K);
      const count = 7;
      const actions = Array.from({ length: count }, (_, a) => randomVector(d, normal, 0.4 + 0.1 * a));
      const curvature = new ActionCurvature(sketch);
      curvature.prepare(Float64Array.from(actions.flat()), count, lambda);
      const A = new Float64Array(K * K);
      for (let a = 0; a < count; a++) {
        curvature.write(a, A);
        const X = kronIdentity(K, actions[a]!);
        const dense = X.transpose().mmul(Zinv).mmul(X);
        const scale = symmetricEigenvalues(dense)[0]!;
        for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) expect(Math.abs(A[i * K + j]! - dense.get(i, j))).toBeLessThan(1e-10 * scale);
      }
    });
  }
});

describe('augmentedSolve: (λI + CᵀC)⁻¹w for C = [VΛ^{1/2}, F ⊗ x] by block elimination', () => {
  /** C formed densely (Kd × (r+K)): column k = √μ_k v_k, column r+j = Σ_i F_ij (e_i ⊗ x). */
  function denseAugmented(sketch: FrequentDirections, factor: Float64Array, x: number[]): Matrix {
    const { K, d, dimension, rank: r } = sketch;
    const C = Matrix.zeros(dimension, r + K);
    for (let k = 0; k < r; k++) {
      const root = Math.sqrt(sketch.eigenvalues[k]);
      for (let a = 0; a < dimension; a++) C.set(a, k, root * sketch.basis[k * dimension + a]);
    }
    for (let j = 0; j < K; j++) for (let i = 0; i < K; i++) for (let a = 0; a < d; a++) C.set(i * d + a, r + j, factor[i * K + j] * x[a]);
    return C;
  }

  for (const [K, d, m, rounds, lambda] of [
    [1, 9, 5, 30, 0.8],
    [2, 6, 7, 40, 0.05],
    [4, 5, 8, 0, 1.3],
    [4, 5, 8, 50, 0.3],
    [3, 3, 9, 60, 1e-3],
  ] as const) {
    it(`matches a dense solve for K = ${K}, d = ${d}, m = ${m} after ${rounds} updates, λ = ${lambda}`, () => {
      const sketch = new FrequentDirections(d, K, m);
      const next = stream(K, d, 40 + K + rounds);
      for (let t = 0; t < rounds; t++) feed(sketch, next());
      const normal = seededNormal(7 + rounds);
      for (let trial = 0; trial < 5; trial++) {
        // A general factor (FᵀF not diagonal, unlike `hessianFactor`'s) and x of several norms.
        const factor = Float64Array.from(randomVector(K * K, normal, 1));
        const x = randomVector(d, normal, 0.5 + trial * 0.3);
        const xf = Float64Array.from(x);
        const r = sketch.rank;
        const n = r + K;
        const w = Float64Array.from(randomVector(n, normal, 1));
        const projection = sketch.project(xf, 0, new Float64Array(K * Math.max(r, 1)));
        const got = new Float64Array(n);
        sketch.augmentedSolve(projection, factor, x.reduce((s, v) => s + v * v, 0), lambda, w, got);
        const C = denseAugmented(sketch, factor, x);
        const system = C.transpose().mmul(C).add(Matrix.eye(n).mul(lambda));
        const expected = denseInverse(system).mmul(Matrix.columnVector(Array.from(w)));
        const scale = expected.norm('frobenius');
        for (let i = 0; i < n; i++) expect(Math.abs(got[i] - expected.get(i, 0))).toBeLessThan(1e-10 * scale);
      }
    });
  }
});
