import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
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
