import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration, progressMode } from '../../src/cli/progress.js';
import type { RunPlan, UnitRef } from '../../src/experiment/runner.js';
import type { ResolvedExperiment } from '../../src/experiment/setup.js';
import type { TrialSummary } from '../../src/results/records.js';

function sink(isTTY: boolean) {
  const stream = { text: '', isTTY, write(chunk: string) { stream.text += chunk; return true; } };
  return stream;
}

const resolved = {
  config: { name: 'tiny', horizon: 10, trials: 2, policies: ['EOFD-MLogB', 'Random'] },
  environment: { type: 'synthetic', d: 6, K: 2, reward: [0, 0.5, 1] },
  derived: { lambda: 1, eta: 2, m: 3, delta: 0.1, beta: 'order', beta_scale: 1, alpha: 4, lambda0: 5, eta0: 6, l: 0.75, e: 0.75, D: 1, S: 2 },
  split: 'report',
} as unknown as ResolvedExperiment;

const unit = (policy: string, trial: number): UnitRef => ({ experiment: 'tiny', policy, trial, horizon: 10 });
const plan: RunPlan = {
  jobs: 1,
  experiments: [{ resolved, dir: 'out/tiny', resumed: true, finished: [unit('Random', 0)], pending: [unit('EOFD-MLogB', 0), unit('EOFD-MLogB', 1), unit('Random', 1)] }],
};
const summary = { finalRegret: 1.5, meanRoundMs: 0.25 } as TrialSummary;

describe('progress: bad arguments', () => {
  it('formatDuration clamps negative and rounds', () => {
    expect(formatDuration(-3)).toBe('0s');
    expect(formatDuration(59.4)).toBe('59s');
    expect(formatDuration(185)).toBe('3m05s');
    expect(formatDuration(7620)).toBe('2h07m');
  });
});

describe('progress', () => {
  it('chooses bars on a TTY, lines elsewhere, nothing when quiet', () => {
    expect(progressMode({ write: () => true, isTTY: true }, false)).toBe('bars');
    expect(progressMode({ write: () => true }, false)).toBe('lines');
    expect(progressMode({ write: () => true, isTTY: true }, true)).toBe('quiet');
  });

  it('prints the derived values, one line per finished unit and every failure in lines mode', () => {
    const out = sink(false);
    const { events } = createProgress('lines', out);
    events.onPlan?.(plan);
    events.onUnitDone?.(unit('EOFD-MLogB', 0), summary);
    events.onUnitFailed?.(unit('EOFD-MLogB', 1), 'tiny: EOFD-MLogB, trial 1, round 4: boom');
    expect(out.text.split('\n')).toEqual([
      expect.stringMatching(/^tiny: synthetic, d = 6, K = 2, T = 10, 2 trials, .*λ = 1, η = 2, m = 3, δ = 0\.1, β = order × 1$/),
      'tiny: resuming out/tiny: 1 of 4 units already finished',
      'running 3 units (policy × trial) in this process, 1 skipped as finished',
      '[1/3] tiny/EOFD-MLogB trial 0: final regret 1.5, 0.25 ms/round',
      'eofd run: tiny: EOFD-MLogB, trial 1, round 4: boom',
      '',
    ]);
  });

  it('prints only failures when quiet', () => {
    const out = sink(false);
    const { events } = createProgress('quiet', out);
    events.onPlan?.(plan);
    events.onUnitDone?.(unit('EOFD-MLogB', 0), summary);
    events.onUnitFailed?.(unit('Random', 1), 'tiny: Random, trial 1, round 2: boom');
    expect(out.text).toBe('eofd run: tiny: Random, trial 1, round 2: boom\n');
  });

  it('draws one bar per experiment and policy, counting finished units, with rounds/s', () => {
    const out = sink(true);
    const reporter = createProgress('bars', out);
    reporter.events.onPlan?.(plan);
    reporter.events.onUnitStart?.(unit('EOFD-MLogB', 0));
    reporter.events.onProgress?.(unit('EOFD-MLogB', 0), 4);
    reporter.events.onUnitDone?.(unit('EOFD-MLogB', 0), summary);
    reporter.stop();
    expect(out.text).toMatch(/tiny EOFD-MLogB \|.*\| +50% \| 10\/20 rounds \| [\d.]+ rounds\/s \| ETA \S+/);
    expect(out.text).toMatch(/tiny Random +\|.*\| +50% \| 10\/20 rounds/);
  });
});
