/**
 * Worker-thread entry of the unit pool (compiled to dist/experiment/worker.js and bundled into
 * dist/bundle/worker.js by scripts/bundle.mjs). It runs one unit per `run` message and answers with
 * `progress` messages, then `done` or `failed`.
 */
import { parentPort } from 'node:worker_threads';
import { executeUnit, type UnitResult, type UnitTask } from './unit.js';

export type ToWorker = { type: 'run'; task: UnitTask };
export type FromWorker =
  | { type: 'progress'; id: number; rounds: number }
  | { type: 'done'; id: number; result: UnitResult }
  | { type: 'failed'; id: number; name: string; message: string; stack?: string };

const port = parentPort;
if (port === null) throw new Error('worker.ts is a worker_threads entry point, not a script to run');

port.on('message', async (message: ToWorker) => {
  if (message.type !== 'run') return;
  const { id } = message.task;
  const send = (reply: FromWorker): void => port.postMessage(reply);
  try {
    // No signal here: the pool stops a worker by terminating it.
    const result = await executeUnit(message.task, (rounds) => send({ type: 'progress', id, rounds }));
    send({ type: 'done', id, result });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    send({ type: 'failed', id, name: failure.name, message: failure.message, stack: failure.stack });
  }
});
