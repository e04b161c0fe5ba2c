/**
 * One unit of a run: (experiment, policy, trial) → `<policy>/trial-<i>.csv` and its summary file.
 * The same function runs in-process (`--jobs 1`) and inside a worker thread (worker.ts).
 */
import fs from 'node:fs';
import { createPolicy } from '../policies/registry.js';
import { unitFiles } from '../results/layout.js';
import type { TrialSummary } from '../results/records.js';
import { completeUnit, TrialCsvWriter } from '../results/write.js';
import { entryOf } from '../config/schema.js';
import { createTrialEnvironment, policySpecFor, type ResolvedExperiment } from './setup.js';
import { runTrial } from './trial.js';

export interface UnitTask {
  /** Index of the unit in the run (for progress messages). */
  id: number;
  experiment: ResolvedExperiment;
  /** `<out>/<name>` */
  dir: string;
  policy: string;
  trial: number;
}

export interface UnitResult {
  summary: TrialSummary;
  /** Byte length of the finished CSV. */
  bytes: number;
}

/** How often a running unit reports its progress (and, in-process, looks at its signal), ms. */
export const PROGRESS_INTERVAL_MS = 100;

/** Thrown by executeUnit when its signal stopped it; its partial CSV is removed. */
export class UnitStopped extends Error {
  override name = 'UnitStopped';
  constructor() {
    super('stopped by a signal');
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs the unit and writes its files. `onProgress(rounds)` is called at most every
 * PROGRESS_INTERVAL_MS with the rounds done so far. With a `signal` (a unit in the thread that
 * receives SIGINT) the unit yields to the event loop at each of these moments, between rounds, so
 * that signal handlers and timers run, and throws UnitStopped once the signal is aborted. On failure
 * the partial CSV is removed and the error (a TrialError for a policy failure) is rethrown.
 */
export async function executeUnit(task: UnitTask, onProgress?: (rounds: number) => void, signal?: AbortSignal): Promise<UnitResult> {
  const { experiment, policy, trial } = task;
  const horizon = experiment.config.horizon;
  const files = unitFiles(task.dir, policy, trial);
  fs.mkdirSync(files.folder, { recursive: true });
  const environment = createTrialEnvironment(experiment, trial);
  const instance = createPolicy(entryOf(experiment.config, policy).policy, policySpecFor(experiment, policy, trial));
  const writer = new TrialCsvWriter(files.partial, policy, trial);
  let last = performance.now();
  let summary: TrialSummary;
  try {
    summary = await runTrial(environment, instance, horizon, trial, (record) => {
      writer.add(record);
      const now = performance.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      onProgress?.(record.t);
      if (signal === undefined) return;
      return nextTurn().then(() => {
        if (signal.aborted) throw new UnitStopped();
      });
    });
    writer.close();
  } catch (error) {
    writer.discard();
    throw error;
  }
  try {
    completeUnit(files, { policy, trial, horizon, bytes: writer.bytes, sha256: writer.sha256(), summary });
  } catch (error) {
    writer.discard();
    throw error;
  }
  onProgress?.(horizon);
  return { summary, bytes: writer.bytes };
}
