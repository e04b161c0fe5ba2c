/**
 * Running units: trial after trial (`jobs = 1`), the units of a trial in lock-step (unit.ts
 * `executeTrial`) in this thread or, when the run can be signalled, on one worker thread; or one unit at
 * a time on each of a pool of worker threads (worker.ts). Each unit writes its own files; the pool only
 * hands out tasks and relays progress. An aborted signal stops either within a round or two: a
 * running unit looks at it between rounds (it yields to its event loop every PROGRESS_INTERVAL_MS),
 * writes its checkpoint if it checkpoints (else its partial files are removed), and a pool worker is
 * terminated once its unit has stopped (or at once if it is idle).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RunError } from '../base/errors.js';
import { unitFiles } from '../results/layout.js';
import { readFinishedUnit } from '../results/read.js';
import { clearUnit } from '../results/write.js';
import { executeTrial, UnitStopped, type CheckpointOptions, type TrialHandlers, type TrialTask, type UnitResult, type UnitTask } from './unit.js';
import type { FromWorker, ToWorker } from './worker.js';

/** The compiled worker next to this module (dist/experiment/, or the CLI's bundle next to its worker bundle); null running from TypeScript sources. */
export function siblingWorkerScript(): URL | null {
  const sibling = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker.js');
  return fs.existsSync(sibling) ? pathToFileURL(sibling) : null;
}

/** The compiled worker next to this module, or, running from TypeScript sources, the repository's bundled worker. */
export function defaultWorkerScript(): URL {
  return siblingWorkerScript() ?? pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bundle', 'worker.js'));
}

export interface TaskHandlers {
  start(task: UnitTask): void;
  progress(task: UnitTask, rounds: number): void;
  done(task: UnitTask, result: UnitResult): void;
  failed(task: UnitTask, error: { name: string; message: string; stack?: string }): void;
  /** A message about the unit that does not stop it (unit.ts TrialHandlers.note). */
  note?(task: UnitTask, message: string): void;
  /** The unit continues from its checkpoint after `rounds` rounds. */
  resumed?(task: UnitTask, rounds: number): void;
}

/**
 * Trials one after another, each trial's units in lock-step, in this thread, or, with `script`, on one
 * worker thread (the same lock-step, so that this thread, which receives signals, stays free: a second
 * signal can end the process at once even while a round takes minutes). The signal stops the running
 * trial between rounds. Returns true if stopped early.
 */
export async function runInProcess(
  tasks: readonly (TrialTask & CheckpointOptions)[],
  handlers: TaskHandlers,
  signal: AbortSignal | undefined,
  script?: string | URL,
): Promise<boolean> {
  const thread = script === undefined ? null : startTrialThread(script, signal);
  try {
    for (const task of tasks) {
      if (signal?.aborted) return true;
      for (const unit of task.units) handlers.start(unit);
      const reported = new Set<UnitTask>();
      const relay: TrialHandlers = {
        progress: (unit, rounds) => handlers.progress(unit, rounds),
        done: (unit, result) => {
          reported.add(unit);
          handlers.done(unit, result);
        },
        failed: (unit, error) => {
          reported.add(unit);
          handlers.failed(unit, error);
        },
        note: (unit, message) => handlers.note?.(unit, message),
        resumed: (unit, rounds) => handlers.resumed?.(unit, rounds),
      };
      try {
        if (thread === null) await executeTrial(task, relay, signal);
        else await thread.run(task, relay);
      } catch (error) {
        if (error instanceof UnitStopped) return true;
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const unit of task.units) if (!reported.has(unit)) handlers.failed(unit, failure);
      }
      // Let signal handlers and timers (progress bars) run between trials.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return false;
  } finally {
    await thread?.close();
  }
}

/** One worker thread that plays trials in lock-step (worker.ts `trial`), stopped by `signal` between rounds. */
function startTrialThread(
  script: string | URL,
  signal: AbortSignal | undefined,
): { run(task: TrialTask & CheckpointOptions, handlers: TrialHandlers): Promise<void>; close(): Promise<void> } {
  const scriptPath = typeof script === 'string' ? script : fileURLToPath(script);
  if (!fs.existsSync(scriptPath)) throw new RunError(`the compiled worker ${scriptPath} is missing; run \`npm run build\` first`);
  const worker = new Worker(scriptPath);
  /** The trial being played: its units by id, its handlers, and how it ends. */
  let current: { units: Map<number, UnitTask>; handlers: TrialHandlers; resolve(): void; reject(error: Error): void } | null = null;
  const onAbort = (): void => worker.postMessage({ type: 'stop' } satisfies ToWorker);
  signal?.addEventListener('abort', onAbort);
  /** Why the thread can play no more trials (it crashed or exited), once it cannot. */
  let dead: Error | null = null;
  const fail = (error: Error): void => {
    dead ??= error;
    const trial = current;
    current = null;
    trial?.reject(error);
  };
  worker.on('message', (message: FromWorker) => {
    const trial = current;
    if (trial === null) return;
    if (message.type === 'trial-end') {
      current = null;
      if (message.stopped) trial.reject(new UnitStopped());
      else if (message.error !== undefined) trial.reject(Object.assign(new Error(message.error.message), message.error));
      else trial.resolve();
      return;
    }
    const unit = trial.units.get(message.id);
    if (unit === undefined) return;
    if (message.type === 'progress') trial.handlers.progress(unit, message.rounds);
    else if (message.type === 'done') trial.handlers.done(unit, message.result);
    else if (message.type === 'note') trial.handlers.note?.(unit, message.message);
    else if (message.type === 'resumed') trial.handlers.resumed?.(unit, message.rounds);
    else if (message.type === 'failed') trial.handlers.failed(unit, Object.assign(new Error(message.message), { name: message.name, stack: message.stack }));
  });
  worker.on('error', (error) => fail(new Error(`the worker thread crashed: ${error.message}`)));
  worker.on('exit', () => fail(new Error('the worker thread exited unexpectedly')));
  return {
    run: (task, handlers) =>
      new Promise<void>((resolve, reject) => {
        if (dead !== null) {
          reject(dead);
          return;
        }
        current = { units: new Map(task.units.map((u) => [u.id, u])), handlers, resolve, reject };
        worker.postMessage({ type: 'trial', task } satisfies ToWorker);
        // A signal that came before the trial was posted stops it at its first pause.
        if (signal?.aborted) onAbort();
      }),
    close: async () => {
      signal?.removeEventListener('abort', onAbort);
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}

/** Units on `size` worker threads. Returns true if the signal stopped it before every unit ran. */
export function runPool(
  tasks: readonly (UnitTask & CheckpointOptions)[],
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
        if (task === undefined || message.type === 'trial-end' || message.id !== task.id) return;
        if (message.type === 'progress') {
          handlers.progress(task, message.rounds);
        } else if (message.type === 'note') {
          handlers.note?.(task, message.message);
        } else if (message.type === 'resumed') {
          handlers.resumed?.(task, message.rounds);
        } else if (message.type === 'stopped') {
          // Stopped by the signal, its checkpoint written: the exit handler counts it.
          void worker.terminate();
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
            // Stopped mid-unit: nothing of it may look finished (a unit that completed is kept); one that
            // checkpointed keeps its checkpoint and partial CSV (--resume cuts the CSV back to the mark).
            const files = unitFiles(task.dir, task.policy, task.trial);
            const { horizon } = task.experiment.config;
            if (readFinishedUnit(files, task.policy, task.trial, horizon) === null && !fs.existsSync(files.checkpoint)) clearUnit(files);
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
      // A running unit stops between rounds and answers `stopped` (then its worker is terminated); idle workers go now.
      for (const worker of alive) {
        if (running.has(worker)) worker.postMessage({ type: 'stop' } satisfies ToWorker);
        else void worker.terminate();
      }
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
