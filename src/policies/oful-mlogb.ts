/**
 * OFUL-MLogB (Zhang and Sugiyama, 2023), the exact baseline, written as an expert would:
 * H_t = λI + Σ_{s<t} ∇²ℓ_s(W_{s+1}) is kept together with H_t⁻¹, which follows rank-K Woodbury
 * updates and is re-inverted from a Cholesky factorisation every `refreshInterval` rounds. An action
 * is scored through the K×K matrix (I⊗x)ᵀH⁻¹(I⊗x) (O(K²d²)); in rounds where the projection of
 * eq. (9) is needed, it is solved as a trust-region subproblem by a few Cholesky factorisations of
 * H̃ + νI (Moré–Sorensen), not an eigendecomposition. O(K²d²) memory.
 *
 * `oful_solver: textbook` is the cost the paper assigns OFUL-MLogB (§1, O(K³d³) a round, Fig. 2):
 * H⁻¹ re-inverted from H every round, and H̃ eigendecomposed every round for eq. (9): with its
 * eigenvectors (kept factored) when the step leaves the ball (Lemma 2's root in H̃'s eigenbasis), its
 * eigenvalues alone (the Householder reduction and QL, numpy's eigvalsh) when the solution is the
 * step itself. The rest of a decision's arithmetic is the same, and the two projections agree to
 * rounding.
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot, gemmNT, gemv, ger } from '../linalg/blas.js';
import { Workspace } from '../linalg/simd.js';
import { cholesky, choleskySolve, spdInverse } from '../linalg/cholesky.js';
import { ConfidenceRadius, parameterStep } from '../model/beta.js';
import { LocalModel } from '../model/local-model.js';
import { ExactBallProjection, TrustRegionProjection } from '../model/projection.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './kit/checks.js';
import { OptimisticSelector } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS } from './policy.js';
import { OFUL_SOLVER_OPTION, ofulSolverOption, type OfulSolver } from '../base/policy-catalogue.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of H. */
export const DEFAULT_REFRESH_INTERVAL = 500;

export class OfulMLogB implements Policy {
  readonly name = 'OFUL-MLogB' as const;
  private readonly K: number;
  private readonly d: number;
  private readonly dimension: number;
  /** η */
  private readonly stepSize: number;
  /** S */
  private readonly normBound: number;
  private readonly refreshInterval: number;
  readonly solver: OfulSolver;
  private readonly beta: ConfidenceRadius;
  private readonly selector: OptimisticSelector;
  private readonly local: LocalModel;
  /** H_t (Kd×Kd). */
  readonly hessian: Float64Array;
  /** H_t⁻¹ (Kd×Kd). */
  readonly inverse: Float64Array;
  private current: Float64Array;
  private candidate: Float64Array;
  private readonly difference: Float64Array;
  /** Y = H⁻¹(I⊗x), stored as K rows of length Kd. */
  private readonly columns: Float64Array;
  /** M(x) = (I⊗x)ᵀH⁻¹(I⊗x) for the played action (K×K). */
  private readonly curvature: Float64Array;
  private readonly small: Float64Array;
  private readonly smallVector: Float64Array;
  private readonly smallVector2: Float64Array;
  private readonly lowRank: Float64Array;
  private readonly refreshWork: Float64Array;
  /** Per-round scoring scratch: H⁻¹(e_i ⊗ x) for every action (count × K·Kd). */
  private actionColumns: Float64Array = new Float64Array(0);
  /** Where H, H⁻¹ and the arrays products over them write live. */
  readonly workspace: Workspace;
  private roundFeatures: Float64Array = new Float64Array(0);
  private readonly curvatureOfAction: (index: number, out: Float64Array) => void;
  /** eq. (9) in the rounds that leave the ball; its buffers are allocated on first use. */
  private readonly projection: TrustRegionProjection | ExactBallProjection;
  private projections = 0;
  private updates = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const { K, d } = spec;
    const n = K * d;
    this.K = K;
    this.d = d;
    this.dimension = n;
    this.stepSize = spec.stepSize;
    this.normBound = spec.normBound;
    this.solver = ofulSolverOption(spec.options);
    // textbook: H⁻¹ from a fresh factorisation of H after every update.
    this.refreshInterval = this.solver === 'textbook' ? 1 : (spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.beta = new ConfidenceRadius({
      mode: spec.beta,
      scale: spec.betaScale,
      d,
      K,
      rank: n,
      regularization: spec.regularization,
      stepSize: spec.stepSize,
      normBound: spec.normBound,
      maxActionNorm: spec.maxActionNorm,
      delta: spec.delta,
    });
    this.local = new LocalModel(K, d);
    // H, H⁻¹ and every array a product over them writes live in one workspace (WebAssembly memory
    // under the wasm backend), sized for them up front.
    this.workspace = new Workspace(8 * (3 * n * n + (5 + 2 * K) * n) + 65536);
    const space = this.workspace;
    this.selector = new OptimisticSelector(K, d, spec.reward, space);
    this.hessian = space.float64(n * n);
    this.inverse = space.float64(n * n);
    for (let i = 0; i < n; i++) {
      this.hessian[i * n + i] = spec.regularization;
      this.inverse[i * n + i] = 1 / spec.regularization;
    }
    this.current = space.float64(n);
    this.candidate = space.float64(n);
    this.difference = space.float64(n);
    this.columns = space.float64(K * n);
    this.curvature = new Float64Array(K * K);
    this.small = new Float64Array(K * K);
    this.smallVector = new Float64Array(K);
    this.smallVector2 = new Float64Array(K);
    this.lowRank = space.float64(K * n);
    this.refreshWork = space.float64(n * n + n);
    // H̃ ⪰ λI bounds the trust-region multiplier from below.
    this.projection =
      this.solver === 'textbook' ? new ExactBallProjection(n, space) : new TrustRegionProjection(n, { space, floor: spec.regularization });
    this.curvatureOfAction = (index, out) => this.actionCurvature(index, out);
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    const { K, d, dimension: n } = this;
    const count = actions.count;
    if (this.actionColumns.length < count * K * n) this.actionColumns = this.workspace.float64(count * K * n);
    // H⁻¹(e_i ⊗ x) for all actions: row c of H⁻¹'s block column i against every x (H⁻¹ is symmetric).
    for (let i = 0; i < K; i++) gemmNT(count, n, d, actions.features, 0, d, this.inverse, i * d, n, this.actionColumns, i * n, K * n);
    this.roundFeatures = actions.features;
    return this.selector.select(actions, this.current, this.confidenceRadius(t), this.curvatureOfAction);
  }

  /** β_t of round t (recorded for `stats`). */
  confidenceRadius(t: number): number {
    this.lastBeta = this.beta.value(t, 0);
    return this.lastBeta;
  }

  /** M(x)_ij = (e_i ⊗ x)ᵀ H⁻¹ (e_j ⊗ x). */
  private actionCurvature(index: number, out: Float64Array): void {
    const { K, d, dimension: n } = this;
    const base = index * K * n;
    for (let i = 0; i < K; i++) {
      for (let j = 0; j <= i; j++) {
        out[i * K + j] = out[j * K + i] = dot(d, this.actionColumns, base + j * n + i * d, this.roundFeatures, index * d);
      }
    }
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
    const { K, d, dimension: n, local, columns, curvature } = this;
    const eta = this.stepSize;

    // Y = H⁻¹(I⊗x) and M = (I⊗x)ᵀY: shared by the gradient step and the Woodbury update below.
    for (let j = 0; j < K; j++) gemv(n, d, this.inverse, j * d, n, x, 0, columns, j * n);
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) curvature[i * K + j] = dot(d, columns, j * n + i * d, x, 0);
    }

    // eq. (8): W' = W − η H̃⁻¹ ∇ℓ, H̃ = H + η∇²ℓ(W_t) = H + (F⊗x)(F⊗x)ᵀ. With g = (I⊗x)c:
    // H̃⁻¹g = Y (c − F (I + FᵀMF)⁻¹ FᵀMc) by Woodbury.
    local.evaluate(this.current, x, outcome);
    const factor = local.hessianFactor(eta);
    const c = local.gradient;
    const middle = this.woodburyCore(factor);
    const v = this.smallVector;
    const w = this.smallVector2;
    for (let i = 0; i < K; i++) {
      let s = 0;
      for (let j = 0; j < K; j++) s += curvature[i * K + j] * c[j];
      v[i] = s;
    }
    for (let j = 0; j < K; j++) {
      let s = 0;
      for (let i = 0; i < K; i++) s += factor[i * K + j] * v[i];
      w[j] = s;
    }
    choleskySolve(K, middle, 0, K, w, 0);
    const next = this.candidate;
    next.set(this.current);
    for (let i = 0; i < K; i++) {
      let s = c[i];
      for (let j = 0; j < K; j++) s -= factor[i * K + j] * w[j];
      axpy(n, -eta * s, columns, i * n, next, 0);
    }

    // eq. (9): exact H̃-norm projection when W' leaves the ball (textbook: H̃'s eigenvalues in the other rounds).
    const S = this.normBound;
    const normSq = dot(n, next, 0, next, 0);
    if (normSq > S * S) {
      this.project(factor, x, next);
      this.projections++;
    } else if (this.projection instanceof ExactBallProjection) {
      this.fillTilde(factor, x);
      this.projection.eigenvalues();
    }

    if (this.beta.needsRunningSum) {
      const diff = this.difference;
      const predictionSq = parameterStep(K, d, this.current, next, x, diff);
      let curvatureSq = 0;
      for (let i = 0; i < n; i++) curvatureSq += diff[i] * dot(n, this.hessian, i * n, diff, 0);
      this.beta.accumulate(predictionSq, curvatureSq);
    }

    this.candidate = this.current;
    this.current = next;
    assertFiniteState(this.name, this.current);

    // H_{t+1} = H_t + ∇²ℓ_t(W_{t+1}) = H_t + ∇σ ⊗ x xᵀ, and H⁻¹ by the rank-K Woodbury identity:
    // H_{t+1}⁻¹ = H⁻¹ − (YF)(I + FᵀMF)⁻¹(YF)ᵀ.
    local.evaluate(this.current, x, outcome);
    const jacobian = local.jacobian;
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        ger(d, d, jacobian[i * K + j], x, 0, 1, x, 0, this.hessian, i * d * n + j * d, n);
      }
    }
    this.updates++;
    if (this.updates % this.refreshInterval === 0) {
      this.refreshInverse();
      return;
    }
    const hessFactor = local.hessianFactor(1);
    const core = this.woodburyCore(hessFactor);
    // U = Y F, then Ũ = U L⁻ᵀ (L Lᵀ = I + FᵀMF) so that H⁻¹ −= Ũ Ũᵀ stays symmetric.
    const U = this.lowRank;
    U.fill(0);
    for (let j = 0; j < K; j++) {
      for (let i = 0; i < K; i++) axpy(n, hessFactor[i * K + j], columns, i * n, U, j * n);
    }
    for (let j = 0; j < K; j++) {
      for (let p = 0; p < j; p++) axpy(n, -core[j * K + p], U, p * n, U, j * n);
      const inv = 1 / core[j * K + j];
      for (let q = 0; q < n; q++) U[j * n + q] *= inv;
    }
    for (let j = 0; j < K; j++) ger(n, n, -1, U, j * n, 1, U, j * n, this.inverse, 0, n);
  }

  /** Cholesky factor (lower, in `small`) of I + FᵀMF for the current M. */
  private woodburyCore(factor: Float64Array): Float64Array {
    const { K, curvature, small } = this;
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        let s = i === j ? 1 : 0;
        for (let p = 0; p < K; p++) {
          let mf = 0;
          for (let q = 0; q < K; q++) mf += curvature[p * K + q] * factor[q * K + j];
          s += factor[p * K + i] * mf;
        }
        small[i * K + j] = s;
      }
    }
    if (!cholesky(K, small, 0, K)) throw new Error(`${this.name}: Woodbury core I + FᵀMF is not positive definite`);
    return small;
  }

  /** H⁻¹ from a fresh Cholesky factorisation of H (bounds the drift of repeated Woodbury updates). */
  refreshInverse(): void {
    if (!spdInverse(this.dimension, this.hessian, 0, this.dimension, this.inverse, 0, this.dimension, this.refreshWork)) {
      throw new Error(`${this.name}: H is not positive definite at refresh`);
    }
  }

  // eq. (9) exactly: W = (H̃+νI)⁻¹H̃W' with ‖W‖ = S.
  private project(factor: Float64Array, x: Float64Array, next: Float64Array): void {
    this.fillTilde(factor, x);
    this.projection.project(next, this.normBound);
  }

  /**
   * H̃ = H + (F⊗x)(F⊗x)ᵀ into the projection's matrix: whole, or for the textbook solver's
   * eigensolver, which reads no more, its lower triangle (each entry the same sum; above it, H's).
   */
  private fillTilde(factor: Float64Array, x: Float64Array): void {
    const { K, d, dimension: n } = this;
    const matrix = this.projection.matrix();
    const lower = this.projection instanceof ExactBallProjection;
    matrix.set(this.hessian);
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < (lower ? i + 1 : K); j++) {
        let g = 0;
        for (let p = 0; p < K; p++) g += factor[i * K + p] * factor[j * K + p];
        for (let r = 0; r < d; r++) axpy(lower && j === i ? r + 1 : d, g * x[r], x, 0, matrix, (i * d + r) * n + j * d);
      }
    }
  }

  /** Rounds in which the projection of eq. (9) was taken so far (a cheap counter for the bench). */
  get projectionsTaken(): number {
    return this.projections;
  }

  stats(): PolicyStats {
    const bytes =
      this.hessian.byteLength +
      this.inverse.byteLength +
      this.refreshWork.byteLength +
      3 * this.current.byteLength +
      this.columns.byteLength +
      this.lowRank.byteLength +
      this.actionColumns.byteLength +
      this.projection.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: this.projections, beta: this.lastBeta, delta: 1 };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const ofulMLogBPolicy: PolicyDescriptor = {
  name: 'OFUL-MLogB',
  summary: 'the exact baseline (Zhang and Sugiyama, 2023): online Newton steps on the full Kd×Kd Hessian',
  reference: 'Zhang and Sugiyama, 2023',
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS),
  options: { oful_solver: OFUL_SOLVER_OPTION },
  needsRandomStream: false,
  costRank: 2,
  cost: {
    round: 'O(|A_t|·K²d² + K²d²)',
    memory: 'O(K²d²)',
    // Scoring (I⊗x)ᵀH⁻¹(I⊗x) per action, then the rank-K Woodbury update of H⁻¹; textbook adds, with
    // n = Kd, the inverse from a Cholesky factor (≈ n³) and the reduction of H̃ to tridiagonal form (≈ 4n³/3).
    flops: ({ d, K, actions, options }) =>
      2 * actions * K * K * d * d + 8 * (K * d) ** 2 + (ofulSolverOption(options) === 'textbook' ? (7 / 3) * (K * d) ** 3 : 0),
    // H, H⁻¹ and the refresh workspace, then at the first projection H̃, the eigensolver's work array
    // and its eigenvectors (≈ 2(Kd)²): seven Kd×Kd arrays, plus the scoring scratch. (The incremental
    // solver's trust-region projection holds five: H̃ and one Cholesky factor.)
    bytes: ({ d, K, actions }) => 8 * (7 * (K * d) ** 2 + actions * K * K * d + 16 * K * d),
    probeProjection: true,
  },
  create: (spec) => new OfulMLogB(spec),
};
