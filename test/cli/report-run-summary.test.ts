/**
 * The run's closing summary (src/cli/run-summary.ts) on fixture results folders: each policy against
 * the reference with its Holm-adjusted interval and verdict, never a bare regret overhead, and every
 * learner not shown below Random flagged with its interval.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRunSummary, summarizeRun } from '../../src/cli/run-summary.js';
import type { RunResult } from '../../src/experiment/runner.js';
import type { ResolvedExperiment } from '../../src/experiment/setup.js';
import { SYNTHETIC_K4, tempDir, writeExperiment, type FixtureExperiment, type FixturePolicy } from '../report/fixture.js';

/** A finished run of the given fixture experiments (each written to its own folder). */
function run(...experiments: FixtureExperiment[]): RunResult {
  const root = tempDir();
  return {
    experiments: experiments.map((e) => ({
      name: e.name,
      dir: writeExperiment(path.join(root, e.name), e),
      resolved: {} as ResolvedExperiment,
      complete: true,
      failures: [],
    })),
    interrupted: false,
    unitsRun: 9,
    unitsSkipped: 0,
    unitsFailed: 0,
    jobs: 1,
  };
}

const [EOFD, OFUL, RANDOM] = SYNTHETIC_K4.policies as [FixturePolicy, FixturePolicy, FixturePolicy];

describe('run summary', () => {
  it('compares each policy with the first learner: Holm-adjusted intervals and verdicts (numbers in summarize.test.ts)', () => {
    const text = formatRunSummary(summarizeRun(run(SYNTHETIC_K4), '/out'));
    expect(text).toContain(
      'synthetic-k4: against EOFD-MLogB (reference), paired by trial, n = 3; Holm-adjusted 95% intervals over the 2 comparisons',
    );
    // OFUL − EOFD = −0.5 every trial; time ratio 28^(1/3) = 3.04 [2.44, 3.78]; Random − EOFD = 16.5 [12.8, 20.2].
    expect(text).toContain(
      "  OFUL-MLogB: final regret −0.500, Holm-adjusted CI [−0.500, −0.500] (97.5%), lower; " +
        "time per round ×3.04 of EOFD-MLogB's, Holm-adjusted CI [2.44, 3.78] (95%), higher\n",
    );
    expect(text).toContain('  Random: final regret 16.5, Holm-adjusted CI [12.8, 20.2] (95%), higher\n');
    expect(text).not.toContain('regret overhead');
    expect(text).not.toContain('warning');
  });

  it('an inconclusive regret difference is printed with its interval and the word inconclusive', () => {
    // OFUL − EOFD regret: 4.5 − 6, 5 − 3, 5.5 − 7 = −1.5, 2, −1.5: mean −0.333, std 2.0207; Random − EOFD has
    // the smaller p, so OFUL-MLogB is second of 2 (level 95%): −0.333 ∓ 4.3026527·2.0207/√3 = [−5.35, 4.69].
    const mixed = { ...SYNTHETIC_K4, name: 'mixed', policies: [{ ...EOFD, finals: [6, 3, 7] }, OFUL, RANDOM] };
    const text = formatRunSummary(summarizeRun(run(mixed), '/out'));
    expect(text).toContain('  OFUL-MLogB: final regret −0.33, Holm-adjusted CI [−5.35, 4.69] (95%), inconclusive;');
  });

  it('flags a learner whose final regret is not shown below Random, with its interval', () => {
    // EOFD − Random = 5 − 4, 5.5 − 6, 6 − 5 = 1, −0.5, 1: mean 0.5, std √0.75, 0.5 ∓ 4.3026527·0.5 = [−1.65, 2.65];
    // OFUL − Random = 0.5, −1, 0.5: mean 0. Holm over the 2 learners rejects neither, so both keep the first
    // level 1 − 0.05/2: t_{0.9875,2} = 6.2053468, EOFD 0.5 ∓ 3.10 = [−2.60, 3.60], OFUL [−3.10, 3.10].
    const close = { ...SYNTHETIC_K4, name: 'close', policies: [EOFD, OFUL, { ...RANDOM, finals: [4, 6, 5] }] };
    const text = formatRunSummary(summarizeRun(run(close), '/out'));
    expect(text).toContain(
      "close: warning: EOFD-MLogB's final regret is not shown below Random's: difference 0.50, 95% CI [−1.65, 2.65]; " +
        'Holm-adjusted over 2 learners [−2.60, 3.60] (97.5%)\n',
    );
    expect(text).toContain(
      "close: warning: OFUL-MLogB's final regret is not shown below Random's: difference 0.00, 95% CI [−2.15, 2.15]; " +
        'Holm-adjusted over 2 learners [−3.10, 3.10] (97.5%)\n',
    );
  });

  it('the JSON document has the comparisons, the Random check and the EOFD-MLogB/OFUL-MLogB time ratio', () => {
    const summary = summarizeRun(run(SYNTHETIC_K4), '/out');
    const [e] = JSON.parse(JSON.stringify(summary)).experiments;
    expect(e.reference).toBe('EOFD-MLogB');
    expect(e.comparisons.map((c: { policy: string }) => c.policy)).toEqual(['OFUL-MLogB', 'Random']);
    expect(e.randomCheck.map((c: { flagged: boolean }) => c.flagged)).toEqual([false, false]);
    // Geometric mean of 0.3/1, 0.4/1.2, 0.5/1.4 = 28^(−1/3)
    expect(e.comparison.timeRatio).toBeCloseTo(1 / Math.cbrt(28), 12);
  });
});
