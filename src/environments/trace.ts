/**
 * The `trace` environment (DESIGN §3): replays a recorded instance from JSON,
 *   {"K", "d", "reward": [r_0..r_K], "W_star": [[..]..], "rounds": [{"actions": [[..]..], "u": number}]},
 * sampling each outcome with the recorded uniform u by the shared outcome rule, so that another
 * implementation can be checked against this one decision by decision.
 */
import { z } from 'zod';
import { ConfigError } from '../base/errors.js';
import { INPUT_LIMITS, InputFileError, readInputFile } from '../base/files.js';
import { strictObject } from '../base/fields.js';
import { bytesSha256 } from '../base/hash.js';
import { defineEnvironment, ENVIRONMENT_LIMITS, type ActionSet, type Environment, type Feedback } from './environment.js';
import { hypot } from '../linalg/blas.js';
import { LogisticInstance } from './simulation.js';

/** A recorded instance, as parsed from JSON. */
export interface Trace {
  K: number;
  d: number;
  /** r_0..r_K (r_0 = 0). */
  reward: number[];
  /** W* as K rows of d numbers. */
  W_star: number[][];
  rounds: { actions: number[][]; u: number }[];
}

function fail(file: string, field: string, detail: string): never {
  throw new ConfigError({ file, field, detail });
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function requireInteger(file: string, field: string, value: unknown, min: number, max: number): number {
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)) {
    fail(file, field, `expected an integer in ${min}..${max}, got ${describe(value)}`);
  }
  return value;
}

function requireVector(file: string, field: string, value: unknown, length: number): number[] {
  if (!Array.isArray(value)) fail(file, field, `expected an array of ${length} numbers, got ${describe(value)}`);
  if (value.length !== length) fail(file, field, `expected ${length} numbers, got ${value.length}`);
  value.forEach((v, i) => {
    if (!(typeof v === 'number' && Number.isFinite(v))) fail(file, `${field}[${i}]`, `expected a finite number, got ${describe(v)}`);
  });
  return value as number[];
}

/** Checks a parsed trace, throwing a ConfigError naming the file and the first bad field. */
export function validateTrace(data: unknown, file: string): Trace {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) fail(file, '', `expected a JSON object, got ${describe(data)}`);
  const record = data as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!['K', 'd', 'reward', 'W_star', 'rounds'].includes(key)) fail(file, key, 'unknown field (allowed: K, d, reward, W_star, rounds)');
  }
  for (const key of ['K', 'd', 'reward', 'W_star', 'rounds']) {
    if (!(key in record)) fail(file, key, 'missing field');
  }
  const K = requireInteger(file, 'K', record.K, 1, ENVIRONMENT_LIMITS.maxOutcomes);
  const d = requireInteger(file, 'd', record.d, 1, ENVIRONMENT_LIMITS.maxDimension);
  const reward = requireVector(file, 'reward', record.reward, K + 1);
  if (reward[0] !== 0) fail(file, 'reward[0]', `r_0 must be 0 (the null outcome), got ${reward[0]}`);
  reward.forEach((r, k) => {
    if (r < 0) fail(file, `reward[${k}]`, `rewards must be ≥ 0, got ${r}`);
  });
  const wStar = record.W_star;
  if (!Array.isArray(wStar) || wStar.length !== K) fail(file, 'W_star', `expected ${K} rows of ${d} numbers, got ${describe(wStar)}`);
  wStar.forEach((row, i) => requireVector(file, `W_star[${i}]`, row, d));
  const rounds = record.rounds;
  if (!Array.isArray(rounds) || rounds.length === 0) fail(file, 'rounds', `expected a non-empty array of rounds, got ${describe(rounds)}`);
  rounds.forEach((round, t) => {
    const field = `rounds[${t}]`;
    if (typeof round !== 'object' || round === null || Array.isArray(round)) fail(file, field, `expected {actions, u}, got ${describe(round)}`);
    const { actions, u } = round as Record<string, unknown>;
    for (const key of Object.keys(round)) {
      if (key !== 'actions' && key !== 'u') fail(file, `${field}.${key}`, 'unknown field (allowed: actions, u)');
    }
    if (!Array.isArray(actions) || actions.length === 0) fail(file, `${field}.actions`, `expected a non-empty array of actions, got ${describe(actions)}`);
    actions.forEach((x, i) => requireVector(file, `${field}.actions[${i}]`, x, d));
    if (!(typeof u === 'number' && u >= 0 && u < 1)) fail(file, `${field}.u`, `expected a number in [0, 1), got ${describe(u)}`);
  });
  return record as unknown as Trace;
}

/**
 * ` at line L, column C` of a JSON.parse error, or ''. The parser's own message quotes the text
 * around the error; it is not repeated, so that naming an unrelated file shows none of its content.
 */
function jsonErrorPosition(text: string, message: string): string {
  const match = /position (\d+)/.exec(message);
  if (match === null) return '';
  const offset = Number(match[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return ` at line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** A trace file's bytes (at most INPUT_LIMITS.traceBytes); a ConfigError when it cannot be read. */
function readTraceBytes(file: string): Buffer {
  try {
    return readInputFile(file, INPUT_LIMITS.traceBytes);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    fail(file, '', `cannot read trace: ${error.message}`);
  }
}

/** Reads, decodes (strict UTF-8), parses and validates a trace file. */
export function readTrace(file: string): Trace {
  return parseTrace(file, readTraceBytes(file));
}

/** Decodes (strict UTF-8), parses and validates a trace file's bytes; `file` names it in errors. */
function parseTrace(file: string, bytes: Uint8Array): Trace {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    fail(file, '', 'not valid UTF-8 text');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    fail(file, '', `invalid JSON${jsonErrorPosition(text, (error as Error).message)}`);
  }
  return validateTrace(data, file);
}

export function loadTraceEnvironment(file: string): Environment {
  return new TraceEnvironment(readTrace(file));
}

/** Replays a validated trace. */
export class TraceEnvironment implements Environment {
  readonly d: number;
  readonly K: number;
  readonly reward: Float64Array;
  readonly maxActionNorm: number;
  readonly horizon: number;
  private readonly trace: Trace;
  private readonly instance: LogisticInstance;
  private readonly actionSet: { count: number; d: number; features: Float64Array };
  private round = -1;

  constructor(trace: Trace) {
    this.trace = trace;
    this.d = trace.d;
    this.K = trace.K;
    this.reward = Float64Array.from(trace.reward.slice(1));
    this.horizon = trace.rounds.length;
    let maxCount = 0;
    for (const r of trace.rounds) maxCount = Math.max(maxCount, r.actions.length);
    this.instance = new LogisticInstance(this.reward, Float64Array.from(trace.W_star.flat()), trace.d, maxCount);
    this.actionSet = { count: 0, d: trace.d, features: new Float64Array(maxCount * trace.d) };
    let norm = 0;
    for (const r of trace.rounds) for (const x of r.actions) norm = Math.max(norm, hypot(x));
    this.maxActionNorm = norm > 0 ? norm : 1;
  }

  actions(t: number): ActionSet {
    if (!(Number.isInteger(t) && t >= 1 && t <= this.horizon)) {
      throw new RangeError(`trace has rounds 1..${this.horizon}, asked for round ${t}`);
    }
    const round = this.trace.rounds[t - 1];
    this.round = t - 1;
    round.actions.forEach((x, i) => this.actionSet.features.set(x, i * this.d));
    this.actionSet.count = round.actions.length;
    this.instance.evaluate(this.actionSet);
    return this.actionSet;
  }

  play(index: number): Feedback {
    if (this.round < 0) throw new Error('trace: play() before actions()');
    return this.instance.feedback(index, this.trace.rounds[this.round].u);
  }

  parameterError(weights: Float64Array): number {
    return this.instance.parameterError(weights);
  }
}

const traceSchema = strictObject(
  {
    type: z.literal('trace'),
    /** Recorded instance (DESIGN §3); relative to the config file's folder. */
    file: z
      .string({ error: 'expected a file path' })
      .min(1, { error: 'expected a file path' })
      .describe("the recorded instance (JSON; docs/guide.md, 'The trace format'), relative to the config's folder"),
  },
  'a trace environment mapping',
);

/** The trace environment as a config names it: replays a recorded instance with its recorded u. */
export const traceEnvironment = defineEnvironment({
  type: 'trace',
  summary: 'replays a recorded instance (W*, actions, outcome uniforms) from JSON, decision by decision',
  schema: traceSchema,
  resolve: (parsed, { inputFile }) => ({
    type: 'trace' as const,
    /** Absolute path. */
    file: inputFile(['environment', 'file'], parsed.file),
  }),
  // Read once, hashed as read; every unit (on any worker) parses these shared bytes, never the file.
  load: (config) => {
    const bytes = readTraceBytes(config.file);
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
    return { inputs: [{ file: config.file, bytes: bytes.length, sha256: bytesSha256(bytes) }], data: shared };
  },
  // Draws nothing from the stream.
  create: (config, { loaded }) => new TraceEnvironment(parseTrace(config.file, loaded as Uint8Array)),
  inputFiles: (config) => [config.file],
});
