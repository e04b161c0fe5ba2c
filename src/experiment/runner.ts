/**
 * The experiment runner: configs → units (experiment, policy, trial) → files (results/).
 *
 * 1. Checks (folders.ts): the output folder can be written, each experiment's lock is taken, and an
 *    existing `<out>/<name>` is refused unless `resume` or `force`.
 * 2. Plan (plan.ts): the units in the fixed order, this shard's share, the finished ones skipped.
 * 3. Run (pool.ts): for `jobs = 1` trial by trial, the policies of a trial in lock-step (trial.ts: in
 *    turns of a few rounds), so their per-round times are taken side by side, in this thread or, when a
 *    signal can stop the run, on one worker thread (this one stays free for a second signal); else on
 *    worker threads, unit by unit, longest first. A failing unit is reported and the rest go on.
 * 4. An experiment whose units are all finished gets its summary.csv.
 */
import os from 'node:os';
import path from 'node:path';
import { RunError } from '../base/errors.js';
import { entryOf, type ExperimentConfig } from '../config/schema.js';
import { entryCostRank } from '../config/policy-entries.js';
import { lockFile, SUMMARY_FILE, unitFiles } from '../results/layout.js';
import { readFinishedUnit } from '../results/read.js';
import type { TrialSummary } from '../results/records.js';
import type { UnitSummaryFile } from '../results/unit.js';
import { summaryCsv, writeFileAtomic } from '../results/write.js';
import { checkResumable, inspectFolder, lockFolder, makeFolder, prepareFolder, sortUnits } from './folders.js';
import type { Lock } from './lock.js';
import { buildManifest, loadAverage, recordTiming } from './manifest.js';
import { isValidShard, planUnits, runOrder, SHARD_SCHEME, trialGroups, type ExperimentUnits, type Shard, type UnitRef } from './plan.js';
import { defaultWorkerScript, runInProcess, runPool, siblingWorkerScript, type TaskHandlers } from './pool.js';
import type { SeedSplit } from './seeds.js';
import { resolveExperiment, type ResolvedExperiment } from './setup.js';
import { checkRunSize, PaceWatch } from './sizing.js';
import { LOCK_STEP_ROUNDS } from './trial.js';
import type { CheckpointOptions, TrialTask, UnitTask } from './unit.js';
import { DEFAULT_CHECKPOINT_EVERY, type CheckpointEvery } from './checkpoint.js';

export type { UnitRef } from './plan.js';

export interface PlannedExperiment {
  resolved: ResolvedExperiment;
  /** `<out>/<name>` */
  dir: string;
  /** Whether an earlier run's folder is being completed. */
  resumed: boolean;
  /** Units finished by an earlier run (skipped). */
  finished: UnitRef[];
  /** Units this run will run. */
  pending: UnitRef[];
}

export interface RunPlan {
  experiments: PlannedExperiment[];
  /** Worker threads used (1: in-process). */
  jobs: number;
  /** The units of a trial run together, in lock-step (in-process runs). */
  lockStep: boolean;
}

export interface RunEvents {
  /** After the checks, before the first unit starts. */
  onPlan?(plan: RunPlan): void;
  /** A unit starts (in this thread or on a worker). */
  onUnitStart?(unit: UnitRef): void;
  /** A running unit has done `rounds` rounds. */
  onProgress?(unit: UnitRef, rounds: number): void;
  onUnitDone?(unit: UnitRef, summary: TrialSummary): void;
  /** `message` is one line: `<experiment>: <policy>, trial <i>, round <t>: <cause>`. */
  onUnitFailed?(unit: UnitRef, message: string, stack?: string): void;
  /** Something about a unit that does not stop it (a checkpoint that cannot be used or written). */
  onUnitNote?(unit: UnitRef, message: string): void;
  /** A unit continues from its checkpoint after `rounds` rounds (its progress starts there). */
  onUnitResumed?(unit: UnitRef, rounds: number): void;
  /**
   * Not sent by the runner: a command that runs more after this run (a reproduction's later stages)
   * says how many seconds that will take (null: not known yet), for an ETA of the whole command.
   */
  onLaterWork?(seconds: number | null): void;
}

export interface RunOptions {
  /** Parent folder of the experiment folders. */
  out: string;
  /** Units run at once; 1 (the default) runs them in this thread. */
  jobs?: number;
  /** Complete an existing experiment folder: skip finished units, redo the rest. */
  resume?: boolean;
  /** Delete an existing experiment folder and start over. */
  force?: boolean;
  split?: SeedSplit;
  /** The config file as the user named it (for messages). */
  configFile?: string;
  /**
   * Aborting it (SIGINT) stops the run within a round or two: finished units are kept, the running
   * ones write their checkpoints (a resumed run continues them there; without checkpoints their
   * partial files are removed and a resumed run redoes them).
   */
  signal?: AbortSignal;
  /** When running units checkpoint (checkpoint.ts); default DEFAULT_CHECKPOINT_EVERY, null: never. */
  checkpoint?: CheckpointEvery | null;
  events?: RunEvents;
  mnistDataRoot?: string;
  /** The compiled worker script (default: pool.ts defaultWorkerScript). */
  workerScript?: string | URL;
  /**
   * Run only this shard's units (plan.ts); the manifests record it. `out` is used as given (the CLI
   * puts shards under `<out>/shard-<i>-of-<n>`).
   */
  shard?: Shard;
  /**
   * Called once every config resolved and every folder passed its checks, before anything is written
   * (a grid or sweep clears the outputs that a --force run must not keep).
   */
  beforeWriting?: () => void;
}

export interface UnitFailure {
  unit: UnitRef;
  message: string;
}

export interface ExperimentOutcome {
  name: string;
  dir: string;
  resolved: ResolvedExperiment;
  /** Every unit finished and summary.csv was written. */
  complete: boolean;
  failures: UnitFailure[];
}

export interface RunResult {
  experiments: ExperimentOutcome[];
  /** The signal stopped the run before every unit ran. */
  interrupted: boolean;
  unitsRun: number;
  unitsSkipped: number;
  unitsFailed: number;
  jobs: number;
}

/** The manifest's `timing.runs[].pairing` of an in-process run (see trial.ts). */
export const LOCK_STEP =
  `lock-step in one thread: each policy of a trial plays block b (${LOCK_STEP_ROUNDS} rounds) before any plays block b + 1; ` +
  'the order reversed every other block and rotated by one every two';
/** The manifest's `timing.runs[].pairing` of a run on worker threads. */
export const UNIT_BY_UNIT = 'unit by unit on worker threads, longest first';

/** The most worker threads a run may start: 4 per core (at least 4). */
export function maxWorkerThreads(): number {
  return Math.max(4, 4 * os.availableParallelism());
}

function checkOptions(configs: readonly ExperimentConfig[], options: RunOptions): number {
  if (options.resume && options.force) throw new RunError('--resume and --force exclude each other; give one', 2);
  if (options.out.trim() === '') throw new RunError('--out: expected a folder, got an empty string', 2);
  const jobs = options.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1) throw new RunError(`jobs must be an integer ≥ 1, got ${jobs}`, 2);
  const maxJobs = maxWorkerThreads();
  if (jobs > maxJobs) {
    throw new RunError(`jobs must be at most ${maxJobs} (4 per core on this machine: more threads only share the cores, and each reserves memory), got ${jobs}`, 2);
  }
  const names = configs.map((c) => c.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new RunError(`two experiments are named ${JSON.stringify(duplicate)}; names must be unique`, 2);
  if (options.shard !== undefined && !isValidShard(options.shard)) {
    throw new RunError(`shard must satisfy 0 ≤ index < count, got ${options.shard.index}/${options.shard.count}`, 2);
  }
  return jobs;
}

/** Runs the experiments; see the module comment. Throws RunError when the run cannot start. */
export async function runExperiments(configs: readonly ExperimentConfig[], options: RunOptions): Promise<RunResult> {
  const jobs = checkOptions(configs, options);
  const { shard } = options;
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  makeFolder(options.out, 'to the output folder');
  const locks: Lock[] = [];
  try {
    // One record per experiment, completed step by step: every folder is locked before any config is
    // resolved, every config resolved before any folder is inspected.
    const locked = configs.map((config) => {
      const dir = path.join(options.out, config.name);
      locks.push(lockFolder(lockFile(options.out, config.name), dir, options.out));
      return { config, dir };
    });
    const resolved = locked.map((e) => ({
      ...e,
      resolved: resolveExperiment(e.config, { split: options.split, configFile: options.configFile, mnistDataRoot: options.mnistDataRoot }),
    }));
    // Sized before any folder is touched: a run the machine cannot hold is refused here (sizing.ts).
    for (const warning of checkRunSize(resolved.map((e) => e.resolved), jobs)) process.stderr.write(`eofd run: warning: ${warning}\n`);
    const inspected = resolved.map((e) => ({ ...e, state: inspectFolder(e.dir, options, e.resolved) }));
    for (const e of inspected) if (e.state === 'resume') checkResumable(e.dir, e.resolved, shard);

    options.beforeWriting?.();
    const units = planUnits(configs, shard);
    const prepared = inspected.map((e, i) => {
      const { firstUnit, all, mine } = units[i] as ExperimentUnits;
      const manifestShard = shard === undefined ? undefined : { ...shard, first_unit: firstUnit, scheme: SHARD_SCHEME };
      prepareFolder(e.dir, e.state, () => buildManifest(e.resolved, manifestShard));
      const { finished, pending } = sortUnits(e.dir, mine, e.state);
      const planned: PlannedExperiment = { resolved: e.resolved, dir: e.dir, resumed: e.state === 'resume', finished, pending };
      return { planned, all };
    });
    const plan: RunPlan = { experiments: prepared.map((e) => e.planned), jobs: 1, lockStep: jobs === 1 };

    const pendingUnits = plan.experiments.flatMap((planned, order) =>
      planned.pending.map((unit) => ({
        unit,
        order,
        cost: unit.horizon * planned.resolved.environment.K * planned.resolved.environment.d,
        rank: entryCostRank(entryOf(planned.resolved.config, unit.policy)),
        experiment: planned.resolved,
        dir: planned.dir,
        policy: unit.policy,
        trial: unit.trial,
      })),
    );
    let id = 0;
    const checkpoint = options.checkpoint === undefined ? DEFAULT_CHECKPOINT_EVERY : options.checkpoint;
    const toTask = (u: (typeof pendingUnits)[number]): UnitTask => ({ id: id++, experiment: u.experiment, dir: u.dir, policy: u.policy, trial: u.trial });
    const trials: (TrialTask & CheckpointOptions)[] = plan.lockStep
      ? trialGroups(pendingUnits).map((group) => {
          const first = group[0]!;
          return { experiment: first.experiment, dir: first.dir, trial: first.trial, units: group.map(toTask), checkpoint };
        })
      : [];
    const tasks: (UnitTask & CheckpointOptions)[] = plan.lockStep ? [] : runOrder(pendingUnits).map((u) => ({ ...toTask(u), checkpoint }));
    plan.jobs = jobs === 1 ? 1 : Math.max(1, Math.min(jobs, tasks.length));
    const timed = plan.experiments.filter((e) => e.pending.length > 0);
    const timing = { started, jobs: plan.jobs, pairing: plan.lockStep ? LOCK_STEP : UNIT_BY_UNIT, load_start: loadStart };
    for (const e of timed) recordTiming(e.dir, { ...timing, load_end: null });
    options.events?.onPlan?.(plan);

    const failures: UnitFailure[] = [];
    let unitsRun = 0;
    // A unit, or a lock-step trial, whose first seconds project past a day is warned about (sizing.ts).
    const pace = new PaceWatch((line) => process.stderr.write(`eofd run: warning: ${line}\n`));
    const paceKey = (task: UnitTask): string => `${task.experiment.config.name}\u0000${plan.lockStep ? '' : task.policy}\u0000${task.trial}`;
    const handlers: TaskHandlers = {
      start: (task) => {
        pace.start(paceKey(task), task.experiment, task.policy);
        options.events?.onUnitStart?.(taskUnit(task));
      },
      progress: (task, rounds) => {
        pace.progress(paceKey(task), task.experiment.config.name, plan.lockStep ? `trial ${task.trial}` : `${task.policy}, trial ${task.trial}`, rounds);
        options.events?.onProgress?.(taskUnit(task), rounds);
      },
      done: (task, result) => {
        pace.done(paceKey(task));
        unitsRun++;
        options.events?.onUnitDone?.(taskUnit(task), result.summary);
      },
      note: (task, message) => options.events?.onUnitNote?.(taskUnit(task), message),
      resumed: (task, rounds) => options.events?.onUnitResumed?.(taskUnit(task), rounds),
      failed: (task, error) => {
        pace.done(paceKey(task));
        const unit = taskUnit(task);
        const message =
          error.name === 'TrialError'
            ? `${unit.experiment}: ${error.message}`
            : `${unit.experiment}: ${unit.policy}, trial ${unit.trial}: ${error.message}`;
        const line = message.split('\n')[0] as string;
        failures.push({ unit, message: line });
        options.events?.onUnitFailed?.(unit, line, error.stack);
      },
    };
    const stoppedEarly =
      plan.lockStep
        ? // A signalled run of the compiled code plays on a worker thread, so that this thread takes a second
          // signal at once (from TypeScript sources, as the in-process tests run, in this thread).
          await runInProcess(trials, handlers, options.signal, options.signal === undefined ? undefined : (options.workerScript ?? siblingWorkerScript() ?? undefined))
        : await runPool(tasks, plan.jobs, options.workerScript ?? defaultWorkerScript(), handlers, options.signal);

    const loadEnd = loadAverage();
    for (const e of timed) recordTiming(e.dir, { ...timing, load_end: loadEnd });
    const experiments = prepared.map(({ planned, all }): ExperimentOutcome => {
      const { config } = planned.resolved;
      const finishedUnits = all
        .map((u) => readFinishedUnit(unitFiles(planned.dir, u.policy, u.trial), u.policy, u.trial, u.horizon))
        .filter((u): u is UnitSummaryFile => u !== null);
      const complete = finishedUnits.length === config.policies.length * config.trials;
      if (complete) writeFileAtomic(path.join(planned.dir, SUMMARY_FILE), summaryCsv(finishedUnits));
      return {
        name: config.name,
        dir: planned.dir,
        resolved: planned.resolved,
        complete,
        failures: failures.filter((f) => f.unit.experiment === config.name),
      };
    });
    return {
      experiments,
      interrupted: stoppedEarly,
      unitsRun,
      unitsSkipped: plan.experiments.reduce((n, e) => n + e.finished.length, 0),
      unitsFailed: failures.length,
      jobs: plan.jobs,
    };
  } finally {
    for (const lock of locks) lock.release();
  }
}

function taskUnit(task: UnitTask): UnitRef {
  return { experiment: task.experiment.config.name, policy: task.policy, trial: task.trial, horizon: task.experiment.config.horizon };
}
