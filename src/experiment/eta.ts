/**
 * Round rates and the estimates built on them (the ETA rule, docs/guide.md "Progress and output"):
 * c(e, label), the wall seconds one round of a unit of experiment e and policy label
 * takes. A pool stage (units side by side on as many threads as cores) measures it as a unit's wall
 * time over T; a lock-step run (trials one after another, their units in turns) splits each trial's
 * wall time W among its k units: c = (own select + update time) + (W/T − Σ own times)/k, the
 * environments' and the CSVs' share spread evenly (a unit continued from its checkpoint after round r:
 * over the T − r rounds it played). A unit of (e, label) then takes c·T.
 * A label not measured in its experiment takes a measured relative's time, scaled by the ratio of their
 * estimated operations over the whole unit (PolicyDescriptor.cost, sizing.ts unitNeeds): a twin of the
 * same policy in the same experiment (a cost twin such as OFUL-textbook, which the grid does not run),
 * else the same label in another experiment, else the same policy there, each from the measure nearest in
 * operations (lock-step measures preferred); the a-priori cost model is thus only a ratio between measured rates, never a
 * time of its own. A timed stage takes Σ_e trials_e · Σ_label c(e, label)·T_e.
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

/** One measured c(experiment, label). */
export interface MeasuredRate {
  experiment: string;
  label: string;
  seconds: number;
  timed: boolean;
}

/** c(e, label) as measured so far (see the module comment). */
export class RoundRates {
  private readonly rates = new Map<string, Rate & { experiment: string; label: string }>();

  constructor(private readonly onChange: () => void = () => {}) {}

  /** A measure of c(experiment, label) in seconds; a timed one replaces earlier pool measures. */
  record(experiment: string, label: string, seconds: number, timed: boolean): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    const key = `${experiment}\u0000${label}`;
    const rate = this.rates.get(key);
    if (rate === undefined || (timed && !rate.timed)) this.rates.set(key, { experiment, label, sum: seconds, count: 1, timed });
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

  /** Every measured c(e, label), as means. */
  all(): MeasuredRate[] {
    return [...this.rates.values()].map((r) => ({ experiment: r.experiment, label: r.label, seconds: r.sum / r.count, timed: r.timed }));
  }
}

/**
 * Records c(e, label) from a run's unit events as they happen at `now` (ms, performance.now()): a
 * pool's finished unit alone, a lock-step trial once its last unit ended (see the module comment).
 * Used by measuringRates and by the progress display's estimate (cli/progress.ts Tally).
 */
export class RateMeter {
  private lockStep = false;
  private readonly started = new Map<string, number>();
  /** Units continued from a checkpoint: the round they continued after (their wall time covers the rounds after it). */
  private readonly from = new Map<string, number>();
  /** Lock-step trials: when they started, how many units are still open, and the finished ones' own ms a round and first round. */
  private readonly trials = new Map<string, { started: number; open: number; done: { unit: UnitRef; ms: number; from: number }[] }>();

  constructor(
    private readonly rates: RoundRates,
    private readonly experimentOf: (unit: UnitRef) => string = (u) => u.experiment,
  ) {}

  plan(lockStep: boolean): void {
    this.lockStep = lockStep;
    this.started.clear();
    this.from.clear();
    this.trials.clear();
  }

  /** `unit` continues from its checkpoint after `rounds` rounds (RunEvents.onUnitResumed). */
  resumed(unit: UnitRef, rounds: number): void {
    this.from.set(unitKey(unit), rounds);
  }

  start(unit: UnitRef, now: number): void {
    this.started.set(unitKey(unit), now);
    if (!this.lockStep) return;
    const trial = this.trials.get(trialKey(unit)) ?? { started: now, open: 0, done: [] };
    trial.open++;
    this.trials.set(trialKey(unit), trial);
  }

  done(unit: UnitRef, meanRoundMs: number, now: number): void {
    const start = this.started.get(unitKey(unit));
    const from = this.from.get(unitKey(unit)) ?? 0;
    this.started.delete(unitKey(unit));
    this.from.delete(unitKey(unit));
    if (this.lockStep) {
      const trial = this.trials.get(trialKey(unit));
      if (trial === undefined) return;
      trial.open--;
      trial.done.push({ unit, ms: meanRoundMs, from });
      this.closeTrial(unit, now);
    } else if (start !== undefined && from < unit.horizon) {
      this.rates.record(this.experimentOf(unit), unit.policy, (now - start) / 1000 / (unit.horizon - from), false);
    }
  }

  failed(unit: UnitRef, now: number): void {
    this.started.delete(unitKey(unit));
    this.from.delete(unitKey(unit));
    const trial = this.trials.get(trialKey(unit));
    if (trial === undefined) return;
    trial.open--;
    this.closeTrial(unit, now);
  }

  private closeTrial(unit: UnitRef, now: number): void {
    const trial = this.trials.get(trialKey(unit));
    if (trial === undefined || trial.open > 0) return;
    this.trials.delete(trialKey(unit));
    if (trial.done.length === 0) return;
    // The trial played from its units' earliest checkpoint (round 0 without one).
    const played = unit.horizon - Math.min(...trial.done.map((d) => d.from));
    if (played <= 0) return;
    const perRound = (now - trial.started) / 1000 / played;
    const own = trial.done.reduce((sum, d) => sum + d.ms / 1000, 0);
    const shared = Math.max(0, perRound - own) / trial.done.length;
    for (const d of trial.done) this.rates.record(this.experimentOf(d.unit), d.unit.policy, d.ms / 1000 + shared, true);
  }
}

const unitKey = (u: UnitRef): string => `${u.experiment}\u0000${u.policy}\u0000${u.trial}`;
const trialKey = (u: UnitRef): string => `${u.experiment}\u0000${u.trial}`;

/**
 * `events` with the rates of the run's finished units recorded into `rates`, under the experiment
 * name `experimentOf(unit)` gives (a grid point's units count for their grid's experiment).
 */
export function measuringRates(rates: RoundRates, events: RunEvents | undefined, experimentOf: (unit: UnitRef) => string = (u) => u.experiment): RunEvents {
  const meter = new RateMeter(rates, experimentOf);
  return {
    ...events,
    onPlan: (plan) => {
      meter.plan(plan.lockStep);
      events?.onPlan?.(plan);
    },
    onUnitStart: (unit) => {
      meter.start(unit, performance.now());
      events?.onUnitStart?.(unit);
    },
    onUnitDone: (unit, summary) => {
      meter.done(unit, summary.meanRoundMs, performance.now());
      events?.onUnitDone?.(unit, summary);
    },
    onUnitFailed: (unit, message, stack) => {
      meter.failed(unit, performance.now());
      events?.onUnitFailed?.(unit, message, stack);
    },
    onUnitResumed: (unit, rounds) => {
      meter.resumed(unit, rounds);
      events?.onUnitResumed?.(unit, rounds);
    },
  };
}

/** What an estimate needs of an experiment (kept instead of the resolved experiment and its data). */
export interface RunShape {
  experiment: string;
  trials: number;
  horizon: number;
  /** Every label, its policy and its estimated operations over a unit's T rounds (sizing.ts unitNeeds). */
  labels: { label: string; policy: string; totalFlops: number }[];
}

export function runShape(experiment: ResolvedExperiment): RunShape {
  const { config } = experiment;
  const needs = unitNeeds(experiment);
  return {
    experiment: config.name,
    trials: config.trials,
    horizon: config.horizon,
    labels: policyLabels(config).map((label) => ({ label, policy: entryOf(config, label).policy, totalFlops: needs.find((n) => n.policy === label)?.totalFlops ?? NaN })),
  };
}

/** A measured time and the estimated operations it took (sizing.ts unitNeeds). */
export interface MeasuredCost {
  seconds: number;
  flops: number;
  /** Measured in lock-step: preferred to a pool's measure (see RoundRates). */
  timed?: boolean;
}

/**
 * The time of `flops` operations scaled from the measure nearest to it in operations (the smallest
 * |log(flops / its flops)|: the cost model is trusted least over a long way), lock-step measures
 * preferred when there are any; null without a usable measure.
 */
export function scaledFromNearest(measures: readonly MeasuredCost[], flops: number): number | null {
  if (!(flops > 0)) return null;
  const usable = measures.filter((m) => m.flops > 0 && Number.isFinite(m.flops) && Number.isFinite(m.seconds));
  const preferred = usable.some((m) => m.timed === true) ? usable.filter((m) => m.timed === true) : usable;
  let best: MeasuredCost | null = null;
  for (const m of preferred) if (best === null || Math.abs(Math.log(flops / m.flops)) < Math.abs(Math.log(flops / best.flops))) best = m;
  return best === null ? null : best.seconds * (flops / best.flops);
}

/** The measured units of `rates` that `match` accepts, as times of a whole unit and their operations. */
function measuredUnits(rates: RoundRates, shapes: ReadonlyMap<string, RunShape>, match: (m: MeasuredRate, of: RunShape['labels'][number]) => boolean): MeasuredCost[] {
  return rates.all().flatMap((m) => {
    const shape = shapes.get(m.experiment);
    const of = shape?.labels.find((l) => l.label === m.label);
    return shape !== undefined && of !== undefined && match(m, of) ? [{ seconds: m.seconds * shape.horizon, flops: of.totalFlops, timed: m.timed }] : [];
  });
}

/**
 * Seconds one unit of `label` of `shape` takes at `rates` from its own experiment's measures: its own
 * c·T, else a twin's of the same policy scaled by their operations; null when neither is measured.
 * `shapes` names the experiments the rates were measured in.
 */
export function ownUnitSeconds(shape: RunShape, label: string, rates: RoundRates, shapes: ReadonlyMap<string, RunShape>): number | null {
  const measured = rates.rate(shape.experiment, label);
  if (measured !== null) return measured * shape.horizon;
  const own = shape.labels.find((l) => l.label === label);
  if (own === undefined) return null;
  return scaledFromNearest(measuredUnits(rates, shapes, (m, of) => m.experiment === shape.experiment && of.policy === own.policy), own.totalFlops);
}

/**
 * Seconds one unit of `label` of `shape` takes at `rates` (see the module comment): ownUnitSeconds,
 * else the same label measured in another experiment, else the same policy, scaled from the nearest
 * in operations (scaledFromNearest); null when nothing comparable is measured.
 */
export function unitSeconds(shape: RunShape, label: string, rates: RoundRates, shapes: ReadonlyMap<string, RunShape>): number | null {
  const own = shape.labels.find((l) => l.label === label);
  if (own === undefined) return null;
  const elsewhere = (match: (m: MeasuredRate, of: RunShape['labels'][number]) => boolean): number | null =>
    scaledFromNearest(measuredUnits(rates, shapes, (m, of) => m.experiment !== shape.experiment && match(m, of)), own.totalFlops);
  return ownUnitSeconds(shape, label, rates, shapes) ?? elsewhere((m) => m.label === label) ?? elsewhere((_, of) => of.policy === own.policy);
}

/** Seconds a timed (lock-step) run of `shapes` takes at `rates`, or null while some label's time is unknown. */
export function timedRunSeconds(shapes: readonly RunShape[], rates: RoundRates): number | null {
  const byName = new Map(shapes.map((s) => [s.experiment, s]));
  let seconds = 0;
  for (const shape of shapes) {
    for (const { label } of shape.labels) {
      const unit = unitSeconds(shape, label, rates, byName);
      if (unit === null) return null;
      seconds += shape.trials * unit;
    }
  }
  return seconds;
}
