/**
 * Sizing a run before any work: each unit holds one policy's state (PolicyDescriptor.cost.bytes at its
 * last round) and one copy of its trial's environment (the round's action set, maxActions × d doubles);
 * `jobs` units run at once on worker threads, or, in this thread (`jobs = 1`), the units of one trial
 * together (lock-step, unit.ts), sharing one Node's overhead. The run is refused, with the number and the fix, when that exceeds what the
 * machine can give (available memory, a container's limit, `ulimit -v`); a policy whose hyperparameters
 * lie where it cannot compute is refused earlier, when its config is resolved (setup.ts). A
 * round of more than WARN_FLOPS estimated operations is a warning, not a refusal.
 */
import fs from 'node:fs';
import os from 'node:os';
import { RunError } from '../base/errors.js';
import { entryOf, policyLabels } from '../config/schema.js';
import { policyDescriptor } from '../policies/registry.js';
import { policySpecFor, type ResolvedExperiment } from './setup.js';

/** Estimated operations of one round above which a run gets a warning (~10 s a round at 10 Gflop/s). */
export const WARN_FLOPS = 1e11;
/** What a unit needs beyond its arrays: Node, its heap and the worker thread (measured ~60–100 MB). */
export const UNIT_OVERHEAD_BYTES = 128 * 2 ** 20;

/** What the machine can give a run, in bytes, and where the limit comes from. */
export interface MachineMemory {
  bytes: number;
  source: string;
}

/** One unit's estimated needs. */
export interface UnitNeed {
  experiment: string;
  policy: string;
  /** The policy's state at round T plus the environment copy. */
  bytes: number;
  environmentBytes: number;
  /** Estimated operations of the last round. */
  flops: number;
}

const GB = 1e9;
const gb = (bytes: number): string => `${(bytes / GB).toFixed(bytes < 10 * GB ? 2 : 1)} GB`;

/** The smallest of available memory (os.freemem), a cgroup limit and `ulimit -v` (Linux /proc). */
export function machineMemory(): MachineMemory {
  let limit: MachineMemory = { bytes: os.freemem(), source: 'available memory' };
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  if (constrained > 0 && constrained < limit.bytes) limit = { bytes: constrained, source: "the container's memory limit" };
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max address space'));
    const value = line === undefined ? NaN : Number(line.split(/\s{2,}/)[1]);
    if (Number.isFinite(value) && value < limit.bytes) limit = { bytes: value, source: 'the address-space limit (ulimit -v)' };
  } catch {
    // No /proc (not Linux): the other limits stand.
  }
  return limit;
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
  const { d, K } = experiment.environment;
  const actions = maxActions(experiment.environment);
  const environmentBytes = 8 * actions * d;
  const t = experiment.config.horizon;
  return policyLabels(experiment.config).map((label) => {
    const descriptor = policyDescriptor(entryOf(experiment.config, label).policy);
    const spec = policySpecFor(experiment, label, 0);
    const m = descriptor.reads.includes('m') ? Math.min(spec.sketchSize, K * d) : K * d;
    const shape = { d, K, m, actions, t, ...(spec.ofulSolver === undefined ? {} : { ofulSolver: spec.ofulSolver }) };
    return {
      experiment: experiment.config.name,
      policy: label,
      bytes: descriptor.cost.bytes(shape) + environmentBytes + UNIT_OVERHEAD_BYTES,
      environmentBytes,
      flops: descriptor.cost.flops(shape),
    };
  });
}

/** The refusal (one line) of a run of `experiments` on `jobs` threads, or null; and its warnings. */
export function sizeRun(
  experiments: readonly ResolvedExperiment[],
  jobs: number,
  machine: MachineMemory = machineMemory(),
): { refusal: string | null; warnings: string[] } {
  const needs = experiments.flatMap(unitNeeds);
  const warnings = needs
    .filter((n) => n.flops > WARN_FLOPS)
    .map((n) => `${n.experiment}: ${n.policy}: about ${n.flops.toExponential(1)} operations a round by the end (tens of seconds a round): smaller d or m, or a shorter horizon, runs faster`);
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
