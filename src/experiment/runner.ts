/**
 * The experiment runner: configs → units (experiment, policy, trial) → files (output.ts).
 *
 * 1. Before any work: the output folder can be written, each experiment's lock is taken (lock.ts),
 *    and an existing `<out>/<name>` is refused unless `resume` (its manifest's config must match) or
 *    `force` (it is deleted, after the configs resolved without error).
 * 2. Units run longest first (OFUL-MLogB, then EOFD-MLogB, then Random; within a policy, larger T·Kd
 *    first), in-process for `jobs = 1`, else on a pool of worker threads. A unit's seeds come from its
 *    identity, so its bytes do not depend on the pool. A failing unit is reported and the rest go on.
 * 3. An experiment whose units are all finished gets its summary.csv.
 * An aborted `signal` stops the run: workers are terminated and their partial files removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExperimentConfig } from '../config/schema.js';
import { acquireLock, LockedError, type Lock } from './lock.js';
import { buildManifest, configDifference, manifestConfig } from './manifest.js';
import { clearUnit, readFinishedUnit, removeLeftovers, summaryCsv, unitFiles, writeFileAtomic, type UnitSummaryFile } from './output.js';
import type { SeedSplit } from './seeds.js';
import { resolveExperiment, type ResolvedExperiment } from './setup.js';
import { inShard, SHARD_SCHEME, type Shard } from './shard.js';
import type { TrialSummary } from './trial.js';
import { executeUnit, type UnitResult, type UnitTask } from './unit.js';
import type { FromWorker, ToWorker } from './worker.js';

/** A failure of the run as a whole, with the exit code it maps to (2: usage, 1: anything else). */
export class RunError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'RunError';
  }
}

/** One unit, as events name it. */
export interface UnitRef {
  experiment: string;
  policy: string;
  trial: number;
  /** T of the unit's experiment. */
  horizon: number;
}

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
  /** Aborting it stops the run (SIGINT). */
  signal?: AbortSignal;
  events?: RunEvents;
  mnistDataRoot?: string;
  /** The compiled worker script (default: dist/experiment/worker.js of this package). */
  workerScript?: string | URL;
  /**
   * Run only this shard's units (shard.ts: unit k of the fixed config order runs on shard k mod count);
   * the manifests record it. `out` is used as given (the CLI puts shards under `<out>/shard-<i>-of-<n>`).
   */
  shard?: Shard;
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

/** Sort rank of a policy: the slow exact baseline first, the uniform reference last. */
const POLICY_RANK: Readonly<Record<string, number>> = { 'OFUL-MLogB': 0, 'EOFD-MLogB': 1, Random: 2 };

/** The compiled worker next to this module, or (running from TypeScript sources) the repository's dist/. */
export function defaultWorkerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  const sibling = path.join(path.dirname(here), 'worker.js');
  if (fs.existsSync(sibling)) return pathToFileURL(sibling);
  return pathToFileURL(path.resolve(path.dirname(here), '..', '..', 'dist', 'experiment', 'worker.js'));
}

function errorCode(error: unknown): string {
  return String((error as NodeJS.ErrnoException).code ?? '');
}

/** The first existing path on the way to `target` that is not a folder, if any. */
function fileInTheWay(target: string): string | null {
  let current = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const p of chain) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      return null;
    }
    if (!stat.isDirectory()) return p;
  }
  return null;
}

/** Creates `folder` (and parents), or throws a one-line RunError saying why it cannot be written. */
function makeFolder(folder: string, what: string): void {
  try {
    fs.mkdirSync(folder, { recursive: true });
    if (!fs.statSync(folder).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (error) {
    const blocker = fileInTheWay(folder);
    if (blocker !== null) {
      throw new RunError(`cannot write ${what} ${folder}: ${path.relative(process.cwd(), blocker) || blocker} is a file, not a folder`);
    }
    throw new RunError(`cannot write ${what} ${folder}: ${describeFsError(error)}`);
  }
}

function describeFsError(error: unknown): string {
  const code = errorCode(error);
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code === 'EROFS') return 'read-only file system (EROFS)';
  if (code === 'ENOSPC') return 'no space left on the device (ENOSPC)';
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

type FolderState = 'fresh' | 'resume' | 'replace';

/** What to do with `<out>/<name>`: refuse (throws), start fresh, resume, or replace. */
function inspectFolder(dir: string, options: RunOptions): FolderState {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'fresh';
    throw new RunError(`cannot read ${dir}: ${describeFsError(error)}`);
  }
  if (!stat.isDirectory()) throw new RunError(`cannot write the experiment folder ${dir}: it is a file, not a folder`);
  if (fs.readdirSync(dir).length === 0) return 'fresh';
  if (options.force) return 'replace';
  if (options.resume) return 'resume';
  throw new RunError(
    `${dir} already holds results; add --resume to finish that run, or --force to delete it and start over`,
    2,
  );
}

/** On --resume: the earlier run's config must be this run's, field for field. */
function checkResumable(dir: string, resolved: ResolvedExperiment, shard: Shard | undefined): void {
  const file = path.join(dir, 'manifest.json');
  let previous: { config?: unknown; shard?: Partial<Shard> };
  try {
    previous = JSON.parse(fs.readFileSync(file, 'utf8')) as { config?: unknown; shard?: Partial<Shard> };
  } catch {
    throw new RunError(`cannot resume ${dir}: it has no readable manifest.json (not an eofd run folder?); use --force to replace it`, 2);
  }
  const current: unknown = JSON.parse(JSON.stringify(manifestConfig(resolved)));
  const difference = configDifference(previous.config, current);
  if (difference !== null) {
    throw new RunError(
      `cannot resume ${dir}: its config differs from this one at ${difference}; rerun with the same config and --set values, or use --force to start over`,
      2,
    );
  }
  const was = previous.shard === undefined ? 'unsharded' : `shard ${previous.shard.index}/${previous.shard.count}`;
  const now = shard === undefined ? 'unsharded' : `shard ${shard.index}/${shard.count}`;
  if (was !== now) throw new RunError(`cannot resume ${dir}: it holds a ${was} run, this is ${now}; use the same --shard, or --force to start over`, 2);
}

function unitCost(unit: UnitRef, resolved: ResolvedExperiment): number {
  return unit.horizon * resolved.environment.K * resolved.environment.d;
}

/** Runs the experiments; see the module comment. Throws RunError when the run cannot start. */
export async function runExperiments(configs: readonly ExperimentConfig[], options: RunOptions): Promise<RunResult> {
  if (options.resume && options.force) throw new RunError('--resume and --force exclude each other; give one', 2);
  const jobs = options.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1) throw new RunError(`jobs must be an integer ≥ 1, got ${jobs}`, 2);
  const names = configs.map((c) => c.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new RunError(`two experiments are named ${JSON.stringify(duplicate)}; names must be unique`, 2);
  const shard = options.shard;
  if (shard !== undefined && !(Number.isInteger(shard.count) && shard.count >= 1 && Number.isInteger(shard.index) && shard.index >= 0 && shard.index < shard.count)) {
    throw new RunError(`shard must satisfy 0 ≤ index < count, got ${shard.index}/${shard.count}`, 2);
  }

  makeFolder(options.out, 'to the output folder');
  const locks: Lock[] = [];
  try {
    for (const config of configs) {
      try {
        locks.push(acquireLock(path.join(options.out, `.${config.name}.lock`)));
      } catch (error) {
        if (error instanceof LockedError) throw new RunError(`${path.join(options.out, config.name)}: ${error.message}`);
        throw new RunError(`cannot write to the output folder ${options.out}: ${describeFsError(error)}`);
      }
    }
    const dirs = configs.map((c) => path.join(options.out, c.name));
    const states = dirs.map((dir) => inspectFolder(dir, options));
    const resolved = configs.map((config) =>
      resolveExperiment(config, { split: options.split, configFile: options.configFile, mnistDataRoot: options.mnistDataRoot }),
    );
    states.forEach((state, i) => {
      if (state === 'resume') checkResumable(dirs[i] as string, resolved[i] as ResolvedExperiment, shard);
    });

    const plan: RunPlan = { experiments: [], jobs: 1 };
    /** Unit number in the fixed order (experiments, policies, trials as configured): shard.ts. */
    let unitNumber = 0;
    for (let i = 0; i < configs.length; i++) {
      const dir = dirs[i] as string;
      const experiment = resolved[i] as ResolvedExperiment;
      const state = states[i] as FolderState;
      if (state === 'replace') fs.rmSync(dir, { recursive: true, force: true });
      if (state !== 'resume') {
        makeFolder(dir, 'the experiment folder');
        try {
          const manifest = buildManifest(experiment, shard === undefined ? undefined : { index: shard.index, count: shard.count, first_unit: unitNumber, scheme: SHARD_SCHEME });
          writeFileAtomic(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
        } catch (error) {
          throw new RunError(`cannot write ${path.join(dir, 'manifest.json')}: ${describeFsError(error)}`);
        }
      }
      const planned: PlannedExperiment = { resolved: experiment, dir, resumed: state === 'resume', finished: [], pending: [] };
      const { config } = experiment;
      for (const policy of config.policies) {
        removeLeftovers(path.join(dir, policy));
        for (let trial = 0; trial < config.trials; trial++) {
          if (!inShard(unitNumber++, shard)) continue;
          const unit: UnitRef = { experiment: config.name, policy, trial, horizon: config.horizon };
          const files = unitFiles(dir, policy, trial);
          if (state === 'resume' && readFinishedUnit(files, policy, trial, config.horizon) !== null) {
            planned.finished.push(unit);
          } else {
            clearUnit(files);
            planned.pending.push(unit);
          }
        }
      }
      plan.experiments.push(planned);
    }

    const tasks: (UnitTask & { unit: UnitRef; cost: number; rank: number; order: number })[] = [];
    plan.experiments.forEach((planned, order) => {
      for (const unit of planned.pending) {
        tasks.push({
          id: tasks.length,
          experiment: planned.resolved,
          dir: planned.dir,
          policy: unit.policy,
          trial: unit.trial,
          unit,
          cost: unitCost(unit, planned.resolved),
          rank: POLICY_RANK[unit.policy] ?? 3,
          order,
        });
      }
    });
    tasks.sort((a, b) => a.rank - b.rank || b.cost - a.cost || a.order - b.order || a.trial - b.trial);
    plan.jobs = jobs === 1 ? 1 : Math.max(1, Math.min(jobs, tasks.length));
    options.events?.onPlan?.(plan);

    const failures: UnitFailure[] = [];
    let unitsRun = 0;
    const handlers: TaskHandlers = {
      start: (task) => options.events?.onUnitStart?.(taskUnit(task)),
      progress: (task, rounds) => options.events?.onProgress?.(taskUnit(task), rounds),
      done: (task, result) => {
        unitsRun++;
        options.events?.onUnitDone?.(taskUnit(task), result.summary);
      },
      failed: (task, error) => {
        const unit = taskUnit(task);
        const message =
          error.name === 'TrialError'
            ? `${unit.experiment}: ${error.message}`
            : `${unit.experiment}: ${unit.policy}, trial ${unit.trial}: ${error.message}`;
        failures.push({ unit, message: message.split('\n')[0] as string });
        options.events?.onUnitFailed?.(unit, message.split('\n')[0] as string, error.stack);
      },
    };
    const stoppedEarly =
      jobs === 1
        ? await runInProcess(tasks, handlers, options.signal)
        : await runPool(tasks, plan.jobs, options.workerScript ?? defaultWorkerScript(), handlers, options.signal);

    const experiments: ExperimentOutcome[] = plan.experiments.map((planned) => {
      const { config } = planned.resolved;
      const units: UnitSummaryFile[] = [];
      for (const policy of config.policies) {
        for (let trial = 0; trial < config.trials; trial++) {
          const unit = readFinishedUnit(unitFiles(planned.dir, policy, trial), policy, trial, config.horizon);
          if (unit !== null) units.push(unit);
        }
      }
      const complete = units.length === config.policies.length * config.trials;
      if (complete) writeFileAtomic(path.join(planned.dir, 'summary.csv'), summaryCsv(units));
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

interface TaskHandlers {
  start(task: UnitTask): void;
  progress(task: UnitTask, rounds: number): void;
  done(task: UnitTask, result: UnitResult): void;
  failed(task: UnitTask, error: { name: string; message: string; stack?: string }): void;
}

/** Units one after another in this thread; the signal is looked at between units. Returns true if stopped early. */
async function runInProcess(tasks: readonly UnitTask[], handlers: TaskHandlers, signal: AbortSignal | undefined): Promise<boolean> {
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i] as UnitTask;
    if (signal?.aborted) return true;
    handlers.start(task);
    try {
      const result = executeUnit(task, (rounds) => handlers.progress(task, rounds));
      handlers.done(task, result);
    } catch (error) {
      handlers.failed(task, error instanceof Error ? error : new Error(String(error)));
    }
    // Let signal handlers and timers (progress bars) run between units.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

/** Units on `size` worker threads. Returns true if the signal stopped it before every unit ran. */
function runPool(
  tasks: readonly UnitTask[],
  size: number,
  script: string | URL,
  handlers: TaskHandlers,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (tasks.length === 0) return Promise.resolve(signal?.aborted === true);
  const scriptPath = typeof script === 'string' ? script : fileURLToPath(script);
  if (!fs.existsSync(scriptPath)) {
    return Promise.reject(new RunError(`the compiled worker ${scriptPath} is missing; run \`npm run build\` first`));
  }
  return new Promise((resolve) => {
    const queue = [...tasks];
    const running = new Map<Worker, UnitTask>();
    const alive = new Set<Worker>();
    let stopping = false;
    let startFailure: string | null = null;
    /** Units cut short by the signal. */
    let interruptedTasks = 0;

    const finish = (): void => {
      if (alive.size > 0) return;
      signal?.removeEventListener('abort', onAbort);
      // A worker that could not even start fails every unit left.
      if (startFailure !== null) {
        for (const task of queue.splice(0)) handlers.failed(task, { name: 'Error', message: startFailure });
      }
      resolve(stopping && (queue.length > 0 || interruptedTasks > 0));
    };

    const feed = (worker: Worker): void => {
      const task = stopping || startFailure !== null ? undefined : queue.shift();
      if (task === undefined) {
        running.delete(worker);
        void worker.terminate();
        return;
      }
      running.set(worker, task);
      worker.postMessage({ type: 'run', task } satisfies ToWorker);
      handlers.start(task);
    };

    const spawn = (): void => {
      const worker = new Worker(scriptPath);
      let answered = false;
      alive.add(worker);
      worker.on('message', (message: FromWorker) => {
        answered = true;
        const task = running.get(worker);
        if (task === undefined || message.id !== task.id) return;
        if (message.type === 'progress') {
          handlers.progress(task, message.rounds);
        } else if (message.type === 'done') {
          running.delete(worker);
          handlers.done(task, message.result);
          feed(worker);
        } else {
          running.delete(worker);
          handlers.failed(task, message);
          feed(worker);
        }
      });
      worker.on('error', (error) => {
        const task = running.get(worker);
        running.delete(worker);
        if (!answered) startFailure = `a worker thread could not start: ${error.message.split('\n')[0]}`;
        if (task !== undefined) handlers.failed(task, { name: 'Error', message: `the worker thread crashed: ${error.message}`, stack: error.stack });
      });
      worker.on('exit', () => {
        alive.delete(worker);
        const task = running.get(worker);
        running.delete(worker);
        if (task !== undefined) {
          if (stopping) {
            interruptedTasks++;
            // Terminated mid-unit: nothing of it may look finished (a unit that completed is kept).
            const files = unitFiles(task.dir, task.policy, task.trial);
            const { horizon } = task.experiment.config;
            if (readFinishedUnit(files, task.policy, task.trial, horizon) === null) clearUnit(files);
          } else {
            handlers.failed(task, { name: 'Error', message: 'the worker thread exited unexpectedly' });
          }
        }
        if (!stopping && startFailure === null && queue.length > 0 && alive.size < size) spawn();
        finish();
      });
      feed(worker);
    };

    const onAbort = (): void => {
      if (stopping) return;
      stopping = true;
      for (const worker of alive) void worker.terminate();
    };
    if (signal?.aborted) {
      resolve(true);
      return;
    }
    signal?.addEventListener('abort', onAbort);
    const initial = Math.min(size, queue.length);
    for (let i = 0; i < initial; i++) spawn();
  });
}
