/**
 * RS-MNL (Midigeshi, Goyal and Sinha, "Achieving limited adaptivity for multinomial logistic bandits",
 * RLC 2025, arXiv 2508.03072: the rarely-switching algorithm), any K, as the authors' code plays it
 * (tanmaygoyal258/MNL_Limited_Adaptivity `RS_MNL.py` at d8bc55d; line numbers below are that file's):
 *
 * - H_1 = λI and H_{t+1} = H_t + ∇σ(θ̂x_t) ⊗ x_t x_tᵀ at the current estimate θ̂ (lines 38–39, 79–80).
 * - Switch when det H_t ≥ (1 + c) det H_τ (c = 1, lines 32, 56): θ̂ is refitted, the regularised MLE
 *   over every round so far (line 58), and H_t is rebuilt at it, H_t = λI + Σ_s ∇σ(θ̂x_s) ⊗ x_s x_sᵀ,
 *   H_τ = H_t (lines 62–65). H_τ only gates the switches: the bonus reads H_t (lines 122–126).
 * - Play argmax rᵀσ(θ̂x) + √(1+c)·γ‖(∇σ(θ̂x) r) ⊗ x‖_{H_t⁻¹} + 3(1+c)·R·γ²·‖(I_K ⊗ x)ᵀ H_t^{-1/2}‖₂²
 *   (lines 117–128; the last norm is λ_max of the K×K matrix (I⊗x)ᵀH_t⁻¹(I⊗x)), the first on ties.
 * - λ = K d ln T / √S (line 33), γ = R S √(dK ln(T/δ)) with R = ‖r‖₂ (line 34; main.py:64 scales r to
 *   norm R), δ = 0.05 (main.py:19).
 *
 * Their fit (utils.py:28–67, `minimize_loss_torch`) is 1,000 full-batch SGD steps of size 1e-4 on the
 * summed cross-entropy with weight decay λ/2, from the previous estimate; it stops far from the optimum,
 * and its `ignore_index = 0` drops every round whose outcome is the null one (0) from the loss. Here the
 * estimate is the optimum of their objective without those two defects: all rounds, the ridge of their
 * weight decay, Σ_s ℓ_s(θ) + (λ/4)‖θ‖², solved exactly (policies/kit/mle.ts). det H is compared in
 * logarithms (theirs, np.linalg.det of the Kd×Kd H, overflows once Kd·ln λ passes ≈ 709).
 *
 * λ is theirs (it reads T), not a config key. β mode (params.beta): 'theory' and 'order' are the code's
 * γ² (no hidden constants), a number is γ²; beta_scale multiplies γ². Per round O(|A_t|·K²d² + K·(Kd)²)
 * (H_t⁻¹ follows rank-K Woodbury updates, re-inverted every 500 updates); a switch refits θ̂
 * (O(t·K²d² + K³d³) per Newton step) and rebuilds H_t (O(t·K²d² + K³d³)). O(td + K²d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot, gemmNT, gemv, ger } from '../linalg/blas.js';
import { cholesky, spdInverse } from '../linalg/cholesky.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { Workspace } from '../linalg/simd.js';
import { expectedReward, softmaxJacobian, softmaxWithNull } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './kit/checks.js';
import { mleBytes, RegularizedMle } from './kit/mle.js';
import { firstOfTies } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, RADIUS_KEYS } from './policy.js';
import { requireHorizon } from './rs-glincb.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** c: a switch when det H_t ≥ (1 + c) det H_τ (RS_MNL.py:32, `doubling_constant`). */
export const RS_MNL_DOUBLING = 1;
/** The factor 3 of the second-order bonus 3(1 + c)Rγ²‖·‖² (RS_MNL.py:126). */
export const RS_MNL_SECOND_ORDER = 3;
/** Default updates between exact re-inversions of H_t. */
const DEFAULT_REFRESH_INTERVAL = 500;

/** λ = K d ln T / √S (RS_MNL.py:33). */
export function rsMnlRegularization(K: number, d: number, horizon: number, normBound: number): number {
  return (K * d * Math.log(horizon)) / Math.sqrt(normBound);
}

export class RsMnl implements Policy {
  readonly name = 'RS-MNL' as const;
  private readonly K: number;
  private readonly d: number;
  private readonly n: number;
  private readonly reward: Float64Array;
  /** λ */
  readonly regularization: number;
  /** γ² (times beta_scale). */
  readonly radiusSq: number;
  /** R = ‖r‖₂ */
  private readonly rewardNorm: number;
  private readonly refreshInterval: number;
  /** H_t (Kd×Kd) and H_t⁻¹. */
  readonly hessian: Float64Array;
  readonly inverse: Float64Array;
  /** ln det H_t, and ln det H_τ (−∞ before the first switch: round 1 switches, as theirs does). */
  logDeterminant: number;
  private switchedLogDet = -Infinity;
  /** θ̂ (Kd), row-wise vectorised. */
  readonly current: Float64Array;
  private readonly fit: RegularizedMle;
  /** λ/2: the ridge of the fit's objective. */
  private readonly ridge: number;
  private readonly work: Float64Array;
  /** Y = H⁻¹(I⊗x) as K rows of Kd; then the Woodbury factor. */
  private readonly columns: Float64Array;
  private readonly factor: Float64Array;
  private readonly core: Float64Array;
  private readonly curvature: Float64Array;
  private readonly sigma: Float64Array;
  private readonly jacobian: Float64Array;
  private readonly gradient: Float64Array;
  private readonly z: Float64Array;
  private readonly eigen: SymmetricEigen;
  private readonly eigenValues: Float64Array;
  /** H⁻¹(e_i ⊗ x) for every action of the round (count × K·Kd), and their scores. */
  private actionColumns: Float64Array = new Float64Array(0);
  private scores = new Float64Array(0);
  private actionZ: Float64Array = new Float64Array(0);
  /** Where H, H⁻¹ and the arrays products over them write live (WebAssembly memory under the wasm backend). */
  readonly workspace: Workspace;
  private updates = 0;
  /** Switches (refits of θ̂), round 1's included. */
  switches = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const T = requireHorizon('RS-MNL', spec);
    if (T < 2) throw new RangeError(`RS-MNL needs a horizon T ≥ 2 (λ = K d ln T/√S), got ${T}`);
    const { K, d } = spec;
    const n = K * d;
    this.K = K;
    this.d = d;
    this.n = n;
    this.reward = spec.reward;
    this.rewardNorm = Math.sqrt(dot(K, spec.reward, 0, spec.reward, 0));
    const lambda = rsMnlRegularization(K, d, T, spec.normBound);
    this.regularization = lambda;
    const gammaSq =
      typeof spec.beta === 'number'
        ? spec.beta
        : this.rewardNorm ** 2 * spec.normBound ** 2 * d * K * Math.max(0, Math.log(T / spec.delta));
    this.radiusSq = gammaSq * spec.betaScale;
    this.refreshInterval = spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL;
    this.workspace = new Workspace(8 * (3 * n * n + (K + 3) * n) + 65536);
    const space = this.workspace;
    this.hessian = space.float64(n * n);
    this.inverse = space.float64(n * n);
    for (let i = 0; i < n; i++) {
      this.hessian[i * n + i] = lambda;
      this.inverse[i * n + i] = 1 / lambda;
    }
    this.logDeterminant = n * Math.log(lambda);
    this.current = space.float64(n);
    // Their weight decay λ/2 is the gradient's ridge: the objective Σℓ + (λ/4)‖θ‖².
    this.ridge = lambda / 2;
    this.fit = new RegularizedMle(K, d);
    this.work = space.float64(n * n + n);
    this.columns = space.float64(K * n);
    this.factor = new Float64Array(K * K);
    this.core = new Float64Array(K * K);
    this.curvature = new Float64Array(K * K);
    this.sigma = new Float64Array(K);
    this.jacobian = new Float64Array(K * K);
    this.gradient = new Float64Array(K);
    this.z = new Float64Array(K);
    this.eigen = new SymmetricEigen(K);
    this.eigenValues = new Float64Array(K);
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    const { K, d, n } = this;
    const count = actions.count;
    const features = actions.features;
    // Switching criterion: det H_t ≥ (1 + c) det H_τ, in logarithms.
    if (this.logDeterminant >= Math.log1p(RS_MNL_DOUBLING) + this.switchedLogDet) this.switch();
    this.lastBeta = this.radiusSq;
    if (this.scores.length < count) {
      this.scores = new Float64Array(count);
      this.actionZ = this.workspace.float64(count * K);
    }
    if (this.actionColumns.length < count * K * n) this.actionColumns = this.workspace.float64(count * K * n);
    const { actionColumns, scores, actionZ, sigma, jacobian, gradient, curvature } = this;
    // H⁻¹(e_i ⊗ x) for every action: row c of H⁻¹'s block column i against every x (H⁻¹ is symmetric).
    for (let i = 0; i < K; i++) gemmNT(count, n, d, features, 0, d, this.inverse, i * d, n, actionColumns, i * n, K * n);
    gemmNT(count, K, d, features, 0, d, this.current, 0, d, actionZ, 0, K);
    const gamma = Math.sqrt(this.radiusSq);
    const firstFactor = Math.sqrt(1 + RS_MNL_DOUBLING) * gamma;
    const secondFactor = RS_MNL_SECOND_ORDER * (1 + RS_MNL_DOUBLING) * this.rewardNorm * this.radiusSq;
    let best = -Infinity;
    for (let a = 0; a < count; a++) {
      const base = a * K * n;
      // M(x)_ij = (e_i ⊗ x)ᵀ H⁻¹ (e_j ⊗ x).
      for (let i = 0; i < K; i++) {
        for (let j = 0; j <= i; j++) curvature[i * K + j] = curvature[j * K + i] = dot(d, actionColumns, base + j * n + i * d, features, a * d);
      }
      softmaxWithNull(K, actionZ, sigma, a * K);
      softmaxJacobian(K, sigma, jacobian);
      for (let i = 0; i < K; i++) {
        let g = 0;
        for (let j = 0; j < K; j++) g += jacobian[i * K + j] * this.reward[j];
        gradient[i] = g;
      }
      // ‖(∇σ r) ⊗ x‖²_{H⁻¹} = gᵀ M g.
      let firstSq = 0;
      for (let i = 0; i < K; i++) {
        let s = 0;
        for (let j = 0; j < K; j++) s += curvature[i * K + j] * gradient[j];
        firstSq += gradient[i] * s;
      }
      let largest: number;
      if (K === 1) {
        largest = curvature[0];
      } else {
        // Values only: below order 96 they are `decompose`'s, bit for bit.
        this.eigen.eigenvalues(K, curvature, 0, K, this.eigenValues);
        largest = this.eigenValues[0];
      }
      const score = expectedReward(K, this.reward, sigma) + firstFactor * Math.sqrt(Math.max(0, firstSq)) + secondFactor * Math.max(0, largest);
      scores[a] = score;
      if (score > best) best = score;
    }
    return firstOfTies(scores, count, best);
  }

  /** θ̂ refitted over every round so far; H_t rebuilt at it; H_τ = H_t. */
  private switch(): void {
    this.fit.fit(this.current, this.ridge, 'gradient', this.name);
    assertFiniteState(this.name, this.current);
    this.fit.curvature(this.current, this.regularization, this.hessian);
    this.refresh();
    this.switchedLogDet = this.logDeterminant;
    this.switches++;
  }

  /** H⁻¹ and ln det H afresh from H's Cholesky factor. */
  private refresh(): void {
    const { n, work } = this;
    if (!spdInverse(n, this.hessian, 0, n, this.inverse, 0, n, work)) throw new Error(`${this.name}: H_t is not positive definite`);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) work[i * n + j] = this.hessian[i * n + j];
    cholesky(n, work, 0, n);
    let logDet = 0;
    for (let i = 0; i < n; i++) logDet += 2 * Math.log(work[i * n + i]);
    this.logDeterminant = logDet;
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
    const { K, d, n, columns, factor, core, curvature, sigma, z } = this;
    this.fit.add(x, outcome);
    // ∇σ(θ̂x) = F Fᵀ (Cholesky; positive definite, as σ_0 > 0).
    for (let i = 0; i < K; i++) z[i] = dot(d, this.current, i * d, x, 0);
    softmaxWithNull(K, z, sigma);
    softmaxJacobian(K, sigma, factor);
    for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) this.jacobian[i * K + j] = factor[i * K + j];
    if (!cholesky(K, factor, 0, K)) throw new Error(`${this.name}: ∇σ is not positive definite`);
    for (let i = 0; i < K; i++) for (let j = i + 1; j < K; j++) factor[i * K + j] = 0;
    // H += ∇σ ⊗ x xᵀ.
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) ger(d, d, this.jacobian[i * K + j], x, 0, 1, x, 0, this.hessian, i * d * n + j * d, n);
    }
    this.updates++;
    if (this.updates % this.refreshInterval === 0) {
      this.refresh();
      return;
    }
    // Woodbury with U = (I⊗x)F: Y = H⁻¹(I⊗x), M = (I⊗x)ᵀY, C = I + FᵀMF;
    // H⁻¹ −= (YF) C⁻¹ (YF)ᵀ and ln det H += ln det C.
    for (let j = 0; j < K; j++) gemv(n, d, this.inverse, j * d, n, x, 0, columns, j * n);
    for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) curvature[i * K + j] = dot(d, columns, j * n + i * d, x, 0);
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        let s = i === j ? 1 : 0;
        for (let a = 0; a < K; a++) for (let b = 0; b < K; b++) s += factor[a * K + i] * curvature[a * K + b] * factor[b * K + j];
        core[i * K + j] = s;
      }
    }
    if (!cholesky(K, core, 0, K)) throw new Error(`${this.name}: the Woodbury core is not positive definite`);
    for (let i = 0; i < K; i++) this.logDeterminant += 2 * Math.log(core[i * K + i]);
    // Rows of V = (YF) L⁻ᵀ (C = LLᵀ), one K-vector per coordinate r: L v_r = (YF)_r by forward substitution.
    const v = this.work;
    for (let r = 0; r < n; r++) {
      for (let k = 0; k < K; k++) {
        let u = 0;
        for (let j = k; j < K; j++) u += columns[j * n + r] * factor[j * K + k];
        for (let m = 0; m < k; m++) u -= core[k * K + m] * v[m * n + r];
        v[k * n + r] = u / core[k * K + k];
      }
    }
    for (let k = 0; k < K; k++) ger(n, n, -1, v, k * n, 1, v, k * n, this.inverse, 0, n);
  }

  stats(): PolicyStats {
    const bytes =
      this.hessian.byteLength +
      this.inverse.byteLength +
      this.work.byteLength +
      this.current.byteLength +
      this.fit.byteLength +
      this.columns.byteLength +
      this.actionColumns.byteLength +
      this.scores.byteLength +
      this.actionZ.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const rsMnlPolicy: PolicyDescriptor = {
  name: 'RS-MNL',
  summary: 'rarely-switching MNL bandit: the MLE refitted only when det H doubles, a second-order UCB (Midigeshi, Goyal and Sinha, 2025)',
  reference: 'Midigeshi, Goyal and Sinha, 2025',
  supports: { binary: true, multinomial: true },
  // λ = K d ln T/√S is theirs (RS_MNL.py:33) and reads T: no λ key.
  reads: paramKeys(['S', 'delta'], RADIUS_KEYS),
  // tanmaygoyal258/MNL_Limited_Adaptivity RS_MNL.py:34 (γ: no other radius) and δ = 0.05 (main.py:19).
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 2,
  cost: {
    round: 'O(|A_t|·K²d² + K³d²); a switch adds a refit, O(t·K²d² + K³d³) per Newton step',
    memory: 'O(td + K²d²)',
    // H⁻¹(e_i⊗x) for every action and the rank-K Woodbury update; refits are rare.
    flops: ({ d, K, actions }) => 2 * actions * K * (K * d) * d + 2 * actions * K * K * d + 4 * K * (K * d) ** 2,
    // The MLE (its history and Newton system), H, H⁻¹ and the work array, and the per-action columns.
    bytes: ({ d, K, actions, t }) => mleBytes(K, d, t) + 8 * (3 * (K * d) ** 2 + actions * K * K * d),
    probeProjection: false,
  },
  create: (spec) => new RsMnl(spec),
};
