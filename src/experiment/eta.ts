/**
 * How long the stages of a reproduction that have not run yet will take, from the round rates its
 * stages measured: c(e, label), the wall seconds one round of a unit of experiment e and policy label
 * takes alone. A pool stage (the grid, units side by side on as many threads as cores) measures it as
 * a unit's wall time over T; a lock-step stage (trials one after another, their units in turns) splits
 * each trial's wall time W among its k units: c = (own select + update time) + (W/T − Σ own times)/k,
 * the environments' and the CSVs' share spread evenly. A timed stage then takes
 * Σ_e trials_e · T_e · Σ_label c(e, label). A label no stage measured (a cost twin such as OFUL-textbook,
 * which the grid does not run) takes a measured label of the same policy's rate, scaled by the ratio of
 * their estimated operations a round (PolicyDescriptor.cost, sizing.ts unitNeeds).
 */
import { entryOf, policyLabels } from '../config/schema.js';
import type { RunEvents, UnitRef } from './runner.js';
import type { ResolvedExperiment } from './setup.js';
import { unitNeeds } from './sizing.js';

interface Rate {
  sum: number;
  count: number;
  /** Measured in a lock-step (timed) stage: preferred to a pool's measure. */
  timed: boolean;
}

/** c(e, label) as measured so far (see the module comment). */
export class RoundRates {
  private readonly rates = new Map<string, Rate>();

  constructor(private readonly onChange: () => void = () => {}) {}

  /** A measure of c(experiment, label) in seconds; a timed one replaces earlier pool measures. */
  record(experiment: string, label: string, seconds: number, timed: boolean): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    const key = `${experiment}\u0000${label}`;
    const rate = this.rates.get(key);
    if (rate === undefined || (timed && !rate.timed)) this.rates.set(key, { sum: seconds, count: 1, timed });
    else if (timed === rate.timed) {
      rate.sum += seconds;
      rate.count++;
    } else return;
    this.onChange();
  }

  /** The mean measure of c(experiment, label), or null. */
  rate(experiment: string, label: string): number | null {
    const rate = this.rates.get(`${experiment}\u0000${label}`);
    return rate === undefined ? null : rate.sum / rate.count;
  }
}

/**
 * `events` with the rates of the run's finished units recorded into `rates`, under the experiment
 * name `experimentOf(unit)` gives (a grid point's units count for their grid's experiment).
 */
export function measuringRates(rates: RoundRates, events: RunEvents | undefined, experimentOf: (unit: UnitRef) => string = (u) => u.experiment): RunEvents {
  let lockStep = false;
  const started = new Map<string, number>();
  /** Lock-step trials: when they started, how many units are still open, and the finished ones' own ms a round. */
  const trials = new Map<string, { started: number; open: number; done: { unit: UnitRef; ms: number }[] }>();
  const unitKey = (u: UnitRef): string => `${u.experiment}\u0000${u.policy}\u0000${u.trial}`;
  const trialKey = (u: UnitRef): string => `${u.experiment}\u0000${u.trial}`;
  const closeTrial = (unit: UnitRef, now: number): void => {
    const trial = trials.get(trialKey(unit));
    if (trial === undefined || trial.open > 0) return;
    trials.delete(trialKey(unit));
    if (trial.done.length === 0) return;
    const perRound = (now - trial.started) / 1000 / unit.horizon;
    const own = trial.done.reduce((sum, d) => sum + d.ms / 1000, 0);
    const shared = Math.max(0, perRound - own) / trial.done.length;
    for (const d of trial.done) rates.record(experimentOf(d.unit), d.unit.policy, d.ms / 1000 + shared, true);
  };
  return {
    ...events,
    onPlan: (plan) => {
      lockStep = plan.lockStep;
      events?.onPlan?.(plan);
    },
    onUnitStart: (unit) => {
      const now = performance.now();
      started.set(unitKey(unit), now);
      if (lockStep) {
        const trial = trials.get(trialKey(unit)) ?? { started: now, open: 0, done: [] };
        trial.open++;
        trials.set(trialKey(unit), trial);
      }
      events?.onUnitStart?.(unit);
    },
    onUnitDone: (unit, summary) => {
      const now = performance.now();
      const start = started.get(unitKey(unit));
      started.delete(unitKey(unit));
      if (lockStep) {
        const trial = trials.get(trialKey(unit));
        if (trial !== undefined) {
          trial.open--;
          trial.done.push({ unit, ms: summary.meanRoundMs });
          closeTrial(unit, now);
        }
      } else if (start !== undefined) {
        rates.record(experimentOf(unit), unit.policy, (now - start) / 1000 / unit.horizon, false);
      }
      events?.onUnitDone?.(unit, summary);
    },
    onUnitFailed: (unit, message, stack) => {
      started.delete(unitKey(unit));
      const trial = trials.get(trialKey(unit));
      if (trial !== undefined) {
        trial.open--;
        closeTrial(unit, performance.now());
      }
      events?.onUnitFailed?.(unit, message, stack);
    },
  };
}

/** What a timed run's estimate needs of an experiment (kept instead of the resolved experiment and its data). */
export interface RunShape {
  experiment: string;
  trials: number;
  horizon: number;
  /** Every label, its policy and its estimated operations a round (sizing.ts unitNeeds). */
  labels: { label: string; policy: string; flops: number }[];
}

export function runShape(experiment: ResolvedExperiment): RunShape {
  const { config } = experiment;
  const needs = unitNeeds(experiment);
  return {
    experiment: config.name,
    trials: config.trials,
    horizon: config.horizon,
    labels: policyLabels(config).map((label) => ({ label, policy: entryOf(config, label).policy, flops: needs.find((n) => n.policy === label)?.flops ?? NaN })),
  };
}

/** c(e, label) from `rates`, or by a measured label of the same policy scaled by their operations a round; null when neither is known. */
function labelRate(shape: RunShape, label: RunShape['labels'][number], rates: RoundRates): number | null {
  const measured = rates.rate(shape.experiment, label.label);
  if (measured !== null) return measured;
  for (const twin of shape.labels) {
    const rate = rates.rate(shape.experiment, twin.label);
    if (twin.label === label.label || rate === null || twin.policy !== label.policy) continue;
    const scale = label.flops / twin.flops;
    if (Number.isFinite(scale) && scale > 0) return rate * scale;
  }
  return null;
}

/** Seconds a timed (lock-step) run of `shapes` takes at `rates`, or null while some label's rate is unknown. */
export function timedRunSeconds(shapes: readonly RunShape[], rates: RoundRates): number | null {
  let seconds = 0;
  for (const shape of shapes) {
    for (const label of shape.labels) {
      const c = labelRate(shape, label, rates);
      if (c === null) return null;
      seconds += shape.trials * shape.horizon * c;
    }
  }
  return seconds;
}
