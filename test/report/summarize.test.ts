import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../src/results/read.js';
import { mean, sampleStd } from '../../src/stats/descriptive.js';
import type { SummaryRow } from '../../src/results/records.js';
import {
  comparePolicies,
  downsampleIndices,
  findComparison,
  meanStd,
  pairedComparison,
  summarizeExperiment,
  type ExperimentSummary,
} from '../../src/report/summarize.js';
import { SYNTHETIC_K4, tempDir, writeExperiment, writeFixtureResults } from './fixture.js';

describe('summaries: bad arguments', () => {
  it('downsampleIndices rejects a negative length and fewer than two points', () => {
    expect(() => downsampleIndices(-1)).toThrow(RangeError);
    expect(() => downsampleIndices(10, 1)).toThrow(RangeError);
    expect(() => downsampleIndices(2.5)).toThrow(RangeError);
  });

  it('std of one value is 0; the mean of nothing is NaN', () => {
    expect(sampleStd([3])).toBe(0);
    expect(mean([])).toBeNaN();
  });

  it('pairedComparison: null without a common trial; pairs by trial index, not by position', () => {
    expect(pairedComparison([row('A', 0, 1, 1)], [row('B', 1, 1, 1)])).toBeNull();
    expect(pairedComparison([], [row('B', 0, 1, 1)])).toBeNull();
    // A trials 0, 1, 2 and B trials 2, 0: pairs (0, 0) and (2, 2): regret differences 10 − 4 = 6, 30 − 20 = 10.
    const c = pairedComparison([row('A', 0, 10, 1), row('A', 1, 99, 1), row('A', 2, 30, 1)], [row('B', 2, 20, 2), row('B', 0, 4, 2)])!;
    expect([c.policy, c.reference, c.trials]).toEqual(['A', 'B', 2]);
    expect(c.regret.mean).toBe(8); // (6 + 10)/2
  });

  it('percentages are NaN (and the comparison null) when the reference mean is 0', () => {
    const c = pairedComparison([row('A', 0, 1, 1), row('A', 1, 2, 1)], [row('B', 0, 0, 0), row('B', 1, 0, 0)])!;
    expect(c.regret.mean).toBe(1.5);
    expect(c.regretPct.mean).toBeNaN();
    expect(c.timeReductionPct.mean).toBeNaN();
  });
});

/** A summary.csv row with just what the comparisons read: final regret and per-round time (select only). */
function row(policy: string, trial: number, finalRegret: number, roundMs: number): SummaryRow {
  return {
    policy, trial, finalRegret, meanSelectMs: roundMs, meanUpdateMs: 0, medianSelectMs: roundMs, medianUpdateMs: 0,
    meanRoundMs: roundMs, stateBytes: 0, sketchError: 0, projections: 0, parameterError: null, deltaT: null, betaT: null,
  };
}

/** t_{0.975, 2} in closed form (df = 2: t_p = (2p − 1)/√(2p(1 − p))): 0.95/√0.04875 = 4.302652729749463. */
const T2 = 0.95 / Math.sqrt(2 * 0.975 * 0.025);

function close(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(expected)));
}

function fixtureSummaries(): Map<string, ExperimentSummary> {
  const root = writeFixtureResults();
  return new Map(readResults([root]).map((d) => [d.name, summarizeExperiment(d)]));
}

describe('summaries', () => {
  it('mean and sample std (n − 1) by hand', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    close(sampleStd([2, 4, 4, 4, 5, 5, 7, 9]), Math.sqrt(32 / 7));
    expect(meanStd([5, 5.5, 6])).toEqual({ mean: 5.5, std: 0.5, n: 3 });
  });

  it('orders policies EOFD-MLogB, OFUL-MLogB, Random, then others by name', () => {
    expect(['Zeta', 'Random', 'Alpha', 'OFUL-MLogB', 'EOFD-MLogB'].sort(comparePolicies)).toEqual([
      'EOFD-MLogB', 'OFUL-MLogB', 'Random', 'Alpha', 'Zeta',
    ]);
  });

  it('per-policy numbers equal the hand computation on the synthetic fixture', () => {
    const e = fixtureSummaries().get('synthetic-k4')!;
    expect(e.policies.map((p) => p.policy)).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
    const [eofd, oful, random] = e.policies as [typeof e.policies[0], typeof e.policies[0], typeof e.policies[0]];
    // final regret 5, 5.5, 6 → 5.5 ± 0.5; 4.5, 5, 5.5 → 5 ± 0.5; 20, 22, 24 → 22 ± 2
    close(eofd.finalRegret.mean, 5.5);
    close(eofd.finalRegret.std, 0.5);
    close(oful.finalRegret.mean, 5);
    close(oful.finalRegret.std, 0.5);
    close(random.finalRegret.mean, 22);
    close(random.finalRegret.std, 2);
    // ms/round (select + update): 0.3, 0.4, 0.5 → 0.4 ± 0.1; 1.0, 1.2, 1.4 → 1.2 ± 0.2
    close(eofd.roundMs.mean, 0.4);
    close(eofd.roundMs.std, 0.1);
    close(oful.roundMs.mean, 1.2);
    close(oful.roundMs.std, 0.2);
    close(eofd.selectMs, 0.25);
    close(eofd.updateMs, 0.15);
    expect(eofd.trials).toBe(3);
    expect(eofd.stateBytes).toBe(40_000);
    expect(eofd.sketchError).toBe(2);
    expect(eofd.projections).toBe(1);
    expect(oful.projections).toBe(2);
    close(eofd.parameterError!.mean, 0.7);
    close(eofd.parameterError!.std, 0.2);
    expect(random.parameterError).toBeNull();
    // Δ_T 1.1, 1.2, 1.3 → 1.2 ± 0.1; β_T 4, 5, 6 → 5 ± 1; OFUL 1 ± 0 and 3 ± 0; Random has neither
    close(eofd.deltaT!.mean, 1.2);
    close(eofd.deltaT!.std, 0.1);
    expect(eofd.betaT).toEqual({ mean: 5, std: 1, n: 3 });
    expect([oful.deltaT, oful.betaT]).toEqual([{ mean: 1, std: 0, n: 3 }, { mean: 3, std: 0, n: 3 }]);
    expect([random.deltaT, random.betaT]).toEqual([null, null]);
    // overhead (5.5 − 5)/5·100 = 10%; reduction (1 − 0.4/1.2)·100 = 66.67%
    close(e.comparison!.regretOverheadPct!, 10);
    close(e.comparison!.timeReductionPct!, 200 / 3);
  });

  it('paired comparisons: every ordered pair of policies, in policy order', () => {
    const e = fixtureSummaries().get('synthetic-k4')!;
    expect(e.comparisons.map((c) => `${c.policy} vs ${c.reference}`)).toEqual([
      'EOFD-MLogB vs OFUL-MLogB', 'EOFD-MLogB vs Random',
      'OFUL-MLogB vs EOFD-MLogB', 'OFUL-MLogB vs Random',
      'Random vs EOFD-MLogB', 'Random vs OFUL-MLogB',
    ]);
    expect(e.comparisons.every((c) => c.trials === 3 && c.regret.level === 0.95)).toBe(true);
  });

  it('EOFD-MLogB vs OFUL-MLogB on the synthetic fixture, by hand', () => {
    const c = findComparison(fixtureSummaries().get('synthetic-k4')!.comparisons, 'EOFD-MLogB', 'OFUL-MLogB')!;
    // Regret per trial 5 − 4.5, 5.5 − 5, 6 − 5.5 = 0.5 each: mean 0.5, std 0, so the interval is [0.5, 0.5]
    // (unpaired, each policy's std is 0.5: pairing removes the trial-to-trial spread both share).
    expect(c.regret).toEqual({ n: 3, mean: 0.5, std: 0, low: 0.5, high: 0.5, level: 0.95 });
    // As % of OFUL's mean 5: 10% [10, 10].
    close(c.regretPct.mean, 10);
    close(c.regretPct.low, 10);
    close(c.regretPct.high, 10);
    // Time per trial 0.3 − 1.0, 0.4 − 1.2, 0.5 − 1.4 = −0.7, −0.8, −0.9: mean −0.8, std 0.1,
    // half-width t_{0.975,2}·0.1/√3 = 4.302652729749463·0.0577350 = 0.248413771…: [−1.0484138, −0.5515862].
    close(c.timeMs.mean, -0.8);
    close(c.timeMs.std, 0.1);
    close(c.timeMs.low, -0.8 - (T2 * 0.1) / Math.sqrt(3));
    close(c.timeMs.high, -0.8 + (T2 * 0.1) / Math.sqrt(3));
    expect(c.timeMs.low).toBeCloseTo(-1.0484138, 6);
    // Time reduction = −100·(t_A − t_B)/mean(t_B) = −100·(−0.8)/1.2 = 66.667%, std 100·0.1/1.2 = 8.333,
    // half-width 4.3026527·8.333/√3 = 20.701148: [45.965519, 87.367814], low ≤ high.
    close(c.timeReductionPct.mean, 200 / 3);
    close(c.timeReductionPct.std, 100 / 12);
    close(c.timeReductionPct.low, 200 / 3 - (T2 * 100) / 12 / Math.sqrt(3));
    close(c.timeReductionPct.high, 200 / 3 + (T2 * 100) / 12 / Math.sqrt(3));
    expect(c.timeReductionPct.low).toBeCloseTo(45.965519, 5);
    expect(c.timeReductionPct.high).toBeCloseTo(87.367814, 5);
  });

  it('paired comparisons are antisymmetric in absolute terms; against Random by hand', () => {
    const comparisons = fixtureSummaries().get('synthetic-k4')!.comparisons;
    const ab = findComparison(comparisons, 'EOFD-MLogB', 'OFUL-MLogB')!;
    const ba = findComparison(comparisons, 'OFUL-MLogB', 'EOFD-MLogB')!;
    close(ba.regret.mean, -ab.regret.mean);
    close(ba.timeMs.low, -ab.timeMs.high);
    // EOFD − Random per trial: 5 − 20, 5.5 − 22, 6 − 24 = −15, −16.5, −18: mean −16.5, std 1.5,
    // half-width 4.3026527·1.5/√3 = 3.7262066: [−20.226207, −12.773793]; as % of 22: −75%.
    const r = findComparison(comparisons, 'EOFD-MLogB', 'Random')!;
    close(r.regret.mean, -16.5);
    close(r.regret.std, 1.5);
    expect(r.regret.low).toBeCloseTo(-20.226207, 5);
    expect(r.regret.high).toBeCloseTo(-12.773793, 5);
    close(r.regretPct.mean, -75);
  });

  it('the MNIST fixture: 10% more regret, 50% less time', () => {
    const e = fixtureSummaries().get('mnist')!;
    close(e.comparison!.regretOverheadPct!, 10);
    close(e.comparison!.timeReductionPct!, 50);
    expect(e.policies[1]!.roundMs).toEqual({ mean: 6, std: 0, n: 3 });
  });

  it('curves: mean ± std of cumulative regret at each round', () => {
    const e = fixtureSummaries().get('synthetic-k4')!;
    const c = e.curves[0]!;
    expect(c.policy).toBe('EOFD-MLogB');
    expect(c.t).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (const i of [0, 9, 49]) {
      const t = i + 1;
      close(c.mean[i]!, (5.5 * t) / 50);
      close(c.std[i]!, (0.5 * t) / 50);
      // 95% half-width t_{0.975,2}·std/√3 = 2.4841377·std
      close(c.ci95![i]!, (T2 * ((0.5 * t) / 50)) / Math.sqrt(3));
    }
  });

  it('curves of a single trial have no 95% interval', () => {
    const one = (p: (typeof SYNTHETIC_K4.policies)[number]) => ({ ...p, finals: p.finals.slice(0, 1) });
    const dir = writeExperiment(path.join(tempDir(), 'one'), { ...SYNTHETIC_K4, policies: SYNTHETIC_K4.policies.map(one) });
    const e = summarizeExperiment(readResults([dir])[0]!);
    expect(e.curves.map((c) => c.ci95)).toEqual([null, null, null]);
    expect(e.curves[0]!.std.every((s) => s === 0)).toBe(true);
    expect(Number.isNaN(e.comparisons[0]!.regret.low)).toBe(true);
  });

  it('no comparison without OFUL-MLogB', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), {
      ...SYNTHETIC_K4,
      policies: SYNTHETIC_K4.policies.filter((p) => p.name !== 'OFUL-MLogB'),
    });
    expect(summarizeExperiment(readResults([dir])[0]!).comparison).toBeNull();
  });
});

describe('downsampling', () => {
  it('keeps every round up to 500', () => {
    expect(downsampleIndices(50)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(downsampleIndices(500)).toHaveLength(500);
    expect(downsampleIndices(0)).toEqual([]);
  });

  it('keeps ≤ 500 evenly spaced rounds including the first and the last', () => {
    for (const length of [501, 1234, 10_000, 99_999]) {
      const idx = downsampleIndices(length);
      expect(idx.length).toBeLessThanOrEqual(500);
      expect(idx[0]).toBe(0);
      expect(idx[idx.length - 1]).toBe(length - 1);
      const gaps = idx.slice(1).map((v, i) => v - idx[i]!);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1);
      expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
    }
  });

  it('a long run gives curves of 500 points ending at t = T', () => {
    const dir = writeExperiment(path.join(tempDir(), 'long'), { ...SYNTHETIC_K4, horizon: 1201 });
    const e = summarizeExperiment(readResults([dir])[0]!);
    for (const c of e.curves) {
      expect(c.t).toHaveLength(500);
      expect(c.t[499]).toBe(1201);
      close(c.mean[499]!, e.policies.find((p) => p.policy === c.policy)!.finalRegret.mean);
    }
  });
});
