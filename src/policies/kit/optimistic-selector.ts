/**
 * The optimistic decision rule shared by EOFD-MLogB and OFUL-MLogB. Each policy supplies, per action,
 * the K×K matrix M(x) = (I_K ⊗ x)ᵀ Z⁻¹ (I_K ⊗ x) of its own curvature matrix Z (for the sketch this is
 * A(x) of Lemma 1, eq. (18)); the rule itself is the same:
 * - K = 1, eq. (16):  wᵀx + √β ‖x‖_{Z⁻¹}, with ‖x‖²_{Z⁻¹} = M(x);
 * - K ≥ 2, eq. (19):  rᵀσ(Wx) + √β ‖(∇σ(Wx) r) ⊗ x‖_{Z⁻¹} + ½‖r‖₁ β ‖M(x)‖₂, where
 *   ‖g ⊗ x‖²_{Z⁻¹} = gᵀ M(x) g and ‖M(x)‖₂ is its largest eigenvalue (M is positive definite).
 */
import type { ActionSet } from '../../environments/environment.js';
import { gemmNT } from '../../linalg/blas.js';
import { SymmetricEigen } from '../../linalg/eigen.js';
import type { Workspace } from '../../linalg/simd.js';
import { expectedReward, softmaxJacobian, softmaxWithNull } from '../../model/logistic.js';

/** Writes M(x) (K×K, row-major) for action `index` of the current round. */
export type CurvatureOfAction = (index: number, out: Float64Array) => void;

/** Relative gap below which two optimistic scores count as equal (far above rounding, far below any real difference). */
export const TIE_TOLERANCE = 1e-12;
/** Relative widening of the bounds on ‖M(x)‖₂ that let `select` skip an action's eigenproblem (far above rounding). */
const BOUND_MARGIN = 1e-9;

/**
 * The lowest index whose score lies within TIE_TOLERANCE (relative) of the largest, `best`: the tie rule
 * of every optimistic policy (rounding noise never decides between two exact implementations).
 */
export function firstOfTies(scores: Float64Array, count: number, best: number): number {
  const threshold = best - TIE_TOLERANCE * Math.abs(best);
  for (let a = 0; a < count; a++) if (scores[a] >= threshold) return a;
  return 0;
}

export class OptimisticSelector {
  private readonly K: number;
  private readonly d: number;
  private readonly reward: Float64Array;
  private readonly rewardL1: number;
  private scores: Float64Array = new Float64Array(0);
  /** Where the scores live (beside the estimate, so that z = Wx runs on its kernels), or null. */
  private readonly workspace: Workspace | null;
  /** The optimistic score of every action of the round. */
  private optimistic = new Float64Array(0);
  /** K ≥ 2: per action, M(x) (K×K each), the score without its ‖M(x)‖₂ term, and the score's upper bound. */
  private curvatures = new Float64Array(0);
  private partial = new Float64Array(0);
  private upper = new Float64Array(0);
  private readonly curvature: Float64Array;
  private readonly sigma: Float64Array;
  private readonly jacobian: Float64Array;
  private readonly gradient: Float64Array;
  private readonly eigen: SymmetricEigen;
  private readonly eigenValues: Float64Array;

  constructor(K: number, d: number, reward: Float64Array, workspace: Workspace | null = null) {
    this.K = K;
    this.workspace = workspace;
    this.d = d;
    this.reward = reward;
    this.rewardL1 = reward.reduce((s, r) => s + Math.abs(r), 0);
    this.curvature = new Float64Array(K * K);
    this.sigma = new Float64Array(K);
    this.jacobian = new Float64Array(K * K);
    this.gradient = new Float64Array(K);
    this.eigen = new SymmetricEigen(K);
    this.eigenValues = new Float64Array(K);
  }

  /** Scratch for the linear scores z = W x of every action (count×K), grown on demand. */
  ensureCapacity(count: number): void {
    if (this.scores.length < count * this.K) this.scores = this.workspace?.float64(count * this.K) ?? new Float64Array(count * this.K);
    if (this.optimistic.length < count) this.optimistic = new Float64Array(count);
    if (this.K > 1 && this.partial.length < count) {
      this.curvatures = new Float64Array(count * this.K * this.K);
      this.partial = new Float64Array(count);
      this.upper = new Float64Array(count);
    }
  }

  /**
   * Index of the action with the largest optimistic score. Scores within TIE_TOLERANCE (relative) of
   * the largest are ties, and ties go to the lowest index: rounding noise (which differs between two
   * exact implementations, e.g. EOFD-MLogB with m = Kd and OFUL-MLogB) never decides.
   */
  select(actions: ActionSet, estimate: Float64Array, beta: number, curvatureOf: CurvatureOfAction): number {
    const { K, d } = this;
    const count = actions.count;
    this.ensureCapacity(count);
    const z = this.scores;
    const optimistic = this.optimistic;
    gemmNT(count, K, d, actions.features, 0, d, estimate, 0, d, z, 0, K);
    // β = 0 (greedy, or a floored eq. (36)): the bonuses vanish, so M(x) is not needed.
    if (beta === 0) return this.greedyFromScores(count);
    const rootBeta = Math.sqrt(beta);
    if (K === 1) {
      for (let a = 0; a < count; a++) {
        curvatureOf(a, this.curvature);
        optimistic[a] = z[a] + rootBeta * Math.sqrt(Math.max(0, this.curvature[0]));
      }
      return this.firstBest(count);
    }
    return this.multinomialBest(count, beta, rootBeta, curvatureOf);
  }

  /**
   * `select` for K ≥ 2, eq. (19). ‖M(x)‖₂ (an eigenproblem per action) is found only for actions that
   * can still win: with M(x)'s largest eigenvalue between its largest diagonal entry and its largest
   * Gershgorin row sum (each widened by 1e-9·‖M‖_∞, far beyond rounding), an action whose score is at
   * most its upper bound, and that bound is below the tie threshold of a score some action is known to
   * reach, is neither the best nor a tie. Its score is left at that bound. The others get their exact
   * scores, the same bits as for every action, so the decision is the same as scoring all.
   */
  private multinomialBest(count: number, beta: number, rootBeta: number, curvatureOf: CurvatureOfAction): number {
    const { K, curvature, curvatures, partial, upper, optimistic } = this;
    const KK = K * K;
    const weight = 0.5 * this.rewardL1 * beta;
    let known = -Infinity;
    let top = 0;
    for (let a = 0; a < count; a++) {
      curvatureOf(a, curvature);
      curvatures.set(curvature, a * KK);
      partial[a] = this.partialScore(a * K, rootBeta);
      let largestDiagonal = -Infinity;
      let largestRow = -Infinity;
      let norm = 0;
      for (let i = 0; i < K; i++) {
        let off = 0;
        let row = 0;
        for (let j = 0; j < K; j++) {
          const m = Math.abs(curvature[i * K + j]);
          row += m;
          if (j !== i) off += m;
        }
        const diagonal = curvature[i * K + i];
        if (diagonal > largestDiagonal) largestDiagonal = diagonal;
        if (diagonal + off > largestRow) largestRow = diagonal + off;
        if (row > norm) norm = row;
      }
      const margin = BOUND_MARGIN * norm;
      const lower = partial[a] + weight * (largestDiagonal - margin);
      upper[a] = partial[a] + weight * (largestRow + margin);
      if (lower > known) known = lower;
      if (upper[a] > upper[top]) top = a;
    }
    // The action with the largest bound first (its score raises `known` most), then the rest in order.
    known = Math.max(known, this.exactScore(top, weight));
    for (let a = 0; a < count; a++) {
      if (a === top) continue;
      if (upper[a] < known - TIE_TOLERANCE * Math.abs(known)) {
        optimistic[a] = upper[a];
      } else {
        known = Math.max(known, this.exactScore(a, weight));
      }
    }
    return this.firstBest(count);
  }

  /** Action a's eq. (19) score, partial + ½‖r‖₁β·‖M(x)‖₂ (`weight` = ½‖r‖₁β), into `optimistic`, from its stored M(x). */
  private exactScore(a: number, weight: number): number {
    const K = this.K;
    this.eigen.eigenvalues(K, this.curvatures, a * K * K, K, this.eigenValues);
    this.optimistic[a] = this.partial[a] + weight * this.eigenValues[0];
    return this.optimistic[a];
  }

  /**
   * Index of the action with the largest expected reward rᵀσ(Wx) under `estimate` (K = 1: the score
   * wᵀx itself, which σ maps monotonically to r₁σ(wᵀx)); ties as in `select`. The Thompson-sampling
   * policies play it on their sampled W̃; with β = 0 `select` is this rule.
   */
  greedy(actions: ActionSet, estimate: Float64Array): number {
    const { K, d } = this;
    this.ensureCapacity(actions.count);
    gemmNT(actions.count, K, d, actions.features, 0, d, estimate, 0, d, this.scores, 0, K);
    return this.greedyFromScores(actions.count);
  }

  private greedyFromScores(count: number): number {
    const { K, reward, sigma, scores: z, optimistic } = this;
    for (let a = 0; a < count; a++) {
      if (K === 1) {
        optimistic[a] = z[a];
      } else {
        softmaxWithNull(K, z, sigma, a * K);
        optimistic[a] = expectedReward(K, reward, sigma);
      }
    }
    return this.firstBest(count);
  }

  /** The lowest index whose score is within TIE_TOLERANCE (relative) of the largest. */
  private firstBest(count: number): number {
    const optimistic = this.optimistic;
    let bestScore = -Infinity;
    for (let a = 0; a < count; a++) if (optimistic[a] > bestScore) bestScore = optimistic[a];
    return firstOfTies(optimistic, count, bestScore);
  }

  // eq. (19) without its last term: rᵀσ(Wx) + √β ‖(∇σ(Wx) r) ⊗ x‖_{Z⁻¹}, for M(x) in `curvature`.
  private partialScore(offset: number, rootBeta: number): number {
    const { K, sigma, jacobian, gradient, curvature, reward, scores: z } = this;
    softmaxWithNull(K, z, sigma, offset);
    softmaxJacobian(K, sigma, jacobian);
    let expected = 0;
    for (let i = 0; i < K; i++) {
      expected += reward[i] * sigma[i];
      let g = 0;
      for (let j = 0; j < K; j++) g += jacobian[i * K + j] * reward[j];
      gradient[i] = g;
    }
    let firstOrder = 0;
    for (let i = 0; i < K; i++) {
      let s = 0;
      for (let j = 0; j < K; j++) s += curvature[i * K + j] * gradient[j];
      firstOrder += gradient[i] * s;
    }
    return expected + rootBeta * Math.sqrt(Math.max(0, firstOrder));
  }
}
