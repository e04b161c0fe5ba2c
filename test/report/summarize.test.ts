import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateClaims } from '../../src/report/claims.js';
import { readResults } from '../../src/results/read.js';
import { mean, sampleStd } from '../../src/stats/descriptive.js';
import type { SummaryRow } from '../../src/results/records.js';
import {
  comparePolicies,
  downsampleIndices,
  holmTests,
  meanStd,
  pairedComparison,
  summarizeExperiment,
  type ExperimentSummary,
  type TestedComparison,
} from '../../src/report/summarize.js';
import { SYNTHETIC_K4, makeInProgress, tempDir, writeExperiment, writeFixtureResults, type FixturePolicy } from './fixture.js';

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

  it('ratios are null, with the reason, when a value is not > 0 (log ratios need positive values)', () => {
    const c = pairedComparison([row('A', 0, 1, 1), row('A', 1, 2, 1)], [row('B', 0, 3, 2), row('B', 1, 0, 0)])!;
    expect(c.regret.mean).toBe(0); // (1 − 3 + 2 − 0)/2: the difference is still defined
    expect([c.regretLogRatio, c.regretOverhead, c.timeLogRatio, c.timeReduction]).toEqual([null, null, null, null]);
    expect(c.regretRatioNote).toBe("B's final regret is 0 in trial 1; a log ratio needs values > 0");
    expect(c.timeRatioNote).toBe("B's per-round time is 0 in trial 1; a log ratio needs values > 0");
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

function close(actual: number, expected: number, tolerance = 1e-12): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(expected)));
}

function fixtureSummaries(): Map<string, ExperimentSummary> {
  const root = writeFixtureResults();
  return new Map(readResults([root]).map((d) => [d.name, summarizeExperiment(d)] as const));
}

describe('summaries', () => {
  it('mean and sample std (n − 1) by hand', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    close(sampleStd([2, 4, 4, 4, 5, 5, 7, 9]), Math.sqrt(32 / 7));
    expect(meanStd([5, 5.5, 6])).toEqual({ mean: 5.5, std: 0.5, n: 3 });
  });

  it('across experiments (figures) orders policies EOFD-MLogB, OFUL-MLogB, Random, then others by name', () => {
    expect(['Zeta', 'Random', 'Alpha', 'OFUL-MLogB', 'EOFD-MLogB'].sort(comparePolicies)).toEqual([
      'EOFD-MLogB', 'OFUL-MLogB', 'Random', 'Alpha', 'Zeta',
    ]);
  });

  it("within an experiment keeps its configured order; the default reference is its first learner", () => {
    const [eofd, oful, random] = SYNTHETIC_K4.policies as [FixturePolicy, FixturePolicy, FixturePolicy];
    const dir = writeExperiment(path.join(tempDir(), 'order'), { ...SYNTHETIC_K4, policies: [random, { ...oful, name: 'TS-small' }, eofd] });
    const e = summarizeExperiment(readResults([dir])[0]!);
    expect(e.policies.map((p) => p.policy)).toEqual(['Random', 'TS-small', 'EOFD-MLogB']);
    expect(e.reference).toBe('TS-small');
    expect(e.comparisons.map((c) => `${c.policy} vs ${c.reference}`)).toEqual(['Random vs TS-small', 'EOFD-MLogB vs TS-small']);
    expect(e.randomLabels).toEqual(['Random']);
    expect(e.comparison).toBeNull(); // no OFUL-MLogB label
  });

  it("a variant whose policy is Random (the manifest's config.variants) counts as Random", () => {
    const [eofd, oful, random] = SYNTHETIC_K4.policies as [FixturePolicy, FixturePolicy, FixturePolicy];
    const dir = writeExperiment(path.join(tempDir(), 'variants'), {
      ...SYNTHETIC_K4,
      policies: [{ ...random, name: 'Uniform' }, eofd, oful],
      variants: { Uniform: { policy: 'Random' }, 'EOFD-MLogB': { policy: 'EOFD-MLogB' } },
    });
    const e = summarizeExperiment(readResults([dir])[0]!);
    expect(e.randomLabels).toEqual(['Uniform']);
    expect(e.reference).toBe('EOFD-MLogB');
    // Uniform vs EOFD-MLogB compares regret, not time; the Random check uses Uniform.
    expect(e.comparisons.map((c) => [c.policy, c.timeTest === null])).toEqual([['Uniform', true], ['OFUL-MLogB', false]]);
    expect(e.randomCheck.map((c) => [c.policy, c.random, c.flagged])).toEqual([['EOFD-MLogB', 'Uniform', false], ['OFUL-MLogB', 'Uniform', false]]);
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
    // Geometric means of the per-trial ratios (log scale, back-transformed): regret 10/9 · 11/10 · 12/11 = 4/3,
    // overhead 100·((4/3)^(1/3) − 1) = 10.064%; time 0.3/1 · 0.4/1.2 · 0.5/1.4 = 1/28, reduction
    // 100·(1 − 28^(−1/3)) = 67.068%.
    close(e.comparison!.regretOverheadPct!, 100 * (Math.cbrt(4 / 3) - 1));
    close(e.comparison!.timeReductionPct!, 100 * (1 - 1 / Math.cbrt(28)));
  });

  it('paired comparisons: each policy against the reference (default the first learner), or every pair', () => {
    const root = writeFixtureResults();
    const data = readResults([path.join(root, 'synthetic-k4')])[0]!;
    const names = (e: ExperimentSummary) => e.comparisons.map((c) => `${c.policy} vs ${c.reference}`);
    const e = summarizeExperiment(data);
    expect([e.reference, e.referenceNote]).toEqual(['EOFD-MLogB', null]);
    expect(names(e)).toEqual(['OFUL-MLogB vs EOFD-MLogB', 'Random vs EOFD-MLogB']);
    expect(e.comparisons.every((c) => c.trials === 3 && c.regret.level === 0.95)).toBe(true);
    expect(names(summarizeExperiment(data, { reference: 'OFUL-MLogB' }))).toEqual(['EOFD-MLogB vs OFUL-MLogB', 'Random vs OFUL-MLogB']);
    const all = summarizeExperiment(data, { allPairs: true });
    expect([all.reference, ...names(all)]).toEqual([null, 'OFUL-MLogB vs EOFD-MLogB', 'Random vs EOFD-MLogB', 'Random vs OFUL-MLogB']);
    expect(all.comparisons.map((c) => c.regretTest.family)).toEqual([3, 3, 3]);
    expect(all.comparisons.map((c) => c.timeTest?.family ?? null)).toEqual([1, null, null]); // not against Random
    const missing = summarizeExperiment(data, { reference: 'TS-MLogB' });
    expect([missing.reference, missing.referenceNote]).toEqual(['EOFD-MLogB', 'TS-MLogB did not run in this experiment: compared with its default reference instead']);
  });

  it('Holm over the reference comparisons of the synthetic fixture, by hand', () => {
    const [oful, random] = fixtureSummaries().get('synthetic-k4')!.comparisons as [TestedComparison, TestedComparison];
    // Final regret: OFUL − EOFD = −0.5 every trial (std 0: p = 0); Random − EOFD = 15, 16.5, 18 (mean 16.5,
    // std 1.5, t = 11√3, df = 2: p = 1 − √(363/365) = 0.0027435). Family of m = 2: OFUL first, level
    // 1 − 0.05/2, p̃ = 0; Random second, level 0.95, p̃ = max(0, 1·0.0027435).
    expect(oful.regretTest).toMatchObject({ family: 2, p: 0, adjustedP: 0, rejected: true, verdict: 'lower' });
    expect(oful.regretTest.adjusted).toMatchObject({ low: -0.5, high: -0.5, level: 0.975 });
    close(random.regretTest.p, 1 - Math.sqrt(363 / 365));
    close(random.regretTest.adjustedP, random.regretTest.p);
    expect(random.regretTest.adjusted.level).toBe(0.95);
    close(random.regretTest.adjusted.low, 16.5 - T2 * 1.5 / Math.sqrt(3));
    expect(random.regretTest.verdict).toBe('higher');
    // Time: only OFUL vs EOFD (not against Random), a family of 1: ln(1/0.3), ln(1.2/0.4), ln(1.4/0.5) =
    // 1.2039728, 1.0986123, 1.0296194: mean ln 28/3 = 1.1107348, std 0.0878…, so Holm is the raw test: higher.
    expect(random.timeTest).toBeNull();
    expect(oful.timeTest!.family).toBe(1);
    close(oful.timeTest!.adjusted.mean, Math.log(28) / 3);
    close(oful.timeTest!.adjusted.low, oful.timeLogRatio!.low);
    expect(oful.timeTest!.verdict).toBe('higher');
  });

  it('EOFD-MLogB vs OFUL-MLogB on the synthetic fixture, by hand', () => {
    const c = fixtureSummaries().get('synthetic-k4')!.comparison!;
    // Regret per trial 5 − 4.5, 5.5 − 5, 6 − 5.5 = 0.5 each: mean 0.5, std 0, so the interval is [0.5, 0.5]
    // (unpaired, each policy's std is 0.5: pairing removes the trial-to-trial spread both share).
    expect(c.regret).toEqual({ n: 3, mean: 0.5, std: 0, low: 0.5, high: 0.5, level: 0.95 });
    // Regret ratios 10/9, 11/10, 12/11: ln = 0.1053605, 0.0953102, 0.0870114, mean ln(4/3)/3 = 0.0958940,
    // std 0.0091877, half-width T2·std/√3 = 0.0228235 → overhead 100·(exp(·) − 1) = 10.064% [7.580, 12.605].
    const regretLogs = [10 / 9, 1.1, 12 / 11].map(Math.log);
    const regretMean = Math.log(4 / 3) / 3;
    const regretStd = Math.sqrt(regretLogs.reduce((a, x) => a + (x - regretMean) ** 2, 0) / 2);
    close(c.regretLogRatio!.mean, regretMean);
    close(c.regretLogRatio!.std, regretStd, 1e-9);
    close(c.regretOverhead!.estimate, 100 * Math.expm1(regretMean));
    close(c.regretOverhead!.low, 100 * Math.expm1(regretMean - (T2 * regretStd) / Math.sqrt(3)), 1e-9);
    close(c.regretOverhead!.high, 100 * Math.expm1(regretMean + (T2 * regretStd) / Math.sqrt(3)), 1e-9);
    expect(c.regretOverhead!.low).toBeCloseTo(7.580428, 5);
    // Time ratios 0.3, 1/3, 5/14: ln = −1.2039728, −1.0986123, −1.0296194, mean −ln(28)/3 = −1.1107348,
    // std 0.0878…, half-width T2·std/√3 → reduction 100·(1 − exp(·)) = 67.068% [59.042, 73.522]: the per-trial
    // ratios cancel the time both policies share, where the old interval (difference ÷ OFUL's mean) gave [46.0, 87.4].
    const timeLogs = [0.3, 1 / 3, 5 / 14].map(Math.log);
    const timeMean = -Math.log(28) / 3;
    const timeStd = Math.sqrt(timeLogs.reduce((a, x) => a + (x - timeMean) ** 2, 0) / 2);
    close(c.timeLogRatio!.mean, timeMean);
    close(c.timeReduction!.estimate, -100 * Math.expm1(timeMean));
    close(c.timeReduction!.low, -100 * Math.expm1(timeMean + (T2 * timeStd) / Math.sqrt(3)), 1e-9);
    close(c.timeReduction!.high, -100 * Math.expm1(timeMean - (T2 * timeStd) / Math.sqrt(3)), 1e-9);
    expect(c.timeReduction!.low).toBeCloseTo(59.041517, 5);
    expect(c.timeReduction!.high).toBeCloseTo(73.522065, 5);
    expect([c.regretRatioNote, c.timeRatioNote]).toEqual([null, null]);
  });

  it('paired comparisons are antisymmetric; the Random check by hand', () => {
    const root = writeFixtureResults();
    const rows = readResults([path.join(root, 'synthetic-k4')])[0]!.summary;
    const of = (p: string) => rows.filter((r) => r.policy === p);
    const ab = pairedComparison(of('EOFD-MLogB'), of('OFUL-MLogB'))!;
    const ba = pairedComparison(of('OFUL-MLogB'), of('EOFD-MLogB'))!;
    close(ba.regret.mean, -ab.regret.mean);
    close(ba.timeLogRatio!.low, -ab.timeLogRatio!.high);
    // EOFD − Random per trial: −15, −16.5, −18: mean −16.5, std 1.5, t² = 363, p = 1 − √(363/365) = 0.0027435;
    // OFUL − Random: −15.5, −17, −18.5: mean −17, std 1.5, t² = 385.33, p = 1 − √(385.33/387.33) = 0.0025853.
    // Holm over the 2 learners: OFUL first (level 0.975), EOFD second (level 0.95): −16.5 ∓ 3.7262066 = [−20.226207, −12.773793].
    const [eofd, oful] = fixtureSummaries().get('synthetic-k4')!.randomCheck;
    expect([eofd!.policy, eofd!.random, eofd!.flagged, oful!.policy, oful!.flagged]).toEqual(['EOFD-MLogB', 'Random', false, 'OFUL-MLogB', false]);
    close(eofd!.regret.mean, -16.5);
    close(eofd!.test.p, 1 - Math.sqrt(363 / 365));
    close(oful!.test.p, 1 - Math.sqrt(385 + 1 / 3) / Math.sqrt(387 + 1 / 3), 1e-9);
    expect([oful!.test.adjusted.level, eofd!.test.adjusted.level]).toEqual([0.975, 0.95]);
    expect(eofd!.test.adjusted.low).toBeCloseTo(-20.226207, 5);
    expect(eofd!.test.adjusted.high).toBeCloseTo(-12.773793, 5);
    expect(eofd!.test.verdict).toBe('lower');
  });

  it('flags a learner whose final regret is not shown below Random', () => {
    const [eofd, oful, random] = SYNTHETIC_K4.policies as [FixturePolicy, FixturePolicy, FixturePolicy];
    // EOFD − Random = 5 − 4, 5.5 − 6, 6 − 5 = 1, −0.5, 1: mean 0.5, not below 0.
    const dir = writeExperiment(path.join(tempDir(), 'flag'), { ...SYNTHETIC_K4, policies: [eofd, oful, { ...random, finals: [4, 6, 5] }] });
    const checks = summarizeExperiment(readResults([dir])[0]!).randomCheck;
    expect(checks.map((c) => [c.policy, c.flagged])).toEqual([['EOFD-MLogB', true], ['OFUL-MLogB', true]]);
    expect(checks[0]!.test.verdict).toBe('inconclusive');
  });

  it('the MNIST fixture: 10.1% more regret, 51.9% less time (geometric means of the per-trial ratios)', () => {
    const e = fixtureSummaries().get('mnist')!;
    close(e.comparison!.regretOverheadPct!, 100 * (Math.cbrt(4 / 3) - 1));
    close(e.comparison!.timeReductionPct!, 100 * (1 - 1 / Math.cbrt(9))); // ratios 2/6, 3/6, 4/6
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

describe('Holm families count distinct decision sequences once', () => {
  /** A learner with these final regrets and 1 ms/round, deciding by `actionShift` (equal shifts: the same actions). */
  const learner = (name: string, finals: number[], actionShift: number): FixturePolicy => ({
    name, finals, selectMs: [1, 1, 1], updateMs: [0, 0, 0], stateBytes: 0, sketchError: [0, 0, 0], projections: [0, 0, 0], parameterError: null, actionShift,
  });
  /**
   * EOFD-MLogB 40 in every trial; OFUL-MLogB and OFUL-textbook 43.3, 45, 46.7 (textbook decides as OFUL-MLogB
   * when `textbookShift` is 1, its own way otherwise); Random 50. OFUL − Random = −6.7, −5, −3.3: mean −5,
   * std 1.7, t = 5√3/1.7 = 5.094 (df 2), p = 1 − t/√(t² + 2) = 0.0365; EOFD − Random = −10 with no spread, p = 0.
   */
  function experiment(textbookShift: number): ExperimentSummary {
    const dir = writeExperiment(path.join(tempDir(), 'dedupe'), {
      name: 'dedupe',
      environment: { type: 'synthetic', d: 400, K: 1 },
      horizon: 10,
      policies: [
        learner('EOFD-MLogB', [40, 40, 40], 0),
        learner('OFUL-MLogB', [43.3, 45, 46.7], 1),
        learner('OFUL-textbook', [43.3, 45, 46.7], textbookShift),
        learner('Random', [50, 50, 50], 3),
      ],
      variants: { 'OFUL-textbook': { policy: 'OFUL-MLogB', params: { oful_solver: 'textbook' } } },
    });
    return summarizeExperiment(readResults([dir])[0]!);
  }
  const t = 5 / (1.7 / Math.sqrt(3));
  const p = 1 - t / Math.sqrt(t * t + 2);

  it('the Random check: a copy of OFUL-MLogB that decides as it is not a third learner', () => {
    const e = experiment(1);
    expect(e.identical).toEqual([['OFUL-MLogB', 'OFUL-textbook']]);
    const [eofd, oful, textbook] = e.randomCheck;
    // Family of 2: EOFD first (p = 0); OFUL's adjusted p = max(0, 1·p) = p = 0.0365 < 0.05: rejected, below Random.
    expect([eofd!.test.family, oful!.test.family, textbook!.test.family]).toEqual([2, 2, 2]);
    expect(oful!.test.p).toBeCloseTo(p, 9);
    expect(oful!.test.adjustedP).toBeCloseTo(p, 9);
    expect(textbook!.test).toEqual(oful!.test);
    expect(e.randomCheck.map((c) => c.flagged)).toEqual([false, false, false]);
    // So the claim against the textbook label is judged (not "not judged" for a learner counted twice).
    const rows = evaluateClaims([e]).filter((r) => r.id === 'synthetic-binary');
    expect(rows.map((r) => r.verdict).includes('not judged')).toBe(false);
  });

  it('the same numbers from different decisions are distinct members: a family of 3, and Holm no longer rejects', () => {
    const e = experiment(2);
    expect(e.identical).toEqual([]);
    const [, oful, textbook] = e.randomCheck;
    // OFUL and textbook tie at p: ranks 2 and 3 of 3, adjusted p = max(2p, 1·p) = 2p = 0.0729 ≥ 0.05.
    expect([oful!.test.family, textbook!.test.family]).toEqual([3, 3]);
    expect(oful!.test.adjustedP).toBeCloseTo(2 * p, 9);
    expect([oful!.flagged, textbook!.flagged]).toEqual([true, true]);
  });

  it('the reported comparisons: final regret counts a pair of decision sequences once, time every pair', () => {
    // Against the reference EOFD-MLogB: OFUL-MLogB, OFUL-textbook and Random; OFUL and textbook are one regret test.
    const same = experiment(1).comparisons;
    expect(same.map((c) => [c.policy, c.regretTest.family, c.timeTest?.family ?? null])).toEqual([
      ['OFUL-MLogB', 2, 2],
      ['OFUL-textbook', 2, 2],
      ['Random', 2, null],
    ]);
    expect(same[1]!.regretTest).toEqual(same[0]!.regretTest);
    expect(experiment(2).comparisons.map((c) => c.regretTest.family)).toEqual([3, 3, 3]);
  });

  it('a policy against one that decided as it did is no test: in no family, verdict identical', () => {
    const dir = writeExperiment(path.join(tempDir(), 'self'), {
      name: 'self',
      environment: { type: 'synthetic', d: 400, K: 1 },
      horizon: 10,
      policies: [learner('EOFD-MLogB', [40, 40, 40], 0), learner('OFUL-MLogB', [43.3, 45, 46.7], 1), learner('OFUL-textbook', [43.3, 45, 46.7], 1), learner('Random', [50, 50, 50], 3)],
      variants: { 'OFUL-textbook': { policy: 'OFUL-MLogB', params: { oful_solver: 'textbook' } } },
    });
    const e = summarizeExperiment(readResults([dir])[0]!, { reference: 'OFUL-MLogB' });
    // EOFD − OFUL = −3.3, −5, −6.7 and Random − OFUL = 6.7, 5, 3.3: both p = 0.0365, a family of 2, so
    // Holm's adjusted p = 2p = 0.0729 for both; OFUL-textbook − OFUL = 0 in every trial is in no family.
    expect(e.comparisons.map((c) => [c.policy, c.regretTest.family, c.regretTest.verdict, c.regretTest.rejected])).toEqual([
      ['EOFD-MLogB', 2, 'inconclusive', false],
      ['OFUL-textbook', 0, 'identical', false],
      ['Random', 2, 'inconclusive', false],
    ]);
    expect(e.comparisons[0]!.regretTest.adjustedP).toBeCloseTo(2 * p, 9);
  });

  it('holmTests: members with one key share the test made by the first of them', () => {
    const x = pairedComparison(
      [0, 1, 2].map((trial) => ({ policy: 'A', trial, finalRegret: [1, 2, 4][trial]! }) as SummaryRow),
      [0, 1, 2].map((trial) => ({ policy: 'B', trial, finalRegret: 0 }) as SummaryRow),
    )!.regret;
    const [a, b, c] = holmTests([x, x, x], ['k', 'k', 'j']);
    expect([a!.family, b!.family, c!.family]).toEqual([2, 2, 2]);
    expect(b).toEqual(a);
    expect(holmTests([x, x, x]).map((r) => r.family)).toEqual([3, 3, 3]);
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

describe('a run in progress: partial units', () => {
  it('are listed with their rounds so far, regret and time there, and change no number, comparison or curve', () => {
    const dir = writeExperiment(path.join(tempDir(), 'synthetic-k4'), SYNTHETIC_K4);
    makeInProgress(dir, ['EOFD-MLogB/0', 'EOFD-MLogB/1', 'OFUL-MLogB/0', 'OFUL-MLogB/1', 'Random/0', 'Random/1']);
    // OFUL-MLogB trial 2 (final 5.5, 0.8 + 0.6 ms a round) has written 10 rounds.
    const file = path.join(dir, 'OFUL-MLogB', 'trial-2.csv.partial');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').slice(0, 11).join('\n') + '\n');
    const [data] = readResults([dir], { inProgress: true });
    const summary = summarizeExperiment(data!);
    expect(summary.partial.map(({ policy, trial, rounds }) => ({ policy, trial, rounds }))).toEqual([
      { policy: 'EOFD-MLogB', trial: 2, rounds: 50 },
      { policy: 'OFUL-MLogB', trial: 2, rounds: 10 },
      { policy: 'Random', trial: 2, rounds: 50 },
    ]);
    const oful = summary.partial[1]!;
    close(oful.cumRegret, (5.5 * 10) / 50);
    close(oful.roundMs, 0.8 + 0.6);
    // Without the partial units every other part of the summary is the same.
    const { partial, ...rest } = summary;
    const { partial: none, ...without } = summarizeExperiment({ ...data!, partial: [] });
    expect(none).toEqual([]);
    expect(partial).toHaveLength(3);
    expect(rest).toEqual(without);
    expect(rest.comparisons.every((c) => c.trials === 2)).toBe(true);
  });
});
