/**
 * Worker-thread entry of the unit pool (compiled to dist/experiment/worker.js and bundled into
 * dist/bundle/worker.js by scripts/bundle.mjs). It runs one unit per `run` message and answers with
 * `progress` messages, then `done` or `failed`; or the units of one trial in lock-step per `trial`
 * message (pool.ts runInProcess: the thread that handles signals stays free), answering per unit as
 * for `run`, then `trial-end`. A `stop` message stops the running unit or trial between rounds (a unit
 * that checkpoints writes its checkpoint, the others' partial files are removed), as an aborted signal
 * stops it in the main thread; a stopped `run` answers `stopped`.
 */
import { parentPort } from 'node:worker_threads';
import { executeTrial, executeUnit, UnitStopped, type CheckpointOptions, type TrialTask, type UnitResult, type UnitTask } from './unit.js';

export type ToWorker = { type: 'run'; task: UnitTask & CheckpointOptions } | { type: 'trial'; task: TrialTask & CheckpointOptions } | { type: 'stop' };
export type FromWorker =
  | { type: 'progress'; id: number; rounds: number }
  | { type: 'note'; id: number; message: string }
  | { type: 'resumed'; id: number; rounds: number }
  /** A `run` unit stopped by a `stop` message (its checkpoint written, if it checkpoints). */
  | { type: 'stopped'; id: number }
  | { type: 'done'; id: number; result: UnitResult }
  | { type: 'failed'; id: number; name: string; message: string; stack?: string }
  /** The trial ended: `stopped` by a `stop` message, or `error` before its units reported (they failed with it). */
  | { type: 'trial-end'; stopped: boolean; error?: { name: string; message: string; stack?: string } };

const port = parentPort;
if (port === null) throw new Error('worker.ts is a worker_threads entry point, not a script to run');

const send = (reply: FromWorker): void => port.postMessage(reply);
const asFailure = (error: unknown): { name: string; message: string; stack?: string } => {
  const failure = error instanceof Error ? error : new Error(String(error));
  return { name: failure.name, message: failure.message, stack: failure.stack };
};
/** The running trial's or unit's stop (one message at a time). */
let stop: AbortController | null = null;

port.on('message', async (message: ToWorker) => {
  if (message.type === 'stop') {
    stop?.abort();
    return;
  }
  if (message.type === 'trial') {
    stop = new AbortController();
    let end: FromWorker = { type: 'trial-end', stopped: false };
    try {
      await executeTrial(
        message.task,
        {
          progress: (unit, rounds) => send({ type: 'progress', id: unit.id, rounds }),
          done: (unit, result) => send({ type: 'done', id: unit.id, result }),
          failed: (unit, error) => send({ type: 'failed', id: unit.id, ...asFailure(error) }),
          note: (unit, text) => send({ type: 'note', id: unit.id, message: text }),
          resumed: (unit, rounds) => send({ type: 'resumed', id: unit.id, rounds }),
        },
        stop.signal,
      );
    } catch (error) {
      end = error instanceof UnitStopped ? { type: 'trial-end', stopped: true } : { type: 'trial-end', stopped: false, error: asFailure(error) };
    }
    stop = null;
    send(end);
    return;
  }
  const { id } = message.task;
  stop = new AbortController();
  try {
    const result = await executeUnit(
      message.task,
      {
        progress: (rounds) => send({ type: 'progress', id, rounds }),
        note: (_, text) => send({ type: 'note', id, message: text }),
        resumed: (_, rounds) => send({ type: 'resumed', id, rounds }),
      },
      stop.signal,
    );
    send({ type: 'done', id, result });
  } catch (error) {
    send(error instanceof UnitStopped ? { type: 'stopped', id } : { type: 'failed', id, ...asFailure(error) });
  }
  stop = null;
});
