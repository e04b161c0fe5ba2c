/**
 * SOFUL (Kuzborskij, Cella and Cesa-Bianchi, 2019, "Efficient linear bandits through matrix
 * sketching"): OFUL on a linear model of the observed reward, E[r_y | x] ≈ θᵀx with one θ ∈ R^d for
 * any K, its Gram matrix replaced by a frequent-directions sketch: V_t = λ_t I + SᵀS, S of m ≤ d rows
 * (here the K = 1 block sketch of Alg. 1: rank-one updates xxᵀ, which is classical FD).
 * θ_t = V_t⁻¹ Σ_{s<t} r_{y_s} x_s, and the played action maximises θ_tᵀx + √β_t ‖x‖_{V_t⁻¹}
 * (the K = 1 rule of `OptimisticSelector`). What sketching gives without the logistic model.
 *
 * √β_t is OFUL's radius (Abbasi-Yadkori, Pál and Szepesvári, 2011, Thm. 2) with the sketch's
 * log-determinant: σ√(m ln(1 + (t−1)D²/(mλ)) + d ln(1 + ρ/λ) + 2 ln(1/δ)) + √λ S, where σ = max_k r_k/2
 * (rewards in [0, max r] are σ-sub-Gaussian) and S bounds ‖θ*‖ (params.S). With m ≥ d, ρ = 0 and this
 * is OFUL's radius exactly. A number in `beta` is a constant β instead; beta_scale multiplies either.
 *
 * Per round O(|A_t|·dm) for the scores and O(dm²) for the sketch; memory O(dm).
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, gemv } from '../linalg/blas.js';
import { ActionCurvature, FrequentDirections } from '../sketch/frequent-directions.js';
import { assertFiniteActions, assertOutcome } from './kit/checks.js';
import { OptimisticSelector } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS, SKETCH_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

export class Soful implements Policy {
  readonly name = 'SOFUL' as const;
  /** The d-dimensional FD sketch of Σ x xᵀ (m capped at d). */
  readonly sketch: FrequentDirections;
  /** θ_t = V_t⁻¹ b_t. */
  readonly theta: Float64Array;
  /** b_t = Σ_{s<t} r_{y_s} x_s. */
  readonly responses: Float64Array;
  private readonly K: number;
  private readonly d: number;
  /** r_1..r_K */
  private readonly reward: Float64Array;
  /** λ (the base; the sketch's λ_t is `curvatureRegularization`). */
  private readonly regularization: number;
  private readonly spec: PolicySpec;
  private readonly selector: OptimisticSelector;
  private readonly actionCurvature: ActionCurvature;
  private readonly curvatureOfAction: (index: number, out: Float64Array) => void;
  /** F = [1]: the rank-one update xxᵀ in Alg. 1's terms. */
  private readonly unitFactor = Float64Array.of(1);
  /** Vᵀb and the Woodbury coefficients (length: the sketch's capacity). */
  private coordinates: Float64Array;
  private woodbury: Float64Array;
  private lastBeta = NaN;
  private readonly empty = new Float64Array(0);

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const { K, d } = spec;
    this.K = K;
    this.d = d;
    this.spec = spec;
    this.reward = spec.reward;
    this.regularization = spec.regularization;
    const adaptive = spec.adaptiveSketch === undefined ? null : { deltaMax: spec.adaptiveSketch.deltaMax, regularization: spec.regularization };
    this.sketch = new FrequentDirections(d, 1, spec.sketchSize, spec.sketchVariant === 'rfd', adaptive);
    // θ, b and the products over V they enter live beside V (the sketch's workspace).
    const space = this.sketch.workspace;
    this.theta = space.float64(d);
    this.responses = space.float64(d);
    // The K = 1 rule of eq. (16) on θ (it reads no reward vector).
    this.selector = new OptimisticSelector(1, d, Float64Array.of(1), space);
    this.actionCurvature = new ActionCurvature(this.sketch);
    this.curvatureOfAction = (index, out) => this.actionCurvature.write(index, out);
    this.coordinates = space.float64(this.sketch.capacity);
    this.woodbury = new Float64Array(this.sketch.capacity);
  }

  /** m_t: the sketch size in this round. */
  sketchSize(): number {
    return this.sketch.sketchSize;
  }

  /** λ_t of V_t = λ_t I + SᵀS: λ for FD, λ + ρ_{1:t}/2 for robust FD (params.sketch: rfd). */
  get curvatureRegularization(): number {
    return this.sketch.regularization(this.regularization);
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    this.actionCurvature.prepare(actions.features, actions.count, this.curvatureRegularization);
    this.lastBeta = this.confidenceRadius(t);
    return this.selector.select(actions, this.theta, this.lastBeta, this.curvatureOfAction);
  }

  /** β_t (the square of the radius in the module comment), or the constant β; times beta_scale. */
  confidenceRadius(t: number): number {
    const { beta, betaScale } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    return sofulRadius(this.spec, this.d, this.sketch.sketchSize, this.sketch.sketchError, t) ** 2 * betaScale;
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
    const { d, sketch } = this;
    const r = outcome === 0 ? 0 : this.reward[outcome - 1];
    axpy(d, r, x, 0, this.responses, 0);
    sketch.update(x, this.unitFactor);
    if (this.woodbury.length < sketch.capacity) {
      this.coordinates = sketch.workspace.float64(sketch.capacity);
      this.woodbury = new Float64Array(sketch.capacity);
    }
    // θ = V⁻¹b = b/λ_t − Σ_k c_k (v_kᵀb) v_k (Woodbury, `woodburyCoefficients`).
    const lambda = this.curvatureRegularization;
    const rank = sketch.rank;
    gemv(rank, d, sketch.basis, 0, d, this.responses, 0, this.coordinates, 0);
    sketch.woodburyCoefficients(lambda, this.woodbury);
    for (let j = 0; j < d; j++) this.theta[j] = this.responses[j] / lambda;
    for (let k = 0; k < rank; k++) axpy(d, -this.woodbury[k] * this.coordinates[k], sketch.basis, k * d, this.theta, 0);
  }

  stats(): PolicyStats {
    const bytes =
      this.sketch.stateBytes + this.theta.byteLength + this.responses.byteLength + this.coordinates.byteLength + this.woodbury.byteLength + this.actionCurvature.byteLength;
    return {
      stateBytes: bytes,
      sketchError: this.sketch.sketchError,
      projections: 0,
      beta: this.lastBeta,
      delta: 1 + this.sketch.sketchError / this.regularization,
    };
  }

  /** Empty: θ ∈ R^d models the reward, not the logistic W (so no parameter error is reported). */
  estimate(): Float64Array {
    return this.empty;
  }
}

/**
 * SOFUL's √β_t for round t (t − 1 observations): OFUL's radius with the sketched log-determinant
 * bound ln det(V_t)/det(λI) ≤ m ln(1 + (t−1)D²/(mλ)) + d ln(1 + ρ/λ) (module comment). beta_rank
 * 'full' puts rank d and ρ = 0 in it (OFUL's radius).
 */
export function sofulRadius(spec: PolicySpec, d: number, sketchSize: number, sketchError: number, t: number): number {
  const { regularization: lambda, maxActionNorm: D, normBound: S, delta } = spec;
  const full = spec.betaRank === 'full';
  const m = full ? d : sketchSize;
  const rho = full ? 0 : sketchError;
  const sigma = Math.max(...spec.reward) / 2;
  const logDet = m * Math.log(1 + ((t - 1) * D * D) / (m * lambda)) + d * Math.log(1 + rho / lambda);
  return sigma * Math.sqrt(logDet + 2 * Math.log(1 / delta)) + Math.sqrt(lambda) * S;
}

export const sofulPolicy: PolicyDescriptor = {
  name: 'SOFUL',
  summary: 'sketched OFUL (Kuzborskij et al., 2019): linear UCB on the observed reward with a frequent-directions Gram matrix',
  reference: 'Kuzborskij, Cella and Cesa-Bianchi, 2019',
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS, SKETCH_KEYS),
  sketchDimension: (d) => d,
  needsRandomStream: false,
  costRank: 0,
  cost: {
    round: 'O(|A_t|·dm + dm²)',
    memory: 'O(dm)',
    // Scores (P(x) per action), the arrowhead eigenproblem and new basis of FD, θ.
    flops: ({ d, m, actions }) => 2 * actions * d * Math.min(m, d) + 2 * d * Math.min(m, d) * (Math.min(m, d) + 1) + 10 * Math.min(m, d) ** 2,
    // The basis and its spare (d×m each), θ, b, the scoring scratch.
    bytes: ({ d, m, actions }) => 8 * (2 * d * Math.min(m, d) + 4 * d + actions * Math.min(m, d)),
    probeProjection: false,
  },
  create: (spec) => new Soful(spec),
};
