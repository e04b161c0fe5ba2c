/**
 * EOFD-TS against a dense reference: the sketch Z_t = λI + VΛVᵀ formed explicitly from the policy's
 * sketch, W by eqs. (8)–(9) densely, Z^{-1/2} by a dense eigendecomposition, and the same ξ.
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import type { BetaMode } from '../../src/model/beta.js';
import { EofdTs } from '../../src/policies/eofd-ts.js';
import { Mulberry32Stream } from '../../src/random/stream.js';
import { maxAbsDiff, randomVector, seededNormal, seededUniform } from '../helpers/dense.js';
import { actionSet, curvatureOf, denseOutcome, denseUpdate, expectThompsonRound, makeSpec, roundWithDuplicate } from '../helpers/policies.js';

/** Z^{-1/2} of a symmetric positive definite Z: Q diag(1/√λ_i) Qᵀ. */
function inverseRoot(Z: Matrix): Matrix {
  const eig = new EigenvalueDecomposition(Z.clone().add(Z.transpose()).mul(0.5), { assumeSymmetric: true });
  const Q = eig.eigenvectorMatrix;
  return Q.mmul(Matrix.diag(eig.realEigenvalues.map((v) => 1 / Math.sqrt(v)))).mmul(Q.transpose());
}

describe('EOFD-TS: bad input', () => {
  it('needs its own seeded stream', () => {
    expect(() => new EofdTs(makeSpec(2, 3))).toThrow(/EOFD-TS: a seeded uniform stream \(spec.uniform\) is required/);
  });
  it('rejects m < 1, non-finite actions and outcomes outside 0..K', () => {
    const uniform = () => 0.5;
    expect(() => new EofdTs(makeSpec(2, 3, { sketchSize: 0, uniform }))).toThrow(/m must be an integer ≥ 1, got 0/);
    const policy = new EofdTs(makeSpec(2, 3, { uniform }));
    expect(() => policy.select(actionSet([[Infinity, 0, 0]]), 1)).toThrow(/action 0, feature 0 is Infinity/);
    expect(() => policy.update(Float64Array.of(1, 0, 0), -1)).toThrow(/outcome must be an integer in 0..2, got -1/);
  });
});

describe('EOFD-TS decides as the dense reference, given the same ξ', () => {
  const rounds = 250;
  for (const [K, d, m] of [
    [1, 8, 3],
    [3, 4, 4],
  ] as const) {
    for (const sketch of ['fd', 'rfd'] as const) {
      for (const beta of ['order', 0.3] as BetaMode[]) {
        it(`K = ${K}, d = ${d}, m = ${m}, ${sketch}, beta = ${beta}: ${rounds} equal decisions (ties to the lowest index), equal estimates`, () => {
          const n = K * d;
          const own = new Mulberry32Stream(60 + K);
          const normals = new Mulberry32Stream(60 + K);
          const spec = makeSpec(K, d, { sketchSize: m, regularization: 1, stepSize: 1.5, beta, sketchVariant: sketch, uniform: () => own.uniform() });
          const policy = new EofdTs(spec);
          const reward = Array.from(spec.reward);
          const normal = seededNormal(17 + K);
          const u = seededUniform(19 + K);
          const wStar = randomVector(n, normal, 2);
          let w = new Float64Array(n);
          const chosen = new Set<number>();
          for (let t = 1; t <= rounds; t++) {
            // λ_t of the reference: λ (FD) or λ + ρ/2 (robust FD), from the sketch's discarded mass.
            const rho = policy.core.sketch.sketchError;
            const lambdaT = spec.regularization + (sketch === 'rfd' ? rho / 2 : 0);
            const Z = curvatureOf(policy.core, lambdaT);
            const rows = roundWithDuplicate(d, 6, normal, u);
            const index = policy.select(actionSet(rows), t);
            expectThompsonRound(policy, index, w, (xi) => inverseRoot(Z).mmul(xi).to1DArray(), normals, reward, rows);
            chosen.add(index);

            const x = rows[index];
            const outcome = denseOutcome(wStar, K, x, u());
            w = Float64Array.from(denseUpdate(Z, w, x, outcome, spec.stepSize, spec.normBound).next);
            policy.update(Float64Array.from(x), outcome);
            expect(maxAbsDiff(policy.estimate(), w)).toBeLessThan(1e-8);
          }
          expect(chosen.size).toBeGreaterThan(2);
          // The sketch discarded mass, so Z_t ≠ H_t and (for rfd) λ_t > λ mattered.
          expect(policy.stats().sketchError).toBeGreaterThan(0);
        });
      }
    }
  }
});
