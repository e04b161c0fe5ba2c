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
import { expectedReward, linearScores, sampleOutcome, softmaxWithNull } from '../model/logistic.js';
import type { ActionSet, Environment, Feedback } from './environment.js';
import type { RandomStream } from './random-stream.js';

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

export function createSyntheticEnvironment(spec: SyntheticSpec, stream: RandomStream): SyntheticEnvironment {
  return new SyntheticEnvironmentImpl(spec, stream);
}

class SyntheticEnvironmentImpl implements SyntheticEnvironment {
  readonly d: number;
  readonly K: number;
  readonly reward: Float64Array;
  readonly maxActionNorm = 1;
  readonly horizon: number;
  readonly trueWeights: Float64Array;

  private readonly stream: RandomStream;
  private readonly actionsMin: number;
  private readonly actionsMax: number;
  private readonly actionSet: { count: number; d: number; features: Float64Array };
  /** σ(W* x_i) of each action, rows of K; `outcomeRows[i]` is a view of row i. */
  private readonly outcomeRows: Float64Array[];
  /** σ_0(W* x_i), the null outcome's probability. */
  private readonly nullProbabilities: Float64Array;
  /** rᵀσ(W* x_i) */
  private readonly expectedRewards: Float64Array;
  private readonly scores: Float64Array;
  private bestExpectedReward = 0;
  private uniform = Number.NaN;
  private round = 0;
  private played = true;

  constructor(spec: SyntheticSpec, stream: RandomStream) {
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

    this.trueWeights = new Float64Array(K * d);
    let squaredNorm = 0;
    for (let i = 0; i < K * d; i++) {
      const w = stream.normal();
      this.trueWeights[i] = w;
      squaredNorm += w * w;
    }
    const scale = normStar === 0 ? 0 : normStar / Math.sqrt(squaredNorm);
    for (let i = 0; i < K * d; i++) this.trueWeights[i] *= scale;

    this.actionSet = { count: 0, d, features: new Float64Array(actionsMax * d) };
    const probabilities = new Float64Array(actionsMax * K);
    this.outcomeRows = Array.from({ length: actionsMax }, (_, i) => probabilities.subarray(i * K, (i + 1) * K));
    this.nullProbabilities = new Float64Array(actionsMax);
    this.expectedRewards = new Float64Array(actionsMax);
    this.scores = new Float64Array(K);
  }

  get roundUniform(): number {
    return this.uniform;
  }

  actions(t: number): ActionSet {
    if (t !== this.round + 1) {
      throw new RangeError(`synthetic: rounds must be taken in order; expected round ${this.round + 1}, got ${t}`);
    }
    if (t > this.horizon) throw new RangeError(`synthetic: round ${t} is past the horizon ${this.horizon}`);
    const { d, K, stream } = this;
    const features = this.actionSet.features;
    const count = stream.integer(this.actionsMin, this.actionsMax);
    for (let i = 0; i < count; i++) {
      const base = i * d;
      let squaredNorm = 0;
      while (squaredNorm === 0) {
        for (let j = 0; j < d; j++) {
          const value = stream.normal();
          features[base + j] = value;
          squaredNorm += value * value;
        }
      }
      const inverseNorm = 1 / Math.sqrt(squaredNorm);
      for (let j = 0; j < d; j++) features[base + j] *= inverseNorm;
    }
    this.uniform = stream.uniform();

    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      linearScores(K, d, this.trueWeights, features, i * d, this.scores);
      this.nullProbabilities[i] = softmaxWithNull(K, this.scores, this.outcomeRows[i]);
      const value = expectedReward(K, this.reward, this.outcomeRows[i]);
      this.expectedRewards[i] = value;
      if (value > best) best = value;
    }
    this.bestExpectedReward = best;
    this.actionSet.count = count;
    this.round = t;
    this.played = false;
    return this.actionSet;
  }

  play(index: number): Feedback {
    if (this.played) throw new Error(`synthetic: play() must follow actions(t) once per round (round ${this.round})`);
    const count = this.actionSet.count;
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new RangeError(`synthetic: action index must be an integer in [0, ${count - 1}], got ${index}`);
    }
    this.played = true;
    const outcome = sampleOutcome(this.K, this.uniform, this.nullProbabilities[index], this.outcomeRows[index]);
    return {
      outcome,
      reward: outcome === 0 ? 0 : this.reward[outcome - 1],
      // eq. (2)
      regret: this.bestExpectedReward - this.expectedRewards[index],
    };
  }

  parameterError(weights: Float64Array): number {
    if (weights.length !== this.trueWeights.length) {
      throw new RangeError(`synthetic: parameterError needs K·d = ${this.trueWeights.length} weights, got ${weights.length}`);
    }
    let sum = 0;
    for (let i = 0; i < weights.length; i++) {
      const difference = weights[i] - this.trueWeights[i];
      sum += difference * difference;
    }
    return Math.sqrt(sum);
  }
}

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`synthetic: ${name} must be an integer ≥ ${min}, got ${value}`);
  }
}
