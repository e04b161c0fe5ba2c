/**
 * One unit of a run: (experiment, policy, trial) → `<policy>/trial-<i>.csv` and its summary file.
 * executeTrial runs the units of one trial together, in lock-step (trial.ts `runTrialsInStep`: turns of
 * LOCK_STEP_ROUNDS rounds), each
 * still writing its own files: the in-process run (`--jobs 1`, `--timing`) runs every trial so, so that
 * the policies of a trial are timed side by side; a worker thread (worker.ts) runs one unit at a time.
 */
import fs from 'node:fs';
import type { Environment } from '../environments/environment.js';
import type { Policy } from '../policies/policy.js';
import { restorePolicy, snapshotPolicy } from '../policies/snapshot.js';
import { readPartialTrial } from '../results/read-csv.js';
import { unitFiles, type UnitFiles } from '../results/layout.js';
import type { TrialSummary } from '../results/records.js';
import { completeUnit, TrialCsvWriter } from '../results/write.js';
import { entryOf } from '../config/schema.js';
import { readCheckpoint, writeCheckpoint, type CheckpointEvery } from './checkpoint.js';
import { createTrialEnvironment, createUnitPolicy, type ResolvedExperiment } from './setup.js';
import { runTrialsInStep, type ResumePoint, type TrialSide } from './trial.js';

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

/** How a run's units checkpoint (checkpoint.ts); absent or null: never (a stopped unit is then redone from round 1). */
export interface CheckpointOptions {
  checkpoint?: CheckpointEvery | null;
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
  /** Something the user should know that does not stop the unit (a checkpoint that could not be used or written). */
  note?(unit: UnitTask, message: string): void;
  /** The unit continues from its checkpoint after `rounds` rounds. */
  resumed?(unit: UnitTask, rounds: number): void;
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

/** A unit set up to play: its files and its side of the trial, and when it last checkpointed. */
interface Playing {
  unit: UnitTask;
  files: UnitFiles;
  writer: TrialCsvWriter;
  side: TrialSide;
  /** Rounds played so far. */
  rounds: number;
  /** Rounds and time (performance.now) of the last checkpoint (or of the start). */
  checkpointRounds: number;
  checkpointAt: number;
  /** Cleared when a checkpoint fails (the unit plays on without). */
  checkpoints: boolean;
}

/**
 * A unit continued from its checkpoint: the policy restored, the partial CSV cut back to the mark, the
 * environment replayed to the checkpoint's round from the CSV's actions; throws if any of it fails.
 */
function resumeFromCheckpoint(experiment: ResolvedExperiment, unit: UnitTask, files: UnitFiles): { policy: Policy; environment: Environment; writer: TrialCsvWriter; resume: ResumePoint } {
  const { trial } = unit;
  const { header, snapshot } = readCheckpoint(files.checkpoint, unit.policy, trial);
  const policy = restorePolicy(snapshot);
  const expected = entryOf(experiment.config, unit.policy).policy;
  if (policy.name !== expected) throw new Error(`the checkpoint holds ${policy.name}, the config plays ${expected}`);
  const writer = new TrialCsvWriter(files.partial, unit.policy, trial, header.csv);
  try {
    const series = readPartialTrial(files.partial, unit.policy, trial, experiment.config.horizon);
    const rounds = series?.cumRegret.length ?? 0;
    if (series === null || rounds !== header.rounds) throw new Error(`the partial CSV holds ${rounds} rounds where the checkpoint marked ${header.rounds}`);
    const environment = createTrialEnvironment(experiment, trial);
    let cumRegret = 0;
    for (let t = 1; t <= rounds; t++) {
      // Round by round, the replay must offer what the CSV says was offered and reach its regret.
      const offered = environment.actions(t).count;
      if (series.actionCounts !== null && offered !== series.actionCounts[t - 1]) {
        throw new Error(`the environment replayed offers ${offered} actions in round ${t}, the CSV says ${series.actionCounts[t - 1]}`);
      }
      cumRegret += environment.play(series.actions[t - 1] as number).regret;
      if (cumRegret !== series.cumRegret[t - 1]) {
        throw new Error(`the environment replayed to a regret of ${cumRegret} after round ${t}, the CSV says ${series.cumRegret[t - 1]}`);
      }
    }
    return { policy, environment, writer, resume: { rounds, cumRegret, selectMs: series.selectMs, updateMs: series.updateMs } };
  } catch (error) {
    writer.discard();
    throw error;
  }
}

/** Writes `p`'s checkpoint (its CSV flushed to the mark first); a failure is noted and ends the unit's checkpoints. */
function checkpoint(p: Playing, handlers: TrialHandlers): void {
  try {
    const csv = p.writer.mark();
    writeCheckpoint(p.files, { policy: p.unit.policy, trial: p.unit.trial, rounds: p.rounds, csv }, snapshotPolicy(p.side.policy));
  } catch (error) {
    p.checkpoints = false;
    fs.rmSync(p.files.checkpoint, { force: true });
    handlers.note?.(p.unit, `no checkpoints for this unit from round ${p.rounds} on: ${asError(error).message}`);
  }
  p.checkpointRounds = p.rounds;
  p.checkpointAt = performance.now();
}

/** Lets every policy go (Policy.close: a process policy's process); a failure there is noted, the unit's rounds being played. */
function closePolicies(playing: readonly Playing[], handlers: TrialHandlers): void {
  for (const p of playing) {
    try {
      p.side.policy.close?.();
    } catch (error) {
      handlers.note?.(p.unit, `its policy could not be closed: ${asError(error).message}`);
    }
  }
}

/**
 * Runs the units of `task` in lock-step and writes their files. With a `signal` (units in the thread
 * that receives SIGINT) the trial yields to the event loop every PROGRESS_INTERVAL_MS, between rounds,
 * so that signal handlers and timers run, and throws UnitStopped once the signal is aborted (every
 * partial CSV removed). A unit that cannot start or fails is reported and the others go on.
 */
export async function executeTrial(task: TrialTask & CheckpointOptions, handlers: TrialHandlers, signal?: AbortSignal): Promise<void> {
  const { experiment, trial } = task;
  const horizon = experiment.config.horizon;
  const every = task.checkpoint ?? null;
  const playing: Playing[] = [];
  for (const unit of task.units) {
    try {
      const files = unitFiles(task.dir, unit.policy, trial);
      fs.mkdirSync(files.folder, { recursive: true });
      let resumed: ReturnType<typeof resumeFromCheckpoint> | null = null;
      if (fs.existsSync(files.checkpoint)) {
        try {
          resumed = resumeFromCheckpoint(experiment, unit, files);
        } catch (error) {
          handlers.note?.(unit, `its checkpoint cannot be used, so it starts again from round 1: ${asError(error).message}`);
          fs.rmSync(files.checkpoint, { force: true });
        }
      }
      const environment = resumed?.environment ?? createTrialEnvironment(experiment, trial);
      const policy = resumed?.policy ?? createUnitPolicy(experiment, unit.policy, trial);
      const writer = resumed?.writer ?? new TrialCsvWriter(files.partial, unit.policy, trial);
      const rounds = resumed?.resume.rounds ?? 0;
      const p: Playing = {
        unit,
        files,
        writer,
        side: { environment, policy, onRound: () => undefined, ...(resumed === null ? {} : { resume: resumed.resume }) },
        rounds,
        checkpointRounds: rounds,
        checkpointAt: performance.now(),
        checkpoints: every !== null,
      };
      p.side.onRound = (record) => {
        writer.add(record);
        p.rounds = record.t;
        if (!p.checkpoints || every === null) return;
        if ((every.rounds !== undefined && p.rounds - p.checkpointRounds >= every.rounds) || (every.ms !== undefined && performance.now() - p.checkpointAt >= every.ms)) {
          checkpoint(p, handlers);
        }
      };
      playing.push(p);
      if (resumed !== null) handlers.resumed?.(unit, rounds);
    } catch (error) {
      handlers.failed(unit, asError(error));
    }
  }
  if (playing.length === 0) return;
  let last = performance.now();
  const between = (): Promise<void> | void => {
    const now = performance.now();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    for (const p of playing) handlers.progress(p.unit, p.rounds);
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
    // Stopped by the signal: a unit that checkpoints keeps its partial CSV and checkpoints where it is.
    for (const p of playing) {
      if (error instanceof UnitStopped && p.checkpoints && p.rounds > 0) {
        if (p.rounds > p.checkpointRounds) checkpoint(p, handlers);
        if (p.checkpoints) {
          p.writer.close();
          continue;
        }
      }
      p.writer.discard();
      fs.rmSync(p.files.checkpoint, { force: true });
    }
    closePolicies(playing, handlers);
    throw error;
  }
  closePolicies(playing, handlers);
  for (const [i, p] of playing.entries()) {
    const outcome = outcomes[i]!;
    if (outcome.error !== null) {
      p.writer.discard();
      fs.rmSync(p.files.checkpoint, { force: true });
      handlers.failed(p.unit, outcome.error);
      continue;
    }
    try {
      p.writer.close();
      const files = unitFiles(task.dir, p.unit.policy, trial);
      const own = p.side.policy.processTime?.();
      completeUnit(files, { policy: p.unit.policy, trial, horizon, bytes: p.writer.bytes, sha256: p.writer.sha256(), summary: outcome.summary, ...(own === undefined ? {} : { process: own }) });
    } catch (error) {
      p.writer.discard();
      handlers.failed(p.unit, asError(error));
      continue;
    }
    handlers.progress(p.unit, horizon);
    handlers.done(p.unit, { summary: outcome.summary, bytes: p.writer.bytes });
  }
}

/** One unit alone (a worker thread's task): executeTrial of a one-unit trial; throws the unit's failure (UnitStopped when the signal stopped it). */
export async function executeUnit(
  task: UnitTask & CheckpointOptions,
  handlers: Partial<Pick<TrialHandlers, 'note' | 'resumed'>> & { progress?(rounds: number): void } = {},
  signal?: AbortSignal,
): Promise<UnitResult> {
  let result: UnitResult | null = null;
  let failure: Error | null = null;
  const trialHandlers: TrialHandlers = {
    progress: (_, rounds) => handlers.progress?.(rounds),
    done: (_, r) => (result = r),
    failed: (_, error) => (failure = error),
    ...(handlers.note === undefined ? {} : { note: handlers.note }),
    ...(handlers.resumed === undefined ? {} : { resumed: handlers.resumed }),
  };
  const { checkpoint, ...unit } = task;
  await executeTrial({ experiment: task.experiment, dir: task.dir, trial: task.trial, units: [unit], checkpoint }, trialHandlers, signal);
  if (failure !== null) throw failure;
  return result as unknown as UnitResult;
}
