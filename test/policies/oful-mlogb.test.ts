import { Matrix } from 'ml-matrix';
import { describe, expect, it, vi } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
import { ExactBallProjection, TrustRegionProjection } from '../../src/model/projection.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import { denseInverse } from '../helpers/dense.js';
import { makeSpec, syntheticTrace } from '../helpers/policies.js';

function relativeDrift(policy: OfulMLogB): number {
  const n = Math.sqrt(policy.hessian.length);
  const rows = (a: Float64Array) => Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n)));
  const fresh = denseInverse(new Matrix(rows(policy.hessian)));
  return new Matrix(rows(policy.inverse)).sub(fresh).norm('frobenius') / fresh.norm('frobenius');
}

describe('OFUL-MLogB: bad arguments', () => {
  it('rejects a refresh interval below 1', () => {
    expect(() => new OfulMLogB(makeSpec(2, 3, { refreshInterval: 0 }))).toThrow(/refreshInterval must be an integer ≥ 1, got 0/);
  });
});

describe('OFUL-MLogB: H⁻¹ by rank-K Woodbury updates', () => {
  it('stays within 1e-8 (relative) of a fresh inverse over 3,000 rounds without any refresh', () => {
    const K = 2;
    const d = 6;
    const rounds = 3000;
    const trace = syntheticTrace(K, d, rounds, 42, 2);
    const policy = new OfulMLogB(makeSpec(K, d, { refreshInterval: 1_000_000, regularization: 0.5 }));
    const env = new TraceEnvironment(trace);
    let worst = 0;
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      policy.update(actions.features.slice(index * d, (index + 1) * d), env.play(index).outcome);
      if (t % 500 === 0) worst = Math.max(worst, relativeDrift(policy));
    }
    expect(worst).toBeLessThan(1e-8);
  });

  it('re-inverts H from its Cholesky factor every refresh interval', () => {
    const K = 1;
    const d = 5;
    const trace = syntheticTrace(K, d, 40, 8, 1);
    const policy = new OfulMLogB(makeSpec(K, d, { refreshInterval: 10 }));
    const env = new TraceEnvironment(trace);
    for (let t = 1; t <= 40; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      policy.update(actions.features.slice(index * d, (index + 1) * d), env.play(index).outcome);
    }
    expect(relativeDrift(policy)).toBeLessThan(1e-13);
  });
});

describe('OFUL-MLogB: oful_solver textbook (the paper\'s O(K³d³) cost model)', () => {
  /**
   * Plays both solvers on one trace: the rounds where they chose differently, the largest gap between
   * their estimates over all rounds, and the eigendecompositions and trust-region solves each took.
   */
  function playBoth(K: number, d: number, rounds: number, seed: number, normBound: number) {
    const trace = syntheticTrace(K, d, rounds, seed, 2);
    const spec = { normBound, regularization: 0.5, stepSize: 0.8 };
    // H̃ decomposed: its eigenvalues alone, or with its eigenvectors in a projection.
    const values = vi.spyOn(ExactBallProjection.prototype, 'eigenvalues');
    const exact = vi.spyOn(ExactBallProjection.prototype, 'project');
    const decompositions = () => values.mock.calls.length + exact.mock.calls.length;
    const trustRegion = vi.spyOn(TrustRegionProjection.prototype, 'project');
    const players = (['incremental', 'textbook'] as const).map((solver) => {
      const policy = new OfulMLogB(makeSpec(K, d, { ...spec, options: { oful_solver: solver } }));
      return { policy, env: new TraceEnvironment(trace), choices: [] as number[], decompositions: 0, trustRegions: 0 };
    });
    let gap = 0;
    for (let t = 1; t <= rounds; t++) {
      for (const player of players) {
        const [decomposed, trustRegions] = [decompositions(), trustRegion.mock.calls.length];
        const actions = player.env.actions(t);
        const index = player.policy.select(actions, t);
        player.choices.push(index);
        player.policy.update(actions.features.slice(index * d, (index + 1) * d), player.env.play(index).outcome);
        player.decompositions += decompositions() - decomposed;
        player.trustRegions += trustRegion.mock.calls.length - trustRegions;
      }
      const [a, b] = players.map((player) => player.policy.estimate());
      for (let i = 0; i < K * d; i++) gap = Math.max(gap, Math.abs(a[i] - b[i]));
    }
    vi.restoreAllMocks();
    const [incremental, textbook] = players;
    const differing = incremental.choices.filter((c, i) => c !== textbook.choices[i]).length;
    return { differing, gap, incremental, textbook };
  }

  for (const [K, d, normBound] of [
    [1, 8, 1],
    [3, 5, 1],
    [3, 5, 0.3],
  ] as const) {
    it(`decides as the incremental solver in every one of 400 rounds (K = ${K}, d = ${d}, S = ${normBound}), decomposing H̃ every round`, () => {
      const { differing, gap, incremental, textbook } = playBoth(K, d, 400, 11 + K, normBound);
      expect(differing).toBe(0);
      expect(gap).toBeLessThan(1e-9);
      // Both take the projection in the same rounds: textbook from H̃'s eigendecomposition, which it takes
      // in every round; incremental as a trust-region solve, never decomposing.
      expect(textbook.policy.stats().projections).toBe(incremental.policy.stats().projections);
      expect(textbook.decompositions).toBe(400);
      expect(textbook.trustRegions).toBe(0);
      expect(incremental.decompositions).toBe(0);
      expect(incremental.trustRegions).toBe(incremental.policy.stats().projections);
      if (normBound < 1) expect(incremental.policy.stats().projections).toBeGreaterThan(10);
    });
  }

  it('keeps H⁻¹ a fresh inverse of H after every update (a Cholesky re-inversion each round)', () => {
    const K = 2;
    const d = 4;
    const trace = syntheticTrace(K, d, 30, 5, 2);
    const policy = new OfulMLogB(makeSpec(K, d, { options: { oful_solver: 'textbook' }, refreshInterval: 1000 }));
    const env = new TraceEnvironment(trace);
    for (let t = 1; t <= 30; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      policy.update(actions.features.slice(index * d, (index + 1) * d), env.play(index).outcome);
      expect(relativeDrift(policy)).toBeLessThan(1e-13);
    }
  });

  it('refuses an unknown solver', () => {
    expect(() => new OfulMLogB(makeSpec(1, 3, { options: { oful_solver: 'fast' } }))).toThrow(/oful_solver: expected 'incremental' or 'textbook', got "fast"/);
  });
});
