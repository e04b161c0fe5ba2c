/**
 * A policy in another process (a config entry `{command: [...], label}`), spoken to over the protocol
 * of protocol.ts. `Policy.select` and `update` are synchronous, and a child process's pipes are not:
 * a helper thread (BRIDGE below) owns the process and its pipes, and this thread posts it a message
 * and sleeps on a shared flag (Atomics.wait) until the helper has the answer, the process has died or
 * the time limit passed. A round trip through the thread costs about 20 µs beside the process's own.
 *
 * Every failure is an Error naming the command and what happened (exited with its code and the last
 * lines of its stderr, no answer within the limit, a line that is not JSON, an invalid action); the
 * trial loop turns it into a TrialError naming the label, trial and round, which fails this unit only.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { ActionSet } from '../../environments/environment.js';
import type { Policy, PolicyStats } from '../policy.js';
import { answeredAction, answeredMs, encodeVector, parseAnswer, PROTOCOL_VERSION, readyEncoding, type Encoding, type HelloMessage } from './protocol.js';

/** How long the process has to answer `end` and exit before it is killed. */
const END_GRACE_MS = 5000;
/** The longest answer line (bytes of its JSON) the helper can pass on. */
const ANSWER_BYTES = 1 << 20;
/** Beyond the process's limit, how long this thread waits for the helper itself before giving up on it. */
const HELPER_GRACE_MS = 10_000;

/**
 * The helper thread (CommonJS, run with `eval`: no file of its own to find in dist/ and the bundles).
 * Messages from this thread: {line, timeoutMs} (write the line, answer with the process's next line)
 * and {close, graceMs} (end its stdin, kill it if it has not exited after graceMs, then stop). Each
 * answer, {line} or {error} as JSON, is written to the shared buffer (its length in word 1, from byte
 * 8 on) and then signalled in word 0 (shared memory, ordered by the Atomics).
 */
const BRIDGE = String.raw`
const { workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const { port, shared, command, cwd } = workerData;
const flag = new Int32Array(shared, 0, 2);
const bytes = new Uint8Array(shared, 8);
const lines = [];
let partial = '';
let stderr = '';
let gone = null;
let waiting = null;
let closing = null;
const tail = () => {
  const last = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '').slice(-3).join(' / ');
  return last === '' ? '' : '; its stderr ends: ' + (last.length > 400 ? '…' + last.slice(-400) : last);
};
const reply = (message) => {
  let data = Buffer.from(JSON.stringify(message), 'utf8');
  if (data.length > bytes.length) data = Buffer.from(JSON.stringify({ error: 'answered with a line of ' + data.length + ' bytes, more than the ' + bytes.length + ' an answer may take' }), 'utf8');
  bytes.set(data);
  Atomics.store(flag, 1, data.length);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
const finish = (message) => {
  if (waiting === null) return;
  clearTimeout(waiting);
  waiting = null;
  reply(message);
};
let child;
try {
  child = spawn(command[0], command.slice(1), { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
} catch (error) {
  gone = 'could not be started: ' + error.message;
}
if (child !== undefined) {
  child.on('error', (error) => {
    gone = 'could not be started: ' + error.message;
    finish({ error: gone });
  });
  child.stdin.on('error', () => undefined);
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    partial += chunk;
    for (let i = partial.indexOf('\n'); i >= 0; i = partial.indexOf('\n')) {
      lines.push(partial.slice(0, i).replace(/\r$/, ''));
      partial = partial.slice(i + 1);
    }
    if (waiting !== null && lines.length > 0) finish({ line: lines.shift() });
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.on('close', (code, signal) => {
    gone = gone ?? (signal !== null ? 'was killed by ' + signal : 'exited with code ' + code) + tail();
    finish({ error: gone });
    if (closing === null) return;
    clearTimeout(closing);
    port.close();
  });
}
port.on('message', (message) => {
  if (message.close) {
    if (child === undefined || gone !== null) return port.close();
    child.stdin.end();
    closing = setTimeout(() => child.kill('SIGKILL'), message.graceMs);
    return;
  }
  if (lines.length > 0) return reply({ error: 'wrote a line no message asked for: ' + JSON.stringify(lines.shift().slice(0, 200)) });
  if (gone !== null) return reply({ error: gone });
  waiting = setTimeout(() => {
    gone = 'gave no answer within ' + message.timeoutMs / 1000 + ' s (the entry\'s timeout), so it was killed' + tail();
    child.kill('SIGKILL');
    finish({ error: gone });
  }, message.timeoutMs);
  child.stdin.write(message.line + '\n');
});
`;

/** What a process policy is started with. */
export interface ProcessPolicyOptions {
  /** The entry's label: the policy's name in errors and results. */
  label: string;
  /** Program and arguments (the program looked up on PATH unless it is a path). */
  command: readonly string[];
  /** The folder it runs in (the config's). */
  cwd: string;
  /** The per-message time limit, ms. */
  timeoutMs: number;
  /** The hello's contents (protocol.ts HelloMessage). */
  hello: Omit<HelloMessage, 'type' | 'protocol'>;
}

/** The process's own time, as its answers report it (`ms`), apart from eofd's wall time around each message. */
export interface ProcessTime {
  /** Sums over the answers that gave `ms`, and how many did. */
  selectMs: number;
  updateMs: number;
  selects: number;
  updates: number;
}

export class ProcessPolicy implements Policy {
  readonly name: string;
  readonly time: ProcessTime = { selectMs: 0, updateMs: 0, selects: 0, updates: 0 };
  private readonly port: MessagePort;
  private readonly flag: Int32Array;
  private readonly answer: Uint8Array;
  private readonly worker: Worker;
  private readonly encoding: Encoding;
  private readonly what: string;
  private round = 0;
  private action = -1;
  private closed = false;

  constructor(private readonly options: ProcessPolicyOptions) {
    this.name = options.label;
    this.what = `the process \`${options.command.join(' ')}\``;
    const shared = new SharedArrayBuffer(8 + ANSWER_BYTES);
    this.flag = new Int32Array(shared, 0, 2);
    this.answer = new Uint8Array(shared, 8);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(BRIDGE, { eval: true, workerData: { port: port2, shared, command: [...options.command], cwd: options.cwd }, transferList: [port2] });
    // Neither the helper nor the process keeps this thread's event loop alive (close() ends them; a process whose stdin closes should exit).
    this.worker.unref();
    this.port.unref();
    try {
      const ready = this.ask({ type: 'hello', protocol: PROTOCOL_VERSION, ...options.hello }, 'the hello (before round 1)');
      this.encoding = this.check(() => readyEncoding(ready), 'the hello (before round 1)');
    } catch (error) {
      // No policy to close later: the process goes now.
      this.closed = true;
      this.port.postMessage({ close: true, graceMs: 0 });
      throw error;
    }
  }

  select(actions: ActionSet, t: number): number {
    this.round = t;
    const features = encodeVector(actions.features.subarray(0, actions.count * actions.d), this.encoding);
    const answer = this.ask({ type: 'select', t, count: actions.count, features }, 'select');
    this.action = this.check(() => answeredAction(answer, actions.count), 'select');
    const ms = answeredMs(answer);
    if (!Number.isNaN(ms)) {
      this.time.selectMs += ms;
      this.time.selects++;
    }
    return this.action;
  }

  update(x: Float64Array, outcome: number): void {
    const answer = this.ask({ type: 'update', t: this.round, action: this.action, x: encodeVector(x, this.encoding), outcome }, 'update');
    const ms = answeredMs(answer);
    if (!Number.isNaN(ms)) {
      this.time.updateMs += ms;
      this.time.updates++;
    }
  }

  stats(): PolicyStats {
    return { stateBytes: 0, sketchError: 0, projections: 0, beta: NaN, delta: NaN };
  }

  processTime(): { meanSelectMs: number | null; meanUpdateMs: number | null } {
    const { selectMs, updateMs, selects, updates } = this.time;
    return { meanSelectMs: selects === 0 ? null : selectMs / selects, meanUpdateMs: updates === 0 ? null : updateMs / updates };
  }

  estimate(): Float64Array {
    return new Float64Array(0);
  }

  /** Sends `end`, waits (briefly) for its answer, and lets the process go: killed if it has not exited END_GRACE_MS later. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.ask({ type: 'end', rounds: this.round }, 'end', Math.min(this.options.timeoutMs, END_GRACE_MS));
    } catch {
      // The unit's results are written; a process that cannot say goodbye is killed below.
    }
    this.port.postMessage({ close: true, graceMs: END_GRACE_MS });
  }

  /** Sends one message and returns its answer; throws an Error naming the process and the message. */
  private ask(message: Record<string, unknown>, what: string, timeoutMs = this.options.timeoutMs): Record<string, unknown> {
    if (this.closed && message.type !== 'end') throw new Error(`${this.what} was already ended`);
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ line: JSON.stringify(message), timeoutMs });
    // A wake-up can be the previous answer's notify, which the helper sends after setting the flag that
    // this thread may already have seen: wait again until the flag is set, or the time is up.
    const deadline = performance.now() + timeoutMs + HELPER_GRACE_MS;
    while (Atomics.load(this.flag, 0) === 0) {
      const left = deadline - performance.now();
      if (left <= 0) {
        void this.worker.terminate();
        throw new Error(`${this.what}: its helper thread did not answer ${what}`);
      }
      Atomics.wait(this.flag, 0, 0, left);
    }
    const length = Atomics.load(this.flag, 1);
    const received = JSON.parse(Buffer.from(this.answer.subarray(0, length)).toString('utf8')) as { line?: string; error?: string };
    if (received.error !== undefined) throw new Error(`${this.what} ${received.error} (during ${what})`);
    return this.check(() => parseAnswer(received.line as string), what);
  }

  private check<T>(read: () => T, what: string): T {
    try {
      return read();
    } catch (error) {
      throw new Error(`${this.what} ${(error as Error).message} (to ${what})`);
    }
  }
}

/** Whether `policy` runs in another process (it has no state here to snapshot). */
export function isProcessPolicy(policy: Policy): policy is ProcessPolicy {
  return policy instanceof ProcessPolicy;
}
