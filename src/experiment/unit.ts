/**
 * One unit of a run: (experiment, policy, trial) → `<policy>/trial-<i>.csv` and its summary file.
 * executeTrial runs the units of one trial together, in lock-step (trial.ts `runTrialsInStep`: turns of
 * LOCK_STEP_ROUNDS rounds), each
 * still writing its own files: the in-process run (`--jobs 1`, `--timing`) runs every trial so, so that
 * the policies of a trial are timed side by side; a worker thread (worker.ts) runs one unit at a time.
 */
import fs from 'node:fs';
import { createPolicy } from '../policies/registry.js';
import { unitFiles } from '../results/layout.js';
import type { TrialSummary } from '../results/records.js';
import { completeUnit, TrialCsvWriter } from '../results/write.js';
import { entryOf } from '../config/schema.js';
import { createTrialEnvironment, policySpecFor, type ResolvedExperiment } from './setup.js';
import { runTrialsInStep, type TrialSide } from './trial.js';

export interface UnitTask {
  /** Index of the unit in the run (for progress messages). */
  id: number;
  experiment: ResolvedExperiment;
  /** `<out>/<name>` */
  dir: string;
  policy: string;
  trial: number;
}

/** The units of one trial that play together (policies in config order). */
export interface TrialTask {
  experiment: ResolvedExperiment;
  dir: string;
  trial: number;
  /** One unit task per policy. */
  units: UnitTask[];
}

export interface UnitResult {
  summary: TrialSummary;
  /** Byte length of the finished CSV. */
  bytes: number;
}

/** What executeTrial reports, per unit. */
export interface TrialHandlers {
  /** At most every PROGRESS_INTERVAL_MS: rounds done so far. */
  progress(unit: UnitTask, rounds: number): void;
  done(unit: UnitTask, result: UnitResult): void;
  /** The unit failed (a TrialError for a policy failure); its partial CSV is removed, the others play on. */
  failed(unit: UnitTask, error: Error): void;
  /** Called as `unit` starts round t (tests look at the order). */
  turn?(unit: UnitTask, t: number): void;
}

/** How often a running unit reports its progress (and, in-process, looks at its signal), ms. */
export const PROGRESS_INTERVAL_MS = 100;

/** Thrown by executeTrial when its signal stopped it; the partial CSVs are removed. */
export class UnitStopped extends Error {
  override name = 'UnitStopped';
  constructor() {
    super('stopped by a signal');
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** A unit set up to play: its files and its side of the trial. */
interface Playing {
  unit: UnitTask;
  writer: TrialCsvWriter;
  side: TrialSide;
}

/**
 * Runs the units of `task` in lock-step and writes their files. With a `signal` (units in the thread
 * that receives SIGINT) the trial yields to the event loop every PROGRESS_INTERVAL_MS, between rounds,
 * so that signal handlers and timers run, and throws UnitStopped once the signal is aborted (every
 * partial CSV removed). A unit that cannot start or fails is reported and the others go on.
 */
export async function executeTrial(task: TrialTask, handlers: TrialHandlers, signal?: AbortSignal): Promise<void> {
  const { experiment, trial } = task;
  const horizon = experiment.config.horizon;
  const playing: Playing[] = [];
  for (const unit of task.units) {
    try {
      const files = unitFiles(task.dir, unit.policy, trial);
      fs.mkdirSync(files.folder, { recursive: true });
      const environment = createTrialEnvironment(experiment, trial);
      const policy = createPolicy(entryOf(experiment.config, unit.policy).policy, policySpecFor(experiment, unit.policy, trial));
      const writer = new TrialCsvWriter(files.partial, unit.policy, trial);
      playing.push({ unit, writer, side: { environment, policy, onRound: (record) => writer.add(record) } });
    } catch (error) {
      handlers.failed(unit, asError(error));
    }
  }
  if (playing.length === 0) return;
  let last = performance.now();
  const between = (t: number): Promise<void> | void => {
    const now = performance.now();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    for (const p of playing) handlers.progress(p.unit, t);
    if (signal === undefined) return;
    return nextTurn().then(() => {
      if (signal.aborted) throw new UnitStopped();
    });
  };
  const turn = handlers.turn;
  const onTurn = turn === undefined ? undefined : (i: number, t: number) => turn((playing[i] as Playing).unit, t);
  let outcomes;
  try {
    outcomes = await runTrialsInStep(
      playing.map((p) => p.side),
      horizon,
      trial,
      between,
      onTurn,
    );
  } catch (error) {
    for (const p of playing) p.writer.discard();
    throw error;
  }
  for (const [i, p] of playing.entries()) {
    const outcome = outcomes[i]!;
    if (outcome.error !== null) {
      p.writer.discard();
      handlers.failed(p.unit, outcome.error);
      continue;
    }
    try {
      p.writer.close();
      const files = unitFiles(task.dir, p.unit.policy, trial);
      completeUnit(files, { policy: p.unit.policy, trial, horizon, bytes: p.writer.bytes, sha256: p.writer.sha256(), summary: outcome.summary });
    } catch (error) {
      p.writer.discard();
      handlers.failed(p.unit, asError(error));
      continue;
    }
    handlers.progress(p.unit, horizon);
    handlers.done(p.unit, { summary: outcome.summary, bytes: p.writer.bytes });
  }
}

/** One unit alone (a worker thread's task): executeTrial of a one-unit trial; throws the unit's failure. */
export async function executeUnit(task: UnitTask, onProgress?: (rounds: number) => void, signal?: AbortSignal): Promise<UnitResult> {
  let result: UnitResult | null = null;
  let failure: Error | null = null;
  const handlers: TrialHandlers = {
    progress: (_, rounds) => onProgress?.(rounds),
    done: (_, r) => (result = r),
    failed: (_, error) => (failure = error),
  };
  await executeTrial({ experiment: task.experiment, dir: task.dir, trial: task.trial, units: [task] }, handlers, signal);
  if (failure !== null) throw failure;
  return result as unknown as UnitResult;
}
