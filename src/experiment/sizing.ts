/**
 * Sizing a run before any work: each unit holds one policy's state (PolicyDescriptor.cost.bytes at its
 * last round) and one copy of its trial's environment (the round's action set, maxActions × d doubles);
 * `jobs` units run at once on worker threads, or, in this thread (`jobs = 1`), the units of one trial
 * together (lock-step, unit.ts), sharing one Node's overhead. The run is refused, with the number and the fix, when that exceeds what the
 * machine can give (available memory, a container's limit, `ulimit -v`); a policy whose hyperparameters
 * lie where it cannot compute is refused earlier, when its config is resolved (setup.ts). A
 * round of more than WARN_FLOPS estimated operations, or a unit of more than WARN_UNIT_FLOPS over its
 * horizon (rounds that grow with t), is a warning, not a refusal.
 */
import { RunError } from '../base/errors.js';
import { entryOf, policyLabels } from '../config/schema.js';
import type { PolicyCost, ProblemShape } from '../policies/policy.js';
import { entryCost, entryReads } from '../config/policy-entries.js';
import { environmentDescriptor } from '../environments/registry.js';
import { gb, machineMemory, UNIT_OVERHEAD_BYTES, type MachineMemory } from '../base/machine.js';
import { policySpecFor, type ResolvedExperiment } from './setup.js';

export { machineMemory, UNIT_OVERHEAD_BYTES, type MachineMemory } from '../base/machine.js';

/** Estimated operations of one round above which a run gets a warning (~10 s a round at 10 Gflop/s). */
export const WARN_FLOPS = 1e11;
/** The rate the warnings turn operations into time with: a core's nominal 10 Gflop/s, more than small d reaches, so the times are lower bounds. */
export const NOMINAL_FLOPS_PER_SECOND = 1e10;
/** Estimated operations of one unit over its horizon above which a run gets a warning (~a day at 10 Gflop/s). */
export const WARN_UNIT_FLOPS = 1e15;
/** Intervals of the composite Simpson rule that sums a unit's rounds (exact for costs cubic in t). */
const SIMPSON_INTERVALS = 64;
/** One unit's estimated needs. */
export interface UnitNeed {
  experiment: string;
  policy: string;
  /** The policy's state at round T plus the environment copy. */
  bytes: number;
  environmentBytes: number;
  /** Estimated operations of the last round. */
  flops: number;
  /** Estimated operations of the whole unit, rounds 1..T. */
  totalFlops: number;
}

/**
 * Σ_{t=1}^{T} cost(t) for a cost polynomial in t of degree ≤ 3 (what PolicyDescriptor.cost.flops
 * models): exact for T ≤ SIMPSON_INTERVALS, else ∫_{1/2}^{T+1/2} cost by the composite Simpson rule
 * (the midpoint sum of a polynomial, off by cost''·T/24 at most).
 */
export function sumOverRounds(cost: (t: number) => number, horizon: number): number {
  if (horizon <= SIMPSON_INTERVALS) {
    let sum = 0;
    for (let t = 1; t <= horizon; t++) sum += cost(t);
    return sum;
  }
  const a = 0.5;
  const h = horizon / SIMPSON_INTERVALS;
  let sum = cost(a) + cost(a + horizon);
  for (let i = 1; i < SIMPSON_INTERVALS; i++) sum += (i % 2 === 1 ? 4 : 2) * cost(a + i * h);
  return (sum * h) / 3;
}

/** Bytes of one copy of the experiment's environment (its descriptor's copyBytes, else its largest action set). */
export function environmentCopyBytes(environment: ResolvedExperiment['environment']): number {
  const estimate = environmentDescriptor(environment.type).copyBytes;
  return estimate === undefined ? 8 * maxActions(environment) * environment.d : estimate(environment as never);
}

/** A duration for a warning: seconds, hours or days. */
function duration(seconds: number): string {
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 2 * 86400) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400).toLocaleString('en-US')} days`;
}

/** The most actions a round of this environment offers (synthetic `actions`, `candidates`, else one per class). */
export function maxActions(environment: ResolvedExperiment['environment']): number {
  const { actions, candidates } = environment as { actions?: unknown; candidates?: unknown };
  if (Array.isArray(actions) && typeof actions[1] === 'number') return actions[1];
  if (typeof candidates === 'number') return candidates;
  return environment.K + 1;
}

/** Each unit of an experiment (one per policy: the trials of a policy need the same). */
export function unitNeeds(experiment: ResolvedExperiment): UnitNeed[] {
  const environmentBytes = environmentCopyBytes(experiment.environment);
  const t = experiment.config.horizon;
  return policyLabels(experiment.config).map((label) => {
    const { cost, shape } = unitCost(experiment, label);
    return {
      experiment: experiment.config.name,
      policy: label,
      bytes: cost.bytes(shape) + environmentBytes + UNIT_OVERHEAD_BYTES,
      environmentBytes,
      flops: cost.flops(shape),
      // Rounds whose cost grows with t (a history the policy re-reads) make the unit's total quadratic in T.
      totalFlops: sumOverRounds((round) => cost.flops({ ...shape, t: round }), t),
    };
  });
}

/** The cost model of `label`'s units and their problem at the horizon. */
function unitCost(experiment: ResolvedExperiment, label: string): { cost: PolicyCost; shape: ProblemShape } {
  const { d, K } = experiment.environment;
  const entry = entryOf(experiment.config, label);
  const shape = { d, K, m: K * d, actions: maxActions(experiment.environment), t: experiment.config.horizon };
  // An external policy has no spec of its own (a process) and no cost model (entries.ts EXTERNAL_COST).
  if (entry.external !== undefined) return { cost: entryCost(entry), shape };
  const spec = policySpecFor(experiment, label, 0);
  // spec.sketchSize is capped at the sketch's dimension when the experiment is resolved (setup.ts).
  const m = entryReads(entry).includes('m') ? spec.sketchSize : K * d;
  return { cost: entryCost(entry), shape: { ...shape, m, ...(spec.options === undefined ? {} : { options: spec.options }) } };
}

/** Estimated operations of round t of `label`'s units. */
export function roundFlops(experiment: ResolvedExperiment, label: string): (t: number) => number {
  const { cost, shape } = unitCost(experiment, label);
  return (t) => cost.flops({ ...shape, t });
}

/** Seconds after a unit (or a lock-step trial) starts at which its pace is extrapolated to its horizon. */
export const PROJECT_AFTER_SECONDS = 5;
/** A unit (or trial) projected to take longer than this (a day) is warned about while it runs. */
export const WARN_UNIT_SECONDS = 86_400;

/** `elapsed` seconds for rounds 1..`rounds`, extrapolated to the horizon with the cost model's growth: elapsed · Σ_{t≤T} cost / Σ_{t≤rounds} cost. */
export function projectedSeconds(elapsed: number, rounds: number, horizon: number, cost: (t: number) => number): number {
  if (rounds <= 0) return Infinity;
  return (elapsed * sumOverRounds(cost, horizon)) / sumOverRounds(cost, rounds);
}

/** A warning, once per experiment, for a unit or lock-step trial whose first PROJECT_AFTER_SECONDS project past WARN_UNIT_SECONDS. */
export class PaceWatch {
  private readonly running = new Map<string, { started: number; horizon: number; cost: (t: number) => number; checked: boolean }>();
  private readonly warned = new Set<string>();

  constructor(private readonly warn: (line: string) => void) {}

  /** A unit of `label` starts in group `key` (its trial when units play in lock-step, else itself); their costs add. */
  start(key: string, experiment: ResolvedExperiment, label: string): void {
    const cost = roundFlops(experiment, label);
    const group = this.running.get(key);
    if (group === undefined) this.running.set(key, { started: performance.now(), horizon: experiment.config.horizon, cost, checked: false });
    else {
      const before = group.cost;
      group.cost = (t) => before(t) + cost(t);
    }
  }

  /** The group `key` of experiment `experiment` (what it names) has played `rounds` rounds. */
  progress(key: string, experiment: string, what: string, rounds: number): void {
    const group = this.running.get(key);
    if (group === undefined || group.checked) return;
    const elapsed = (performance.now() - group.started) / 1000;
    if (elapsed < PROJECT_AFTER_SECONDS || rounds >= group.horizon) return;
    group.checked = true;
    const seconds = projectedSeconds(elapsed, rounds, group.horizon, group.cost);
    if (seconds <= WARN_UNIT_SECONDS || this.warned.has(experiment)) return;
    this.warned.add(experiment);
    this.warn(
      `${experiment}: ${what}: ${rounds} of ${group.horizon} rounds in ${elapsed.toFixed(0)} s; at this pace, its rounds growing with t, ` +
        `it takes about ${duration(seconds)}: stop it (Ctrl-C; --resume continues) and shorten the horizon, or let it run`,
    );
  }

  done(key: string): void {
    this.running.delete(key);
  }
}

/** The refusal (one line) of a run of `experiments` on `jobs` threads, or null; and its warnings. */
export function sizeRun(
  experiments: readonly ResolvedExperiment[],
  jobs: number,
  machine: MachineMemory = machineMemory(),
): { refusal: string | null; warnings: string[] } {
  const needs = experiments.flatMap(unitNeeds);
  const warnings = needs.flatMap((n) => {
    if (n.flops > WARN_FLOPS) {
      return [`${n.experiment}: ${n.policy}: about ${n.flops.toExponential(1)} operations a round by the end (tens of seconds a round): smaller d or m, or a shorter horizon, runs faster`];
    }
    if (n.totalFlops > WARN_UNIT_FLOPS) {
      return [
        `${n.experiment}: ${n.policy}: about ${n.totalFlops.toExponential(1)} operations a unit over its horizon (at least ${duration(n.totalFlops / NOMINAL_FLOPS_PER_SECOND)} a unit at ${NOMINAL_FLOPS_PER_SECOND / 1e9} Gflop/s, its rounds growing with t): a shorter horizon, or a smaller d or m, runs faster`,
      ];
    }
    return [];
  });
  if (needs.length === 0) return { refusal: null, warnings };
  const largest = needs.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const units = experiments.reduce((sum, e) => sum + policyLabels(e.config).length * e.config.trials, 0);
  const concurrent = Math.min(jobs, units);
  const trialBytes = (experiment: string): number =>
    needs.filter((n) => n.experiment === experiment).reduce((sum, n) => sum + n.bytes - UNIT_OVERHEAD_BYTES, UNIT_OVERHEAD_BYTES);
  const total = jobs === 1 ? Math.max(...experiments.map((e) => trialBytes(e.config.name))) : concurrent * largest.bytes;
  if (total <= machine.bytes) return { refusal: null, warnings };
  const fits = Math.floor(machine.bytes / largest.bytes);
  const fixes = [
    fits >= 1 && concurrent > 1 ? `--jobs ${fits}` : null,
    `a smaller d (now ${experiments.find((e) => e.config.name === largest.experiment)!.environment.d})`,
    largest.environmentBytes > largest.bytes / 2 ? 'fewer actions a round' : null,
    'a smaller m or a lighter policy',
  ].filter((f): f is string => f !== null);
  const environment = largest.environmentBytes >= largest.bytes / 10 ? ` (its environment copy ${gb(largest.environmentBytes)})` : '';
  return {
    refusal:
      `${largest.experiment}: ${largest.policy} needs about ${gb(largest.bytes)} a unit${environment}, ` +
      `${jobs === 1 ? "with the other units of its trial (lock-step)" : `${concurrent} at once`}: ${gb(total)}, more than the ${gb(machine.bytes)} of ${machine.source}; use ${fixes.join(', or ')}`,
    warnings,
  };
}

/** Refuses (exit 2) a run the machine cannot hold, before any work; returns its warnings. */
export function checkRunSize(experiments: readonly ResolvedExperiment[], jobs: number, machine?: MachineMemory): string[] {
  const { refusal, warnings } = sizeRun(experiments, jobs, machine);
  if (refusal !== null) throw new RunError(refusal, 2);
  return warnings;
}
