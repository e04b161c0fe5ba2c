/**
 * Worker-thread entry of the unit pool (compiled to dist/experiment/worker.js and bundled into
 * dist/bundle/worker.js by scripts/bundle.mjs). It runs one unit per `run` message and answers with
 * `progress` messages, then `done` or `failed`; or the units of one trial in lock-step per `trial`
 * message (pool.ts runInProcess: the thread that handles signals stays free), answering per unit as
 * for `run`, then `trial-end`. A `stop` message stops the running trial between rounds (its partial
 * files removed), as an aborted signal stops it in the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { executeTrial, executeUnit, UnitStopped, type TrialTask, type UnitResult, type UnitTask } from './unit.js';

export type ToWorker = { type: 'run'; task: UnitTask } | { type: 'trial'; task: TrialTask } | { type: 'stop' };
export type FromWorker =
  | { type: 'progress'; id: number; rounds: number }
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
/** The running trial's stop (a `trial` message at a time). */
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
  try {
    // No signal here: the pool stops a worker by terminating it.
    const result = await executeUnit(message.task, (rounds) => send({ type: 'progress', id, rounds }));
    send({ type: 'done', id, result });
  } catch (error) {
    send({ type: 'failed', id, ...asFailure(error) });
  }
});
