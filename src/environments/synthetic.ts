/**
 * The synthetic environment of Section 4 (DESIGN §3): W* with i.i.d. normal entries scaled to
 * ‖W*‖_F = S*, and per round |A_t| uniform in [min, max] actions uniform on the unit sphere.
 *
 * Random numbers, all from the environment's stream, in this order:
 * - at construction: K·d normals for W*, row-wise (vec(W*)[i·d + j]);
 * - each round: one uniform for |A_t| (`integer(min, max)`), then d normals per action, action by
 *   action (a zero vector, probability 0, is redrawn), then one uniform u for the outcome rule.
 * Normals are Box–Muller pairs, so a cached partner may carry over into the next round; the
 * sequence is still a function of the seed alone.
 */
import { z } from 'zod';
import { integer, positive, rewardVector, strictObject } from '../base/fields.js';
import type { UniformStream } from '../random/stream.js';
import { defineEnvironment, ENVIRONMENT_LIMITS, type ActionSet, type Environment, type Feedback } from './environment.js';
import { LogisticInstance, randomTrueWeights } from './simulation.js';

export interface SyntheticSpec {
  /** d */
  readonly d: number;
  /** K */
  readonly K: number;
  /** r_1..r_K (r_0 = 0 is implicit); for K = 1, [1]. */
  readonly reward: Float64Array;
  /** Smallest |A_t|. */
  readonly actionsMin: number;
  /** Largest |A_t|. */
  readonly actionsMax: number;
  /** S* = ‖W*‖_F */
  readonly normStar: number;
  /** T (Infinity for unbounded). */
  readonly horizon: number;
}

export interface SyntheticEnvironment extends Environment {
  /** W*, row-wise (K×d). For tests and trace export; policies never see it. */
  readonly trueWeights: Float64Array;
  /** The current round's outcome uniform u (NaN before the first round). */
  readonly roundUniform: number;
  parameterError(weights: Float64Array): number;
}

/** Bytes of one synthetic problem (an environment copy, the bench's workload): the action set (max |A_t| × d), W* (K × d), and its instance's K + 3 numbers per action. */
export function syntheticCopyBytes(d: number, K: number, maxActions: number): number {
  return 8 * (maxActions * (d + K + 3) + K * d);
}

export function createSyntheticEnvironment(spec: SyntheticSpec, stream: UniformStream): SyntheticEnvironment {
  return new SyntheticEnvironmentImpl(spec, stream);
}

class SyntheticEnvironmentImpl implements SyntheticEnvironment {
  readonly d: number;
  readonly K: number;
  readonly reward: Float64Array;
  readonly maxActionNorm = 1;
  readonly horizon: number;
  readonly trueWeights: Float64Array;

  private readonly stream: UniformStream;
  private readonly actionsMin: number;
  private readonly actionsMax: number;
  private readonly actionSet: { count: number; d: number; features: Float64Array };
  private readonly instance: LogisticInstance;
  private uniform = Number.NaN;
  private round = 0;
  private played = true;

  constructor(spec: SyntheticSpec, stream: UniformStream) {
    const { d, K, reward, actionsMin, actionsMax, normStar, horizon } = spec;
    requireInteger('d', d, 1);
    requireInteger('K', K, 1);
    if (!(reward instanceof Float64Array) || reward.length !== K) {
      throw new RangeError(`synthetic: reward must be a Float64Array of K = ${K} entries r_1..r_K`);
    }
    for (const r of reward) {
      if (!Number.isFinite(r) || r < 0) throw new RangeError(`synthetic: rewards must be finite and ≥ 0, got ${r}`);
    }
    requireInteger('actionsMin', actionsMin, 1);
    requireInteger('actionsMax', actionsMax, actionsMin);
    if (!Number.isFinite(normStar) || normStar < 0) {
      throw new RangeError(`synthetic: normStar (S*) must be finite and ≥ 0, got ${normStar}`);
    }
    if (horizon !== Number.POSITIVE_INFINITY) requireInteger('horizon', horizon, 1);

    this.d = d;
    this.K = K;
    this.reward = Float64Array.from(reward);
    this.horizon = horizon;
    this.stream = stream;
    this.actionsMin = actionsMin;
    this.actionsMax = actionsMax;
    this.trueWeights = randomTrueWeights(stream, K, d, normStar);
    this.instance = new LogisticInstance(this.reward, this.trueWeights, d, actionsMax);
    this.actionSet = { count: 0, d, features: new Float64Array(actionsMax * d) };
  }

  get roundUniform(): number {
    return this.uniform;
  }

  actions(t: number): ActionSet {
    if (t !== this.round + 1) {
      throw new RangeError(`synthetic: rounds must be taken in order; expected round ${this.round + 1}, got ${t}`);
    }
    if (t > this.horizon) throw new RangeError(`synthetic: round ${t} is past the horizon ${this.horizon}`);
    const { d, stream } = this;
    const count = stream.integer(this.actionsMin, this.actionsMax);
    for (let i = 0; i < count; i++) stream.unitVector(this.actionSet.features, i * d, d);
    this.uniform = stream.uniform();
    this.actionSet.count = count;
    this.instance.evaluate(this.actionSet);
    this.round = t;
    this.played = false;
    return this.actionSet;
  }

  play(index: number): Feedback {
    if (this.played) throw new Error(`synthetic: play() must follow actions(t) once per round (round ${this.round})`);
    const feedback = this.instance.feedback(index, this.uniform);
    this.played = true;
    return feedback;
  }

  parameterError(weights: Float64Array): number {
    return this.instance.parameterError(weights);
  }
}

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`synthetic: ${name} must be an integer ≥ ${min}, got ${value}`);
  }
}

const actionsError = `expected [min, max]: two integers with 1 ≤ min ≤ max ≤ ${ENVIRONMENT_LIMITS.maxActions}`;

const syntheticSchema = strictObject(
  {
    type: z.literal('synthetic'),
    /** d */
    d: integer(1, ENVIRONMENT_LIMITS.maxDimension).describe('d: dimension of the actions'),
    /** K */
    K: integer(1, ENVIRONMENT_LIMITS.maxOutcomes).describe('K: non-null outcomes (1 = binary logistic bandit)'),
    /** r_0..r_K as the paper writes it (r_0 = 0). */
    reward: rewardVector().describe('r_0..r_K: the reward of each outcome, K + 1 entries, r_0 = 0'),
    /** [min, max] of |A_t|. */
    actions: z.tuple([integer(1, ENVIRONMENT_LIMITS.maxActions), integer(1, ENVIRONMENT_LIMITS.maxActions)], {
      error: actionsError,
    }).describe('[min, max]: |A_t| drawn uniformly from this range each round'),
    /** S* = ‖W*‖_F; defaults to params.S. */
    S_star: positive().optional().describe('S* = ‖W*‖_F of the true parameter; default params.S'),
  },
  'a synthetic environment mapping',
).superRefine((env, ctx) => {
  if (Number.isInteger(env.K) && Array.isArray(env.reward)) {
    if (env.reward.length !== env.K + 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['reward'],
        message: `expected K + 1 = ${env.K + 1} entries r_0..r_${env.K}, got ${env.reward.length}`,
      });
    } else if (env.reward[0] !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['reward', 0],
        message: `r_0 (the null outcome's reward) must be 0, got ${String(env.reward[0])}`,
      });
    }
  }
  if (Array.isArray(env.actions) && env.actions.length === 2 && env.actions[0] > env.actions[1]) {
    ctx.addIssue({ code: 'custom', path: ['actions'], message: `${actionsError}, got [${env.actions.join(', ')}]` });
  }
});

/** The synthetic environment as a config names it. */
export const syntheticEnvironment = defineEnvironment({
  type: 'synthetic',
  summary: 'W* normal with ‖W*‖_F = S*, |A_t| uniform in [min, max] unit-sphere actions (Section 4)',
  schema: syntheticSchema,
  resolve: (parsed, { S }) => ({
    type: 'synthetic' as const,
    d: parsed.d,
    K: parsed.K,
    /** r_0..r_K (r_0 = 0). */
    reward: parsed.reward,
    actions: [parsed.actions[0], parsed.actions[1]] as [number, number],
    /** S* = ‖W*‖_F (params.S when absent). */
    S_star: parsed.S_star ?? S,
  }),
  copyBytes: (config) => syntheticCopyBytes(config.d, config.K, config.actions[1]),
  create: (config, { horizon, stream }) =>
    createSyntheticEnvironment(
      {
        d: config.d,
        K: config.K,
        // The config lists r_0..r_K; environments hold r_1..r_K (r_0 = 0).
        reward: Float64Array.from(config.reward.slice(1)),
        actionsMin: config.actions[0],
        actionsMax: config.actions[1],
        normStar: config.S_star,
        horizon,
      },
      stream,
    ),
});
