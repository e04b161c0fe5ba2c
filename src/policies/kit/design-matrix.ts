/**
 * What the GLM-bandit baselines share: a d×d design matrix M = λ₀I + Σ_s w_s x_s x_sᵀ (MNL-UCB's V_t,
 * eq. (18) of Amani and Thrampoulidis 2021; OL2M's A_t, Zhang et al. 2016; ada-OFU-ECOLog's Ṽ_t,
 * Faury et al. 2022), and their common decision rule argmax_x rᵀσ(Wx) + γ‖x‖_{M⁻¹}.
 * M⁻¹ follows Sherman–Morrison rank-one updates and is re-inverted from a Cholesky factorisation every
 * `refreshInterval` updates; ln det M follows the matrix determinant lemma. O(d²) memory, O(d²) per update.
 */
import type { ActionSet } from '../../environments/environment.js';
import { dot, gemmNT, gemv, ger } from '../../linalg/blas.js';
import { Workspace } from '../../linalg/simd.js';
import { spdInverse } from '../../linalg/cholesky.js';
import { expectedReward, softmaxWithNull } from '../../model/logistic.js';
import { ExactBallProjection } from '../../model/projection.js';
import { firstOfTies } from './optimistic-selector.js';

export class DesignMatrix {
  readonly d: number;
  /** M (d×d). */
  readonly matrix: Float64Array;
  /** M⁻¹ (d×d). */
  readonly inverse: Float64Array;
  /** ln det M. */
  logDeterminant: number;
  /** M⁻¹x of the last `inverseNormSq` or `addOuter`. */
  private readonly column: Float64Array;
  private readonly refreshInterval: number;
  private readonly refreshWork: Float64Array;
  private updates = 0;
  /** Where M, M⁻¹ and the arrays products over them write live. */
  readonly workspace: Workspace;
  /** The M-norm projection onto the ball (buffers allocated on its first use). */
  private readonly projection: ExactBallProjection;

  /** M = diagonal·I. */
  constructor(d: number, diagonal: number, refreshInterval: number) {
    this.d = d;
    // M, M⁻¹ and the arrays products over them write, in one workspace (WebAssembly under the wasm backend).
    this.workspace = new Workspace(8 * (3 * d * d + 4 * d) + 65536);
    const space = this.workspace;
    this.matrix = space.float64(d * d);
    this.inverse = space.float64(d * d);
    for (let i = 0; i < d; i++) {
      this.matrix[i * d + i] = diagonal;
      this.inverse[i * d + i] = 1 / diagonal;
    }
    this.logDeterminant = d * Math.log(diagonal);
    this.column = space.float64(d);
    this.refreshInterval = refreshInterval;
    this.refreshWork = space.float64(d * d + d);
    this.projection = new ExactBallProjection(d, space);
  }

  /** ‖x‖²_{M⁻¹} (and M⁻¹x, kept for a following `addOuter` of the same x). */
  inverseNormSq(x: Float64Array): number {
    gemv(this.d, this.d, this.inverse, 0, this.d, x, 0, this.column, 0);
    return dot(this.d, this.column, 0, x, 0);
  }

  /** out = M⁻¹x. */
  applyInverse(x: Float64Array, out: Float64Array): void {
    gemv(this.d, this.d, this.inverse, 0, this.d, x, 0, out, 0);
  }

  /** M += w x xᵀ (w ≥ 0); M⁻¹ by Sherman–Morrison; ln det M += ln(1 + w‖x‖²_{M⁻¹}). */
  addOuter(weight: number, x: Float64Array): void {
    const { d, matrix, inverse, column } = this;
    const q = this.inverseNormSq(x);
    ger(d, d, weight, x, 0, 1, x, 0, matrix, 0, d);
    this.logDeterminant += Math.log1p(weight * q);
    this.updates++;
    if (this.updates % this.refreshInterval === 0) {
      if (!spdInverse(d, matrix, 0, d, inverse, 0, d, this.refreshWork)) throw new Error('design matrix is not positive definite at refresh');
      return;
    }
    const scale = -weight / (1 + weight * q);
    ger(d, d, scale, column, 0, 1, column, 0, inverse, 0, d);
  }

  /**
   * In place: the M-norm projection of `point` onto the ball ‖θ‖₂ ≤ S, argmin_{‖θ‖≤S} ‖θ − point‖_M
   * (a no-op inside the ball). With M = QΛQᵀ: θ = Q diag(μ/(μ+ν)) Qᵀ point, ν the root of
   * Σ μ_i²(q_iᵀpoint)²/(μ_i+ν)² = S² (the secular equation of model/projection.ts). O(d³) when taken.
   * Returns whether it was taken.
   */
  projectOntoBall(point: Float64Array, normBound: number): boolean {
    const { d } = this;
    if (dot(d, point, 0, point, 0) <= normBound * normBound) return false;
    this.projection.matrix().set(this.matrix);
    this.projection.project(point, normBound);
    return true;
  }

  get byteLength(): number {
    return (
      this.matrix.byteLength +
      this.inverse.byteLength +
      this.refreshWork.byteLength +
      this.column.byteLength +
      this.projection.byteLength
    );
  }
}

/** argmax_x rᵀσ(Wx) + γ‖x‖_{M⁻¹} over a round's actions; ties (TIE_TOLERANCE) go to the lowest index. */
export class BonusSelector {
  private readonly K: number;
  private readonly d: number;
  private readonly reward: Float64Array;
  private readonly sigma: Float64Array;
  /** z = Wx of every action (count×K). */
  private scores: Float64Array = new Float64Array(0);
  /** M⁻¹x of every action (count×d). */
  private columns: Float64Array = new Float64Array(0);
  private optimistic = new Float64Array(0);

  constructor(K: number, d: number, reward: Float64Array) {
    this.K = K;
    this.d = d;
    this.reward = reward;
    this.sigma = new Float64Array(K);
  }

  select(actions: ActionSet, estimate: Float64Array, radius: number, design: DesignMatrix): number {
    const { K, d } = this;
    const count = actions.count;
    if (this.optimistic.length < count) {
      this.scores = design.workspace.float64(count * K);
      this.columns = design.workspace.float64(count * d);
      this.optimistic = new Float64Array(count);
    }
    const { scores, columns, optimistic } = this;
    gemmNT(count, K, d, actions.features, 0, d, estimate, 0, d, scores, 0, K);
    // Row a of X M⁻¹ is (M⁻¹x_a)ᵀ (M⁻¹ is symmetric).
    gemmNT(count, d, d, actions.features, 0, d, design.inverse, 0, d, columns, 0, d);
    let best = -Infinity;
    for (let a = 0; a < count; a++) {
      softmaxWithNull(K, scores, this.sigma, a * K);
      const normSq = dot(d, columns, a * d, actions.features, a * d);
      const score = expectedReward(K, this.reward, this.sigma) + radius * Math.sqrt(Math.max(0, normSq));
      optimistic[a] = score;
      if (score > best) best = score;
    }
    return firstOfTies(optimistic, count, best);
  }

  get byteLength(): number {
    return this.scores.byteLength + this.columns.byteLength + this.optimistic.byteLength;
  }
}
