/**
 * With m ≥ Kd the sketch never truncates (ρ = 0, Z_t = H_t), so EOFD-MLogB and OFUL-MLogB, two
 * independent code paths, must make the same decisions (DESIGN §2).
 */
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import type { Policy } from '../../src/policies/policy.js';
import { makeSpec, syntheticTrace } from '../helpers/policies.js';

function play(policy: Policy, env: TraceEnvironment, rounds: number): number[] {
  const decisions: number[] = [];
  for (let t = 1; t <= rounds; t++) {
    const actions = env.actions(t);
    const index = policy.select(actions, t);
    decisions.push(index);
    const feedback = env.play(index);
    policy.update(actions.features.slice(index * env.d, (index + 1) * env.d), feedback.outcome);
  }
  return decisions;
}

describe('EOFD-MLogB with m ≥ Kd decides exactly as OFUL-MLogB', () => {
  const rounds = 500;
  for (const [K, d] of [
    [1, 8],
    [3, 4],
  ] as const) {
    for (const beta of ['theory', 'order', 0.5] as BetaMode[]) {
      it(`K = ${K}, d = ${d}, beta = ${beta}: ${rounds} identical decisions, with projections taken`, () => {
        // S* = 3S puts W* outside the ball, so the estimate presses on ‖W‖ = S and projections happen.
        const trace = syntheticTrace(K, d, rounds, 100 + K, 3);
        const spec = makeSpec(K, d, { normBound: 1, regularization: 1, stepSize: 2, sketchSize: K * d, beta, betaScale: beta === 'theory' ? 0.05 : 1 });
        const eofd = new EofdMLogB(spec);
        const oful = new OfulMLogB(spec);
        const a = play(eofd, new TraceEnvironment(trace), rounds);
        const b = play(oful, new TraceEnvironment(trace), rounds);
        const firstDifference = a.findIndex((v, i) => v !== b[i]);
        expect(firstDifference).toBe(-1);
        expect(eofd.stats().sketchError).toBe(0);
        expect(eofd.stats().projections).toBeGreaterThan(0);
        expect(eofd.stats().projections).toBe(oful.stats().projections);
        expect(eofd.stats().beta).toBeCloseTo(oful.stats().beta, 6);
        let maxDiff = 0;
        eofd.estimate().forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - oful.estimate()[i]))));
        expect(maxDiff).toBeLessThan(1e-8);
        // The decisions are not trivial: more than one action index was chosen.
        expect(new Set(a).size).toBeGreaterThan(2);
      });
    }
  }
});

describe("beta_rank 'full' gives EOFD-MLogB OFUL-MLogB's radius", () => {
  /** β of every round of one policy, fed the trace's actions and outcomes. */
  function betas(policy: Policy, env: TraceEnvironment, rounds: number): number[] {
    const values: number[] = [];
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      values.push(policy.stats().beta);
      policy.update(actions.features.slice(index * env.d, (index + 1) * env.d), env.play(index).outcome);
    }
    return values;
  }

  for (const beta of ['order', 0.5] as BetaMode[]) {
    it(`beta = ${beta}, m < Kd: equal β every round with 'full'; smaller with 'sketch' once the sketch discards`, () => {
      const [K, d, rounds] = [2, 6, 200];
      const trace = syntheticTrace(K, d, rounds, 7, 2);
      const base = { regularization: 0.5, stepSize: 2, sketchSize: 3, beta };
      const oful = betas(new OfulMLogB(makeSpec(K, d, base)), new TraceEnvironment(trace), rounds);
      const full = new EofdMLogB(makeSpec(K, d, { ...base, betaRank: 'full' }));
      expect(betas(full, new TraceEnvironment(trace), rounds)).toEqual(oful);
      expect(full.stats().sketchError).toBeGreaterThan(0);
      expect(full.stats().delta).toBeGreaterThan(1);
      const sketch = betas(new EofdMLogB(makeSpec(K, d, { ...base, betaRank: 'sketch' })), new TraceEnvironment(trace), rounds);
      if (beta === 'order') {
        // eq. (27): m ln t < Kd ln t from the first round on (Δ = 1 until the sketch first discards).
        expect(sketch[0]).toBeLessThan(oful[0] as number);
      } else {
        expect(sketch).toEqual(oful);
      }
    });
  }
});
