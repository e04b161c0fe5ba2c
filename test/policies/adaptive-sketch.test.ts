/**
 * The sketched policies with params.m: adaptive (spec.adaptiveSketch): Δ_t ≤ 1 + ε in every round,
 * β with the m_t and Δ_t the sketch has, and, with ε so small that nothing may be discarded, the
 * decisions of the exact policy (OFUL-MLogB; for EOFD-TS and SOFUL their own m = Kd, m = d runs).
 */
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
import { ConfidenceRadius, type BetaMode } from '../../src/model/beta.js';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import { EofdTs } from '../../src/policies/eofd-ts.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import type { Policy } from '../../src/policies/policy.js';
import { Soful } from '../../src/policies/soful.js';
import { policySpec, validatePolicySpec, type PolicySpec } from '../../src/policies/spec.js';
import { Mulberry32Stream } from '../../src/random/stream.js';
import { makeSpec, syntheticTrace } from '../helpers/policies.js';

/** Plays `rounds` rounds of a trace; `each` sees the policy after every select (before its update). */
function play(policy: Policy, env: TraceEnvironment, rounds: number, each?: (t: number) => void): number[] {
  const decisions: number[] = [];
  for (let t = 1; t <= rounds; t++) {
    const actions = env.actions(t);
    const index = policy.select(actions, t);
    each?.(t);
    decisions.push(index);
    policy.update(actions.features.slice(index * env.d, (index + 1) * env.d), env.play(index).outcome);
  }
  return decisions;
}

function uniform(seed: number): () => number {
  const stream = new Mulberry32Stream(seed);
  return () => stream.uniform();
}

describe('adaptive sketch: bad arguments', () => {
  it('rejects delta_max ≤ 0 or not finite', () => {
    for (const deltaMax of [0, -0.5, Number.NaN]) {
      expect(() => validatePolicySpec(makeSpec(2, 3, { adaptiveSketch: { deltaMax } }))).toThrow(/delta_max must be a finite number > 0/);
      expect(() => new EofdMLogB(makeSpec(2, 3, { adaptiveSketch: { deltaMax } }))).toThrow(/delta_max must be a finite number > 0/);
    }
  });
  it('the library starts an adaptive sketch at m_1 = 1', () => {
    const spec = policySpec({ d: 5, K: 2, reward: [0, 0.5, 1], adaptiveSketch: { deltaMax: 0.2 } });
    expect(spec.sketchSize).toBe(1);
    expect(spec.adaptiveSketch).toEqual({ deltaMax: 0.2 });
    expect(new EofdMLogB(spec).sketchSize()).toBe(1);
  });
});

describe('adaptive sketch: Δ_t ≤ 1 + ε every round, m_t non-decreasing, β with m_t and Δ_t', () => {
  const rounds = 300;
  for (const [K, d] of [
    [1, 12],
    [3, 5],
  ] as const) {
    for (const sketchVariant of ['fd', 'rfd'] as const) {
      it(`EOFD-MLogB, EOFD-TS and SOFUL, K = ${K}, d = ${d}, ${sketchVariant}`, () => {
        const trace = syntheticTrace(K, d, rounds, 30 + K, 2);
        for (const epsilon of [0.01, 0.3]) {
          const spec = makeSpec(K, d, { regularization: 0.5, sketchSize: 1, adaptiveSketch: { deltaMax: epsilon }, sketchVariant, uniform: uniform(K) });
          const eofd = new EofdMLogB(spec);
          const radius = new ConfidenceRadius({ mode: 'order', scale: 1, d, K, rank: 1, regularization: 0.5, stepSize: spec.stepSize, normBound: 1, maxActionNorm: 1, delta: spec.delta });
          let previous = 1;
          play(eofd, new TraceEnvironment(trace), rounds, (t) => {
            const stats = eofd.stats();
            expect(stats.delta).toBeLessThanOrEqual(1 + epsilon);
            expect(eofd.sketchSize()).toBeGreaterThanOrEqual(previous);
            previous = eofd.sketchSize();
            // eq. (27) with the m_t and ρ the sketch has in round t.
            expect(stats.beta).toBe(radius.value(t, eofd.sketch.sketchError, eofd.sketchSize()));
          });
          expect(eofd.sketchSize()).toBeGreaterThan(1);
          for (const policy of [new EofdTs(spec), new Soful(spec)]) {
            play(policy, new TraceEnvironment(trace), rounds, () => expect(policy.stats().delta).toBeLessThanOrEqual(1 + epsilon));
            expect(policy.sketchSize!()).toBeGreaterThan(1);
          }
        }
      });
    }
  }
});

describe('adaptive sketch with ε so small that nothing may be discarded: the exact policy\'s decisions', () => {
  const rounds = 500;
  const tiny = { deltaMax: 1e-300 };
  for (const [K, d] of [
    [1, 8],
    [3, 4],
  ] as const) {
    // β: eq. (27) with m_t would differ from OFUL-MLogB's rank Kd while m_t < Kd, so the radius is
    // held equal (a constant, or beta_rank 'full'): what is compared is the sketch.
    for (const [beta, betaRank] of [
      [0.5, 'sketch'],
      ['order', 'full'],
      ['theory', 'full'],
    ] as [BetaMode, PolicySpec['betaRank']][]) {
      it(`EOFD-MLogB = OFUL-MLogB, K = ${K}, d = ${d}, beta = ${beta} (${betaRank}): ${rounds} identical decisions`, () => {
        const trace = syntheticTrace(K, d, rounds, 100 + K, 3);
        const base = { normBound: 1, regularization: 1, stepSize: 2, beta, betaRank, betaScale: beta === 'theory' ? 0.05 : 1 };
        const eofd = new EofdMLogB(makeSpec(K, d, { ...base, sketchSize: 1, adaptiveSketch: tiny }));
        const oful = new OfulMLogB(makeSpec(K, d, { ...base, sketchSize: K * d }));
        const a = play(eofd, new TraceEnvironment(trace), rounds);
        const b = play(oful, new TraceEnvironment(trace), rounds);
        expect(a.findIndex((v, i) => v !== b[i])).toBe(-1);
        expect(eofd.stats().sketchError).toBe(0);
        expect(eofd.sketchSize()).toBe(K * d);
        expect(eofd.stats().projections).toBeGreaterThan(0);
        expect(eofd.stats().projections).toBe(oful.stats().projections);
        expect(new Set(a).size).toBeGreaterThan(2);
      });
    }

    it(`EOFD-TS = EOFD-TS with m = Kd and SOFUL = SOFUL with m = d, K = ${K}, d = ${d} (same draws)`, () => {
      const trace = syntheticTrace(K, d, rounds, 200 + K, 3);
      const base = { normBound: 1, regularization: 1, stepSize: 2, beta: 0.3 as BetaMode };
      const adaptiveTs = new EofdTs(makeSpec(K, d, { ...base, sketchSize: 1, adaptiveSketch: tiny, uniform: uniform(7) }));
      const fullTs = new EofdTs(makeSpec(K, d, { ...base, sketchSize: K * d, uniform: uniform(7) }));
      expect(play(adaptiveTs, new TraceEnvironment(trace), rounds)).toEqual(play(fullTs, new TraceEnvironment(trace), rounds));
      expect(adaptiveTs.sketchSize()).toBe(K * d);
      const adaptiveSoful = new Soful(makeSpec(K, d, { ...base, sketchSize: 1, adaptiveSketch: tiny }));
      const fullSoful = new Soful(makeSpec(K, d, { ...base, sketchSize: d }));
      expect(play(adaptiveSoful, new TraceEnvironment(trace), rounds)).toEqual(play(fullSoful, new TraceEnvironment(trace), rounds));
      expect(adaptiveSoful.sketchSize()).toBe(d);
      expect(adaptiveSoful.stats().sketchError).toBe(0);
    });
  }
});
