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
