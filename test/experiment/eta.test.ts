/**
 * Estimates of a reproduction's later stages (eta.ts): round rates measured from a run's events (a
 * pool's units alone, a lock-step trial's wall time split among its units), and a timed run's seconds
 * from them, a label not measured scaled by operations from the nearest measured relative (a cost twin,
 * the same label in another experiment).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { measuringRates, RoundRates, runShape, scaledFromNearest, timedRunSeconds, unitSeconds, type RunShape } from '../../src/experiment/eta.js';
import type { RunPlan, UnitRef } from '../../src/experiment/runner.js';
import { resolveExperiment } from '../../src/experiment/setup.js';
import { unitNeeds } from '../../src/experiment/sizing.js';
import type { TrialSummary } from '../../src/results/records.js';

afterEach(() => vi.restoreAllMocks());

const unit = (policy: string, trial: number, horizon = 100): UnitRef => ({ experiment: 'e', policy, trial, horizon });
const plan = (lockStep: boolean): RunPlan => ({ jobs: lockStep ? 1 : 2, lockStep, experiments: [] });
const summary = (meanRoundMs: number): TrialSummary => ({ meanRoundMs }) as TrialSummary;
/** performance.now() returns the times given, in order. */
const clock = (...ms: number[]): void => {
  const spy = vi.spyOn(performance, 'now');
  for (const t of ms) spy.mockReturnValueOnce(t);
};

describe('round rates: bad arguments', () => {
  it('a non-finite or negative measure is ignored', () => {
    const rates = new RoundRates();
    rates.record('e', 'A', NaN, true);
    rates.record('e', 'A', -1, true);
    expect(rates.rate('e', 'A')).toBeNull();
  });
});

describe('round rates from run events', () => {
  it("a lock-step trial's wall time: each unit its own time plus an even share of the rest", () => {
    const rates = new RoundRates();
    const events = measuringRates(rates, undefined);
    events.onPlan?.(plan(true));
    clock(0, 0, 1000, 1000);
    events.onUnitStart?.(unit('A', 0));
    events.onUnitStart?.(unit('B', 0));
    events.onUnitDone?.(unit('A', 0), summary(4));
    expect(rates.rate('e', 'A')).toBeNull(); // the trial is not finished
    events.onUnitDone?.(unit('B', 0), summary(2));
    // W/T = 10 ms a round; own 4 + 2 ms; the other 4 ms shared: A 6 ms, B 4 ms.
    expect(rates.rate('e', 'A')).toBeCloseTo(0.006, 12);
    expect(rates.rate('e', 'B')).toBeCloseTo(0.004, 12);
  });

  it("a pool's unit: its wall time over T, under the experiment name given; a timed measure replaces it, not the reverse", () => {
    const changes: number[] = [];
    const rates = new RoundRates(() => changes.push(1));
    const events = measuringRates(rates, undefined, () => 'grid-of-e');
    events.onPlan?.(plan(false));
    clock(0, 500);
    events.onUnitStart?.(unit('A', 0));
    events.onUnitDone?.(unit('A', 0), summary(1));
    expect(rates.rate('grid-of-e', 'A')).toBeCloseTo(0.005, 12);
    rates.record('grid-of-e', 'A', 0.002, true);
    rates.record('grid-of-e', 'A', 0.009, false);
    expect(rates.rate('grid-of-e', 'A')).toBe(0.002);
    expect(changes).toHaveLength(2);
  });

  it('a unit continued from its checkpoint: its wall time over the rounds it played, not over T', () => {
    const rates = new RoundRates();
    const events = measuringRates(rates, undefined);
    events.onPlan?.(plan(false));
    clock(0, 400);
    events.onUnitStart?.(unit('A', 0));
    events.onUnitResumed?.(unit('A', 0), 60);
    events.onUnitDone?.(unit('A', 0), summary(1));
    expect(rates.rate('e', 'A')).toBeCloseTo(0.01, 12); // 0.4 s for rounds 61..100
  });

  it('passes every event on', () => {
    const seen: string[] = [];
    const events = measuringRates(new RoundRates(), {
      onPlan: () => seen.push('plan'),
      onUnitStart: () => seen.push('start'),
      onUnitDone: () => seen.push('done'),
      onUnitFailed: () => seen.push('failed'),
      onProgress: () => seen.push('progress'),
    });
    events.onPlan?.(plan(true));
    events.onUnitStart?.(unit('A', 0));
    events.onProgress?.(unit('A', 0), 3);
    events.onUnitDone?.(unit('A', 0), summary(1));
    events.onUnitFailed?.(unit('B', 0), 'boom');
    expect(seen).toEqual(['plan', 'start', 'progress', 'done', 'failed']);
  });
});

describe('a timed run from the rates', () => {
  const text = [
    'name: e',
    'environment: {type: synthetic, d: 40, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}',
    'horizon: 100',
    'trials: 3',
    'seed: 0',
    'policies: [EOFD-MLogB, OFUL-MLogB, {policy: OFUL-MLogB, label: OFUL-textbook, params: {oful_solver: textbook}}, Random]',
    'params: {S: 2, m: 8, beta: order}',
    '',
  ].join('\n');

  it('trials × T × the sum of the labels’ rates; a cost twin scaled from its measured twin; unknown while a label is', () => {
    const experiment = resolveExperiment(parseConfig(text, 'e.yaml'));
    const shape = runShape(experiment);
    expect(shape).toMatchObject({ experiment: 'e', trials: 3, horizon: 100 });
    const rates = new RoundRates();
    rates.record('e', 'EOFD-MLogB', 0.001, true);
    rates.record('e', 'OFUL-MLogB', 0.002, true);
    expect(timedRunSeconds([shape], rates)).toBeNull(); // Random unknown
    rates.record('e', 'Random', 0.0001, true);
    const flops = (label: string) => unitNeeds(experiment).find((n) => n.policy === label)!.flops;
    const textbook = 0.002 * (flops('OFUL-textbook') / flops('OFUL-MLogB'));
    expect(textbook).toBeGreaterThan(0.002);
    expect(timedRunSeconds([shape], rates)).toBeCloseTo(3 * 100 * (0.001 + 0.002 + textbook + 0.0001), 9);
    rates.record('e', 'OFUL-textbook', 0.05, true);
    expect(timedRunSeconds([shape], rates)).toBeCloseTo(3 * 100 * (0.001 + 0.002 + 0.05 + 0.0001), 9);
  });
});

describe('a label not measured in its experiment', () => {
  const shape = (experiment: string, flops: Record<string, number>): RunShape => ({
    experiment,
    trials: 2,
    horizon: 100,
    labels: Object.entries(flops).map(([label, totalFlops]) => ({ label, policy: label === 'B-twin' ? 'B' : label, totalFlops })),
  });

  it('is scaled by operations from the measure nearest to it in operations, lock-step measures preferred', () => {
    expect(scaledFromNearest([], 10)).toBeNull();
    expect(scaledFromNearest([{ seconds: 1, flops: 10 }], 0)).toBeNull();
    // 40 is nearer 100 than 1,000 is (log ratios 0.92 and 2.3): 4 s × 100/40.
    expect(scaledFromNearest([{ seconds: 4, flops: 40 }, { seconds: 50, flops: 1000 }], 100)).toBeCloseTo(10, 12);
    expect(scaledFromNearest([{ seconds: 4, flops: 40 }, { seconds: 50, flops: 1000, timed: true }], 100)).toBeCloseTo(5, 12);
  });

  it('takes a twin in its experiment, else the same label in the experiment nearest in operations, else the same policy', () => {
    const shapes = new Map([
      ['big', shape('big', { A: 1e6, B: 1e4 })],
      ['near', shape('near', { A: 2e3, C: 1e3 })],
      ['new', shape('new', { A: 1e3, B: 1e3, 'B-twin': 4e3 })],
    ]);
    const target = shapes.get('new') as RunShape;
    const rates = new RoundRates();
    rates.record('big', 'A', 1, true); // 100 s a unit of 1e6 operations
    rates.record('near', 'A', 0.02, true); // 2 s a unit of 2e3
    expect(unitSeconds(target, 'A', rates, shapes)).toBeCloseTo(1, 12); // from near's A: 2 s × 1e3/2e3
    expect(unitSeconds(target, 'B', rates, shapes)).toBeNull(); // B measured nowhere
    rates.record('big', 'B', 0.01, true); // 1 s a unit of 1e4
    expect(unitSeconds(target, 'B', rates, shapes)).toBeCloseTo(0.1, 12);
    expect(unitSeconds(target, 'B-twin', rates, shapes)).toBeCloseTo(0.4, 12); // policy B elsewhere: big's B × 4e3/1e4
    rates.record('new', 'B', 0.003, true); // 0.3 s a unit here
    expect(unitSeconds(target, 'B-twin', rates, shapes)).toBeCloseTo(1.2, 12); // its twin here, × 4
  });
});
