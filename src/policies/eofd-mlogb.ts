/**
 * EOFD-MLogB, Alg. 2: OFUL-MLogB with the Hessian replaced by the frequent-directions sketch
 * Z_t = λI + V_t Λ_t V_tᵀ (eq. (11)). Per action O(Kdm + mK² + K³) (Lemma 1); per round
 * O(Kd(m+K)²) (Lemma 2 for the projection, Alg. 1 for the sketch). No Kd×Kd matrix is ever formed.
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot } from '../linalg/blas.js';
import { ConfidenceRadius, parameterStep } from '../model/beta.js';
import { LocalModel } from '../model/local-model.js';
import { secularRoot } from '../model/projection.js';
import { ActionCurvature, AugmentedGramEigen, FrequentDirections } from '../sketch/frequent-directions.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './kit/checks.js';
import { OptimisticSelector } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS, SKETCH_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

export class EofdMLogB implements Policy {
  readonly name = 'EOFD-MLogB' as const;
  readonly sketch: FrequentDirections;
  private readonly K: number;
  private readonly d: number;
  private readonly dimension: number;
  /** λ (the base; the sketch's λ_t is `curvatureRegularization`). */
  private readonly regularization: number;
  /** η */
  private readonly stepSize: number;
  /** S */
  private readonly normBound: number;
  private readonly beta: ConfidenceRadius;
  private readonly selector: OptimisticSelector;
  private readonly local: LocalModel;
  /** W_t, row-wise vectorised. */
  private current: Float64Array;
  /** W', then W_{t+1}. */
  private candidate: Float64Array;
  private readonly difference: Float64Array;
  /** Eigendecomposition of the Gram matrix of C̃ = [VΛ^{1/2}, P(ηD)^{1/2} ⊗ x] (eq. (20), eq. (21), eq. (22)), for the projection of eq. (9). */
  private gramEigen!: AugmentedGramEigen;
  private projection!: Float64Array;
  private transposed!: Float64Array;
  private rotated!: Float64Array;
  private middle!: Float64Array;
  private coordinates!: Float64Array;
  private secularA!: Float64Array;
  private secularB!: Float64Array;
  /** Directions the arrays above are sized for (the sketch's capacity when they were allocated). */
  private allocated = 0;
  /** Per-round scoring: Lemma 1's A(x) of every action. */
  private readonly actionCurvature: ActionCurvature;
  private readonly curvatureOfAction: (index: number, out: Float64Array) => void;
  private projections = 0;
  private lastBeta = NaN;
  /** beta_rank 'full': β with rank Kd and Δ = 1, as OFUL-MLogB's. */
  private readonly fullRankRadius: boolean;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const { K, d } = spec;
    this.K = K;
    this.d = d;
    this.dimension = K * d;
    this.regularization = spec.regularization;
    this.stepSize = spec.stepSize;
    this.normBound = spec.normBound;
    const adaptive = spec.adaptiveSketch === undefined ? null : { deltaMax: spec.adaptiveSketch.deltaMax, regularization: spec.regularization };
    this.sketch = new FrequentDirections(d, K, spec.sketchSize, spec.sketchVariant === 'rfd', adaptive);
    const m = this.sketch.sketchSize;
    this.fullRankRadius = spec.betaRank === 'full';
    this.beta = new ConfidenceRadius({
      mode: spec.beta,
      scale: spec.betaScale,
      d,
      K,
      rank: this.fullRankRadius ? K * d : m,
      regularization: spec.regularization,
      stepSize: spec.stepSize,
      normBound: spec.normBound,
      maxActionNorm: spec.maxActionNorm,
      delta: spec.delta,
    });
    this.selector = new OptimisticSelector(K, d, spec.reward, this.sketch.workspace);
    this.local = new LocalModel(K, d);
    // Arrays that products over V write live beside V (the sketch's workspace).
    const space = this.sketch.workspace;
    this.current = space.float64(this.dimension);
    this.candidate = space.float64(this.dimension);
    this.difference = space.float64(this.dimension);
    this.reserve();
    this.actionCurvature = new ActionCurvature(this.sketch);
    // Lemma 1, eq. (18)
    this.curvatureOfAction = (index, out) => this.actionCurvature.write(index, out);
  }

  /** Sizes the per-round arrays for the sketch's capacity (again after an adaptive sketch grew it). */
  private reserve(): void {
    const { K, sketch } = this;
    const m = sketch.capacity;
    const space = sketch.workspace;
    const n = m + K;
    this.gramEigen = new AugmentedGramEigen(m, K, space);
    this.projection = space.float64(m * K);
    this.transposed = space.float64(n);
    this.rotated = new Float64Array(n);
    this.middle = new Float64Array(n);
    this.coordinates = new Float64Array(n);
    this.secularA = new Float64Array(n + 1);
    this.secularB = new Float64Array(n + 1);
    this.allocated = m;
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    this.actionCurvature.prepare(actions.features, actions.count, this.curvatureRegularization);
    return this.selector.select(actions, this.current, this.confidenceRadius(t), this.curvatureOfAction);
  }

  /**
   * β_t of round t (recorded for `stats`) with the sketch's m_t and Δ_t (an adaptive sketch's m_t is the
   * size it has reached); beta_rank 'full' is OFUL-MLogB's radius (rank Kd, Δ = 1).
   */
  confidenceRadius(t: number): number {
    this.lastBeta = this.fullRankRadius ? this.beta.value(t, 0) : this.beta.value(t, this.sketch.sketchError, this.sketch.sketchSize);
    return this.lastBeta;
  }

  /** m_t: the sketch size in this round. */
  sketchSize(): number {
    return this.sketch.sketchSize;
  }

  /** λ_t of Z_t = λ_t I + V_tΛ_tV_tᵀ: λ for FD, λ + ρ_{1:t}/2 for robust FD (params.sketch: rfd). */
  get curvatureRegularization(): number {
    return this.sketch.regularization(this.regularization);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
    if (this.allocated < this.sketch.capacity) this.reserve();
    const { K, d, dimension, sketch, local } = this;
    const lambda = this.curvatureRegularization;
    const eta = this.stepSize;
    const r = sketch.rank;
    const xNormSq = dot(d, x, 0, x, 0);

    // eq. (20), eq. (21), eq. (22): Z̃ = λI + C̃C̃ᵀ with C̃ = [VΛ^{1/2}, P(ηD)^{1/2} ⊗ x]; its Gram is (r+K)×(r+K).
    local.evaluate(this.current, x, outcome);
    const factor = local.hessianFactor(eta);
    const projection = sketch.project(x, 0, this.projection);
    const n = r + K;

    // eq. (8) by Woodbury: Z̃⁻¹g = (g − C̃ (λI + C̃ᵀC̃)⁻¹ C̃ᵀ g)/λ with g = (σ − e_y) ⊗ x.
    const coefficients = local.gradient;
    const transposed = this.transposed;
    for (let k = 0; k < r; k++) {
      let s = 0;
      for (let i = 0; i < K; i++) s += coefficients[i] * projection[i * r + k];
      transposed[k] = Math.sqrt(sketch.eigenvalues[k]) * s;
    }
    for (let j = 0; j < K; j++) {
      let s = 0;
      for (let i = 0; i < K; i++) s += factor[i * K + j] * coefficients[i];
      transposed[r + j] = s * xNormSq;
    }
    sketch.augmentedSolve(projection, factor, xNormSq, lambda, transposed, this.rotated);
    const next = this.candidate;
    next.set(this.current);
    for (let i = 0; i < K; i++) axpy(d, (-eta / lambda) * coefficients[i], x, 0, next, i * d);
    for (let i = 0; i < n; i++) this.rotated[i] *= eta / lambda;
    sketch.augmentedApply(this.rotated, factor, x, next);

    // eq. (9) by Lemma 2 when W' leaves the ball.
    const S = this.normBound;
    const normSq = dot(dimension, next, 0, next, 0);
    if (normSq > S * S) {
      this.project(normSq, factor, projection, xNormSq, x, next);
      this.projections++;
    }

    // Running sum of eq. (36): ‖(W_{t+1} − W_t)x‖² and ‖W_{t+1} − W_t‖²_{Z_t}, before the sketch moves.
    if (this.beta.needsRunningSum) {
      const diff = this.difference;
      const predictionSq = parameterStep(K, d, this.current, next, x, diff);
      const curvatureSq = lambda * dot(dimension, diff, 0, diff, 0) + sketch.sketchQuadraticForm(diff);
      this.beta.accumulate(predictionSq, curvatureSq);
    }

    this.candidate = this.current;
    this.current = next;
    assertFiniteState(this.name, this.current);

    // Alg. 2, last line: Alg. 1 with ∇²ℓ_t(W_{t+1}); the sketch has not moved since P(x) was taken.
    local.evaluate(this.current, x, outcome);
    sketch.update(x, local.hessianFactor(1), projection);
  }

  /** rotated = Q diag(middle) Qᵀ · transposed (the (r+K)-dimensional middle of a Woodbury product). */
  private rotateScaleBack(n: number): void {
    const { transposed, rotated, middle } = this;
    const vectors = this.gramEigen.vectors;
    const coords = this.coordinates;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += vectors[i * n + j] * transposed[i];
      coords[j] = s * middle[j];
    }
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += vectors[i * n + j] * coords[j];
      rotated[i] = s;
    }
  }

  // Lemma 2, eq. (23), eq. (24), eq. (25): the Z̃-norm projection of W' onto ‖W‖_F ≤ S via one scalar root.
  private project(normSq: number, factor: Float64Array, projection: Float64Array, xNormSq: number, x: Float64Array, next: Float64Array): void {
    const lambda = this.curvatureRegularization;
    const S = this.normBound;
    const { sketch, secularA: a, secularB: b } = this;
    const n = this.gramEigen.decompose(sketch, projection, factor, xNormSq);
    const { values, vectors } = this.gramEigen;
    for (let i = 0; i < n; i++) if (values[i] < 0) values[i] = 0;
    sketch.augmentedTranspose(next, factor, x, this.transposed);
    // ṽ_iᵀW' = q_iᵀ C̃ᵀ W' / √Λ̃_i; directions with Λ̃_i at rounding level behave like the λ-complement.
    const noise = 8 * n * Number.EPSILON * Math.max(values[0], 0);
    let inSpan = 0;
    let terms = 0;
    for (let j = 0; j < n; j++) {
      if (values[j] <= noise) continue;
      let s = 0;
      for (let i = 0; i < n; i++) s += vectors[i * n + j] * this.transposed[i];
      const c = (s * s) / values[j];
      inSpan += c;
      a[terms] = c * (lambda + values[j]) ** 2;
      b[terms] = lambda + values[j];
      terms++;
    }
    a[terms] = Math.max(0, normSq - inSpan) * lambda * lambda;
    b[terms] = lambda;
    terms++;
    const nu = secularRoot(terms, a, b, S * S);
    // eq. (23): W = λ/(λ+ν) W' + ν/(λ+ν) Ṽ Λ̃ M Ṽᵀ W', with Ṽ Λ̃ M Ṽᵀ = C̃ Q M Qᵀ C̃ᵀ.
    for (let i = 0; i < n; i++) this.middle[i] = nu / ((lambda + nu) * (lambda + nu + values[i]));
    this.rotateScaleBack(n);
    const shrink = lambda / (lambda + nu);
    for (let j = 0; j < next.length; j++) next[j] *= shrink;
    sketch.augmentedApply(this.rotated, factor, x, next);
  }

  /** Rounds in which the projection of eq. (9) was taken so far (a cheap counter for the bench). */
  get projectionsTaken(): number {
    return this.projections;
  }

  stats(): PolicyStats {
    const bytes =
      this.sketch.stateBytes +
      (this.current.byteLength + this.candidate.byteLength + this.difference.byteLength) +
      this.gramEigen.byteLength +
      this.actionCurvature.byteLength;
    return {
      stateBytes: bytes,
      sketchError: this.sketch.sketchError,
      projections: this.projections,
      beta: this.lastBeta,
      delta: 1 + this.sketch.sketchError / this.regularization,
    };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const eofdMLogBPolicy: PolicyDescriptor = {
  name: 'EOFD-MLogB',
  summary: 'online Newton steps on a frequent-directions sketch of the Hessian (Alg. 2); O(Kd(m+K)²) per round',
  reference: 'He, Zhang, Yang and Zhang, "Efficient Multinomial Logistic Bandit via Frequent Directions" (this paper)',
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS, SKETCH_KEYS),
  sketchDimension: (d, K) => K * d,
  needsRandomStream: false,
  costRank: 1,
  cost: {
    round: 'O(|A_t|·Kdm + Kd(m+K)²)',
    memory: 'O(Kdm)',
    // Nominal, as Alg. 2 reads: scoring P(x) for every action, the new basis, and two (m+K)×(m+K) eigendecompositions
    // (the Newton step takes its (λI + C̃ᵀC̃)⁻¹ by a K×K Schur complement, so a round without a projection runs one).
    flops: ({ d, K, m, actions }) => 2 * actions * K * d * m + 2 * K * d * m * (m + K) + 20 * (m + K) ** 3,
    // The basis and its spare (Kd×m each), W, W' and ΔW, the small Gram's eigenvectors, the scoring scratch.
    bytes: ({ d, K, m, actions }) => 8 * (2 * K * d * m + 3 * K * d + 3 * (m + K) ** 2 + actions * K * m),
    probeProjection: false,
  },
  create: (spec) => new EofdMLogB(spec),
};
