/**
 * The `trace` environment (DESIGN §3): replays a recorded instance from JSON,
 *   {"K", "d", "reward": [r_0..r_K], "W_star": [[..]..], "rounds": [{"actions": [[..]..], "u": number}]},
 * sampling each outcome with the recorded uniform u by the shared outcome rule, so that another
 * implementation can be checked against this one decision by decision.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/errors.js';
import { expectedReward, linearScores, sampleOutcome, softmaxWithNull } from '../model/logistic.js';
import type { ActionSet, Environment, Feedback } from './environment.js';

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
  const K = requireInteger(file, 'K', record.K, 1, 64);
  const d = requireInteger(file, 'd', record.d, 1, 1_000_000);
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

/** Reads, decodes (strict UTF-8), parses and validates a trace file. */
export function readTrace(file: string): Trace {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    fail(file, '', `cannot read trace: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
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
    fail(file, '', `invalid JSON: ${(error as Error).message}`);
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
  private readonly weightsStar: Float64Array;
  private readonly buffer: Float64Array;
  private readonly expected: Float64Array;
  private readonly scores: Float64Array;
  private readonly sigma: Float64Array;
  private round = -1;
  private count = 0;

  constructor(trace: Trace) {
    this.trace = trace;
    this.d = trace.d;
    this.K = trace.K;
    this.reward = Float64Array.from(trace.reward.slice(1));
    this.horizon = trace.rounds.length;
    this.weightsStar = Float64Array.from(trace.W_star.flat());
    const maxCount = Math.max(...trace.rounds.map((r) => r.actions.length));
    this.buffer = new Float64Array(maxCount * trace.d);
    this.expected = new Float64Array(maxCount);
    this.scores = new Float64Array(trace.K);
    this.sigma = new Float64Array(trace.K);
    let norm = 0;
    for (const r of trace.rounds) for (const x of r.actions) norm = Math.max(norm, Math.hypot(...x));
    this.maxActionNorm = norm > 0 ? norm : 1;
  }

  actions(t: number): ActionSet {
    if (!(Number.isInteger(t) && t >= 1 && t <= this.horizon)) {
      throw new RangeError(`trace has rounds 1..${this.horizon}, asked for round ${t}`);
    }
    const { d, K } = this;
    const round = this.trace.rounds[t - 1];
    this.round = t - 1;
    this.count = round.actions.length;
    round.actions.forEach((x, i) => {
      this.buffer.set(x, i * d);
      linearScores(K, d, this.weightsStar, this.buffer, i * d, this.scores);
      softmaxWithNull(K, this.scores, this.sigma);
      this.expected[i] = expectedReward(K, this.reward, this.sigma);
    });
    return { count: this.count, d, features: this.buffer };
  }

  play(index: number): Feedback {
    if (this.round < 0) throw new Error('trace: play() before actions()');
    if (!(Number.isInteger(index) && index >= 0 && index < this.count)) {
      throw new RangeError(`action index must be in 0..${this.count - 1}, got ${index}`);
    }
    const { K, d } = this;
    linearScores(K, d, this.weightsStar, this.buffer, index * d, this.scores);
    const nullProbability = softmaxWithNull(K, this.scores, this.sigma);
    const outcome = sampleOutcome(K, this.trace.rounds[this.round].u, nullProbability, this.sigma);
    let best = -Infinity;
    for (let i = 0; i < this.count; i++) best = Math.max(best, this.expected[i]);
    return {
      outcome,
      reward: outcome === 0 ? 0 : this.reward[outcome - 1],
      regret: best - this.expected[index],
    };
  }

  parameterError(weights: Float64Array): number {
    let s = 0;
    for (let i = 0; i < this.weightsStar.length; i++) s += (weights[i] - this.weightsStar[i]) ** 2;
    return Math.sqrt(s);
  }
}
