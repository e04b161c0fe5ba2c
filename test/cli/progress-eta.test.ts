/**
 * The run's ETA (progress.ts Tally) when a trial's units run together in lock-step: one thread plays
 * them round by round, so their time is counted once, not once per unit.
 */
import { describe, expect, it } from 'vitest';
import { Tally } from '../../src/cli/progress.js';
import type { RunPlan, UnitRef } from '../../src/experiment/runner.js';
import type { ResolvedExperiment } from '../../src/experiment/setup.js';

const POLICIES = ['EOFD-MLogB', 'OFUL-MLogB', 'Random'];
const T = 100;
const unit = (policy: string, trial: number): UnitRef => ({ experiment: 'e', policy, trial, horizon: T });

function plan(lockStep: boolean, trials = 2): RunPlan {
  const pending = Array.from({ length: trials }, (_, trial) => POLICIES.map((p) => unit(p, trial))).flat();
  return { jobs: 1, lockStep, experiments: [{ resolved: {} as ResolvedExperiment, dir: 'out/e', resumed: false, finished: [], pending }] };
}

/** Trial `trial` in lock-step from `from` ms, 10 ms a round of the three policies, up to round `to`. */
function play(tally: Tally, trial: number, from: number, to: number): void {
  for (const p of POLICIES) tally.start(unit(p, trial), from);
  for (let r = 10; r <= to; r += 10) for (const p of POLICIES) tally.progress(unit(p, trial), r, from + 10 * r);
}

describe('ETA of a lock-step run: bad arguments', () => {
  it('no rate before any round', () => {
    const tally = new Tally();
    tally.plan(plan(true));
    expect(tally.remainingRunSeconds(0)).toBeNull();
  });
});

describe('ETA of a lock-step run', () => {
  it("halfway through the first trial: the trial's rounds left once, the next trial at the rounds' rate", () => {
    const tally = new Tally();
    tally.plan(plan(true));
    play(tally, 0, 0, 50);
    // 50 rounds left at 10 ms (0.5 s), then 300 unit-rounds at 150 unit-rounds per 0.5 s (1 s): 1.5 s,
    // the time a trial takes (1 s) times the 1.5 trials left.
    expect(tally.remainingRunSeconds(500)).toBeCloseTo(1.5, 9);
  });

  it("after the first trial: the next trial takes as long as it did", () => {
    const tally = new Tally();
    tally.plan(plan(true, 3));
    play(tally, 0, 0, 100);
    for (const p of POLICIES) tally.finish(unit(p, 0), false, 1000);
    expect(tally.remainingRunSeconds(1000)).toBeCloseTo(2, 9);
    play(tally, 1, 1000, 40);
    // Trial 1: 60 rounds left (0.6 s); trial 2: the mean of trial 0 (1 s) and trial 1's estimate (1 s).
    expect(tally.remainingRunSeconds(1400)).toBeCloseTo(1.6, 9);
  });

  it('counted unit by unit, the same reports would give three times the truth (what a lock-step plan avoids)', () => {
    const tally = new Tally();
    tally.plan(plan(false));
    play(tally, 0, 0, 50);
    expect(tally.remainingRunSeconds(500)).toBeCloseTo(4.5, 9);
  });

  it('with later work announced (a reproduction\'s later stages), the ETA is the whole command\'s, then the stage\'s', () => {
    const tally = new Tally();
    tally.plan(plan(true));
    play(tally, 0, 0, 50);
    expect(tally.eta(500)).toBe('2s');
    tally.later = 600;
    expect(tally.eta(500)).toBe('10m02s (this stage 2s)');
    tally.later = null;
    expect(tally.eta(500)).toBe('2s + later stages');
    tally.plan(plan(true));
    expect(tally.later).toBeNull(); // kept across plans
  });
});
