/**
 * The truth of a logistic instance, shared by every environment that knows W* (synthetic, trace) and
 * by the bench's workload: W* and r → per action σ(W*x) (eq. (1)) and the expected reward rᵀσ(W*x);
 * the outcome of a played action from one uniform (DESIGN §1); the round's pseudo-regret (eq. (2));
 * the parameter error ‖W − W*‖_F. Buffers are sized once; rounds allocate nothing.
 */
import { expectedReward, linearScores, sampleOutcome, softmaxWithNull } from '../model/logistic.js';
import type { UniformStream } from '../random/stream.js';
import type { ActionSet, Feedback } from './environment.js';

/** W* with i.i.d. standard normal entries (K·d normals, row-wise) scaled to ‖W*‖_F = S* (DESIGN §3). */
export function randomTrueWeights(stream: UniformStream, K: number, d: number, normStar: number): Float64Array {
  const weights = new Float64Array(K * d);
  let squaredNorm = 0;
  for (let i = 0; i < K * d; i++) {
    const w = stream.normal();
    weights[i] = w;
    squaredNorm += w * w;
  }
  const scale = normStar === 0 ? 0 : normStar / Math.sqrt(squaredNorm);
  for (let i = 0; i < K * d; i++) weights[i] *= scale;
  return weights;
}

export class LogisticInstance {
  readonly K: number;
  readonly d: number;
  /** r_1..r_K (r_0 = 0). */
  readonly reward: Float64Array;
  /** W*, row-wise (K×d). */
  readonly trueWeights: Float64Array;
  /** σ(W* x_i) of each evaluated action, rows of K; `outcomeRows[i]` is a view of row i. */
  private readonly outcomeRows: Float64Array[];
  /** σ_0(W* x_i), the null outcome's probability. */
  private readonly nullProbabilities: Float64Array;
  /** rᵀσ(W* x_i) */
  private readonly expectedRewards: Float64Array;
  private readonly scores: Float64Array;
  private count = 0;
  /** max_i rᵀσ(W* x_i) of the evaluated round. */
  private bestReward = 0;

  /** `maxActions`: the most actions a round can offer. */
  constructor(reward: Float64Array, trueWeights: Float64Array, d: number, maxActions: number) {
    const K = reward.length;
    if (trueWeights.length !== K * d) throw new RangeError(`W* must hold K·d = ${K * d} entries, got ${trueWeights.length}`);
    this.K = K;
    this.d = d;
    this.reward = reward;
    this.trueWeights = trueWeights;
    const probabilities = new Float64Array(maxActions * K);
    this.outcomeRows = Array.from({ length: maxActions }, (_, i) => probabilities.subarray(i * K, (i + 1) * K));
    this.nullProbabilities = new Float64Array(maxActions);
    this.expectedRewards = new Float64Array(maxActions);
    this.scores = new Float64Array(K);
  }

  /** Computes σ(W* x) and rᵀσ(W* x) of every action of the round, and the best expected reward. */
  evaluate(actions: ActionSet): void {
    const { K, d } = this;
    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < actions.count; i++) {
      linearScores(K, d, this.trueWeights, actions.features, i * d, this.scores);
      this.nullProbabilities[i] = softmaxWithNull(K, this.scores, this.outcomeRows[i]);
      const value = expectedReward(K, this.reward, this.outcomeRows[i]);
      this.expectedRewards[i] = value;
      if (value > best) best = value;
    }
    this.count = actions.count;
    this.bestReward = best;
  }

  /** Outcome y ∈ {0..K} of action `index` of the evaluated round, from the uniform u (DESIGN §1). */
  outcome(index: number, u: number): number {
    return sampleOutcome(this.K, u, this.nullProbabilities[index], this.outcomeRows[index]);
  }

  /** Pseudo-regret of playing action `index` of the evaluated round. */
  regret(index: number): number {
    // eq. (2)
    return this.bestReward - this.expectedRewards[index];
  }

  /** Outcome, realised reward and pseudo-regret of action `index` under the uniform u, and the round's best expected reward. */
  feedback(index: number, u: number): Feedback {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) {
      throw new RangeError(`action index must be an integer in [0, ${this.count - 1}], got ${index}`);
    }
    const outcome = this.outcome(index, u);
    return { outcome, reward: outcome === 0 ? 0 : this.reward[outcome - 1], regret: this.regret(index), bestReward: this.bestReward };
  }

  /** ‖W − W*‖_F for W row-wise vectorised. */
  parameterError(weights: Float64Array): number {
    if (weights.length !== this.trueWeights.length) {
      throw new RangeError(`parameterError needs K·d = ${this.trueWeights.length} weights, got ${weights.length}`);
    }
    let sum = 0;
    for (let i = 0; i < weights.length; i++) {
      const difference = weights[i] - this.trueWeights[i];
      sum += difference * difference;
    }
    return Math.sqrt(sum);
  }
}
