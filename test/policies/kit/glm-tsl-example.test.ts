/**
 * The policy kit's worked example, examples/module/glm-tsl.mjs (GLM-TSL on the kit's RegularizedMle, loaded
 * through the package's own name as a user's module loads it), decides as a dense reference: θ̂ by
 * dense Newton (ml-matrix), H = λI + Σ ∇σ ⊗ xxᵀ at θ̂, θ̃ = θ̂ + a·L⁻ᵀz from the same uniform draws, and
 * argmax rᵀσ(θ̃x).
 */
import path from 'node:path';
import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../../src/environments/trace.js';
import type { Policy } from '../../../src/policies/policy.js';
import type { PolicySpec } from '../../../src/policies/spec.js';
import { argmaxLowestTie, playAgainstReference, type ReferencePolicy } from '../../helpers/baselines.js';
import { seededUniform, softmaxDense, timesX } from '../../helpers/dense.js';
import { denseCurvature, denseMle } from '../../helpers/dense-mle.js';
import { makeSpec, syntheticTrace } from '../../helpers/policies.js';
import { REPO } from '../../experiment/fixtures.js';

interface ModuleDescriptor {
  params: Record<string, { default: number }>;
  needsRandomStream: boolean;
  create(spec: PolicySpec, params: Record<string, number>): Policy;
}

class DenseGlmTsl implements ReferencePolicy {
  private readonly xs: number[][] = [];
  private readonly ys: number[] = [];
  private theta: number[];
  private readonly uniform: () => number;

  constructor(
    private readonly spec: PolicySpec,
    private readonly a: number,
    seed: number,
  ) {
    this.theta = new Array(spec.K * spec.d).fill(0);
    this.uniform = seededUniform(seed);
  }

  decide(rows: number[][]): number {
    const { K, d, regularization: lambda } = this.spec;
    const n = K * d;
    const z = Array.from({ length: n }, () => {
      const u = 1 - this.uniform();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
    });
    const H = denseCurvature(this.theta, K, this.xs, lambda, d);
    // ml-matrix's Cholesky wants exact symmetry; the sum of Kronecker terms is symmetric to rounding.
    const lower = new CholeskyDecomposition(H.add(H.transpose()).mul(0.5)).lowerTriangularMatrix;
    const u = solve(lower.transpose(), Matrix.columnVector(z)).to1DArray();
    const sample = this.theta.map((v, j) => v + this.a * u[j]!);
    return argmaxLowestTie(rows.map((x) => softmaxDense(timesX(sample, K, x)).reduce((s, p, k) => s + this.spec.reward[k]! * p, 0)));
  }

  learn(x: number[], outcome: number): void {
    this.xs.push(x);
    this.ys.push(outcome);
    this.theta = denseMle(this.spec.K, this.spec.d, this.xs, this.ys, this.spec.regularization);
  }
}

describe('the policy kit worked example: GLM-TSL (examples/module/glm-tsl.mjs)', async () => {
  const descriptor = (await import(path.join(REPO, 'examples', 'module', 'glm-tsl.mjs'))).default as ModuleDescriptor;

  it('declares a and asks for a seeded stream', () => {
    expect(descriptor.params.a?.default).toBe(1);
    expect(descriptor.needsRandomStream).toBe(true);
  });

  for (const [K, d, rounds] of [
    [1, 5, 80],
    [3, 3, 60],
  ] as const) {
    it(`K = ${K}, d = ${d}: ${rounds} identical decisions`, () => {
      const spec = makeSpec(K, d, { regularization: 1.5, uniform: seededUniform(77) });
      const policy = descriptor.create(spec, { a: 0.5 });
      const { firstDifference, decisions } = playAgainstReference(policy, new DenseGlmTsl(spec, 0.5, 77), new TraceEnvironment(syntheticTrace(K, d, rounds, 40 + K, 3)), rounds);
      expect(firstDifference).toBe(-1);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      // It learned: θ̂ moved away from 0.
      expect(Math.hypot(...policy.estimate())).toBeGreaterThan(0.3);
    });
  }
});
