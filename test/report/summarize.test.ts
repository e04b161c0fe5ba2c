import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../src/results/read.js';
import { mean, sampleStd } from '../../src/stats/descriptive.js';
import {
  comparePolicies,
  downsampleIndices,
  meanStd,
  overheadPct,
  reductionPct,
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

  it('percentages are null when the baseline is 0; std of one value is 0', () => {
    expect(overheadPct(1, 0)).toBeNull();
    expect(reductionPct(1, 0)).toBeNull();
    expect(sampleStd([3])).toBe(0);
    expect(mean([])).toBeNaN();
  });
});

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
    expect(meanStd([5, 5.5, 6])).toEqual({ mean: 5.5, std: 0.5 });
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
    // overhead (5.5 − 5)/5·100 = 10%; reduction (1 − 0.4/1.2)·100 = 66.67%
    close(e.comparison!.regretOverheadPct!, 10);
    close(e.comparison!.timeReductionPct!, 200 / 3);
  });

  it('the MNIST fixture: 10% more regret, 50% less time', () => {
    const e = fixtureSummaries().get('mnist')!;
    close(e.comparison!.regretOverheadPct!, 10);
    close(e.comparison!.timeReductionPct!, 50);
    expect(e.policies[1]!.roundMs).toEqual({ mean: 6, std: 0 });
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
    }
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
