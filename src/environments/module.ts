/**
 * An environment from a JavaScript module (docs/policies.md "Environments from a module"): a config's
 * `environment: {module: ./my-env.mjs, params: {...}}` (the `type: module` may be left out). The
 * module's default export is a ModuleEnvironmentDescriptor: the params it declares (declared and
 * checked as a module policy's, base/module-descriptor.ts) and `create(params, context)`, called once
 * per unit in the thread that plays it, with the trial's seeded stream; what it returns is checked
 * (ModuleEnvironment) and played as any built-in environment.
 *
 * The manifest records the module's path as the config gives it and its SHA-256 (`module: {file,
 * sha256}`, as a module policy's variant), and the params with the declared defaults filled in:
 * `--resume` and `merge` compare manifests, so they refuse results of another version of the module.
 */
import { z } from 'zod';
import { strictObject } from '../base/fields.js';
import { fileSha256 } from '../base/hash.js';
import { moduleParams, requireDefault, type ModuleParam } from '../base/module-descriptor.js';
import { declarationsProblem } from '../base/options.js';
import type { RandomStream } from '../random/stream.js';
import { defineEnvironment, ENVIRONMENT_LIMITS, type ActionSet, type Environment, type Feedback } from './environment.js';

/** What `create` gets besides the params: the trial's horizon and its seeded environment stream. */
export interface ModuleEnvironmentContext {
  /** T: rounds the trial will take. */
  readonly horizon: number;
  /**
   * The trial's environment stream (seeded from the experiment's name, seed and the trial index): the
   * only randomness an environment may use, so that the same config and seed play the same rounds.
   * `uniform()` in [0, 1), `normal()`, `integer(lo, hi)` (inclusive), `unitVector(out, offset, n)`, `shuffle(array)`.
   */
  readonly stream: RandomStream;
}

/** What a module environment's `create` returns: an Environment, whose `reward` may be a plain array and whose `horizon` may be left out (unbounded). */
export type ModuleEnvironmentInstance = Omit<Environment, 'reward' | 'horizon'> & { readonly reward: Float64Array | readonly number[]; readonly horizon?: number };

/** A module environment's default export. */
export interface ModuleEnvironmentDescriptor {
  /** Its name in errors (default: the module's path). */
  readonly name?: string;
  readonly summary?: string;
  /** Its params: the keys `environment.params` (and `--set`/`--over environment.params.<key>`) may give it. */
  readonly params?: Readonly<Record<string, ModuleParam>>;
  create(params: Readonly<Record<string, unknown>>, context: ModuleEnvironmentContext): ModuleEnvironmentInstance;
}

/** A resolved module environment config: what the manifest records (module, params), and the module's absolute path. */
export interface ModuleEnvironmentConfig {
  readonly type: 'module';
  /** The module's path as the config gives it, and the SHA-256 of its bytes. */
  readonly module: { readonly file: string; readonly sha256: string };
  /** The params, with the declared defaults filled in. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Absolute path of the module (not recorded: the manifest keeps the path as given). */
  readonly path: string;
}

const DOCS = 'docs/policies.md "Environments from a module"';
/** Per absolute path, the descriptor loaded in this thread and the SHA-256 of the bytes it was loaded from. */
const loaded = new Map<string, { readonly descriptor: ModuleEnvironmentDescriptor; readonly sha256: string }>();

/**
 * The descriptor the module at the absolute path `file` (whose bytes have the SHA-256 `sha256`)
 * exports by default, loaded once per thread; throws an Error saying what is wrong with it, or that
 * the file is not the one hashed (changed since: a thread cannot load a module twice).
 */
export function loadEnvironmentModule(file: string, sha256: string): ModuleEnvironmentDescriptor {
  const cached = loaded.get(file);
  if (cached !== undefined) {
    if (cached.sha256 !== sha256) throw new Error(`${file} changed since this process loaded it (its SHA-256 differs): run again`);
    return cached.descriptor;
  }
  if (fileSha256(file) !== sha256) throw new Error(`${file} changed since the experiment was resolved (its SHA-256 differs)`);
  const descriptor = requireDefault(file) as ModuleEnvironmentDescriptor;
  const problem = descriptorProblem(descriptor);
  if (problem !== null) throw new Error(`${file}: its default export ${problem} (${DOCS})`);
  loaded.set(file, { descriptor, sha256 });
  return descriptor;
}

function descriptorProblem(descriptor: unknown): string | null {
  if (typeof descriptor !== 'object' || descriptor === null) return 'is not an object {create, params}';
  const d = descriptor as Record<string, unknown>;
  if (typeof d.create !== 'function') return 'has no create(params, context) function';
  return declarationsProblem(d.params);
}

/**
 * The module environment a descriptor's `create` returned, checked once (d, K, r, D, horizon, the
 * functions) and every round (the action set's shape, the feedback's outcome, reward, regret and
 * bestReward, if given), so that a mistake in the module is an error naming it, never a policy reading
 * garbage.
 */
export class ModuleEnvironment implements Environment {
  readonly d: number;
  readonly K: number;
  readonly reward: Float64Array;
  readonly maxActionNorm: number;
  readonly horizon: number;
  readonly facts?: Readonly<Record<string, unknown>>;
  parameterError?: (weights: Float64Array) => number;

  /** Throws a RangeError naming `name` and the first field that is wrong. */
  constructor(
    private readonly inner: ModuleEnvironmentInstance,
    private readonly name: string,
  ) {
    const fail = (detail: string): RangeError => new RangeError(`${name}: create(params, context) returned ${detail} (${DOCS})`);
    if (typeof inner !== 'object' || inner === null) throw fail(inner === null ? 'null' : typeof inner);
    const { d, K, reward, maxActionNorm, horizon } = inner;
    if (!(Number.isSafeInteger(d) && d >= 1 && d <= ENVIRONMENT_LIMITS.maxDimension)) throw fail(`d = ${String(d)}, not an integer in [1, ${ENVIRONMENT_LIMITS.maxDimension}]`);
    if (!(Number.isSafeInteger(K) && K >= 1 && K <= ENVIRONMENT_LIMITS.maxOutcomes)) throw fail(`K = ${String(K)}, not an integer in [1, ${ENVIRONMENT_LIMITS.maxOutcomes}]`);
    if (!(reward instanceof Float64Array || Array.isArray(reward)) || reward.length !== K || !Array.from(reward).every((r) => Number.isFinite(r) && r >= 0)) {
      throw fail(`reward = ${JSON.stringify(Array.from((reward ?? []) as ArrayLike<number>))}, not K = ${K} finite rewards r_1..r_K ≥ 0`);
    }
    if (!(Number.isFinite(maxActionNorm) && maxActionNorm > 0)) throw fail(`maxActionNorm = ${String(maxActionNorm)}, not a bound D > 0 on the actions' norms`);
    if (!(horizon === undefined || horizon === Number.POSITIVE_INFINITY || (Number.isSafeInteger(horizon) && horizon >= 1))) throw fail(`horizon = ${String(horizon)}, not an integer ≥ 1 (or left out: unbounded)`);
    for (const method of ['actions', 'play'] as const) if (typeof inner[method] !== 'function') throw fail(`an object without ${method}()`);
    this.d = d;
    this.K = K;
    this.reward = Float64Array.from(reward);
    this.maxActionNorm = maxActionNorm;
    this.horizon = horizon ?? Number.POSITIVE_INFINITY;
    if (inner.facts !== undefined) this.facts = inner.facts;
    if (typeof inner.parameterError === 'function') this.parameterError = (weights) => (inner.parameterError as (w: Float64Array) => number).call(inner, weights);
  }

  actions(t: number): ActionSet {
    const set = this.inner.actions(t);
    const { d } = this;
    if (!(typeof set === 'object' && set !== null && set.d === d && Number.isSafeInteger(set.count) && set.count >= 1 && set.count <= ENVIRONMENT_LIMITS.maxActions && set.features instanceof Float64Array && set.features.length >= set.count * d)) {
      throw new Error(`${this.name}: actions(${t}) returned no {count, d, features} with 1 ≤ count ≤ ${ENVIRONMENT_LIMITS.maxActions}, d = ${d} and count·d features (a Float64Array)`);
    }
    return set;
  }

  play(index: number): Feedback {
    const feedback = this.inner.play(index);
    const { outcome, reward, regret, bestReward } = (feedback ?? {}) as Partial<Feedback>;
    if (!(Number.isInteger(outcome) && (outcome as number) >= 0 && (outcome as number) <= this.K && Number.isFinite(reward) && Number.isFinite(regret) && (bestReward === undefined || Number.isFinite(bestReward)))) {
      throw new Error(`${this.name}: play(${index}) returned ${JSON.stringify(feedback) ?? 'undefined'}, not {outcome, reward, regret} with an outcome in 0..${this.K} and a finite reward and regret (and bestReward, if given)`);
    }
    return feedback;
  }
}

const moduleError = 'expected the path of a JavaScript module';

const moduleSchema = strictObject(
  {
    type: z.literal('module'),
    module: z
      .string({ error: moduleError })
      .min(1, { error: moduleError })
      .describe("a JavaScript module (path relative to the config) whose default export describes the environment (docs/policies.md); `type: module` may be left out"),
    params: z.record(z.string(), z.unknown(), { error: 'expected a params mapping' }).optional().describe("its params, checked against the module's declared params"),
  },
  'a mapping {module, params}',
);

/** The module environment as a config names it. */
export const moduleEnvironment = defineEnvironment({
  type: 'module',
  summary: "a JavaScript module's environment: {module: ./my-env.mjs, params} (docs/policies.md)",
  schema: moduleSchema,
  resolve: (parsed, { moduleFile, fail }): ModuleEnvironmentConfig => {
    const file = moduleFile(['environment', 'module'], parsed.module);
    // Hashed before it is loaded: the module a worker thread loads later must have these bytes.
    const sha256 = fileSha256(file);
    let descriptor: ModuleEnvironmentDescriptor;
    try {
      descriptor = loadEnvironmentModule(file, sha256);
    } catch (error) {
      throw fail(['environment', 'module'], (error as Error).message);
    }
    let params: Record<string, unknown>;
    try {
      params = moduleParams(descriptor, parsed.params ?? {});
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      const key = error.message.slice(0, error.message.indexOf(':'));
      throw fail(['environment', 'params', key], error.message.slice(key.length + 2));
    }
    return { type: 'module', module: { file: parsed.module, sha256 }, params, path: file };
  },
  recorded: ({ path: _, ...recorded }) => recorded,
  create: (config, { horizon, stream }) => createModuleEnvironment(config, { horizon, stream }),
});

/** The environment the config's module creates for one trial (a RangeError when it is not one). */
export function createModuleEnvironment(config: ModuleEnvironmentConfig, context: ModuleEnvironmentContext): ModuleEnvironment {
  const descriptor = loadEnvironmentModule(config.path, config.module.sha256);
  const name = descriptor.name ?? config.module.file;
  let made: ModuleEnvironmentInstance;
  try {
    made = descriptor.create({ ...config.params }, context);
  } catch (error) {
    throw new RangeError(`${name}: create(params, context) threw: ${(error as Error)?.message ?? String(error)}`);
  }
  return new ModuleEnvironment(made, name);
}
