/**
 * GLOC (Jun, Bhargava, Nowak and Willett, NeurIPS 2017: Generalized Linear Online-to-confidence-set
 * Conversion) with the online Newton step as its online learner (K = 1 only), as the authors' harness
 * plays it (criteo-research/logistic_bandit at d5e8aa2, logbexp/algorithms/gloc.py; line numbers are
 * that file's):
 * - the online learner (ONS): g_t = (μ(θ_tᵀx_t) − y_t)x_t (line 61), V_{t+1} = V_t + x_tx_tᵀ, V_1 = λI
 *   (lines 37, 81–84), θ_{t+1} = Π_{‖θ‖≤S}^{V_{t+1}}(θ_t − V_{t+1}⁻¹g_t/κ) (lines 69–70), κ = μ̇(S·D) the
 *   smallest slope of μ on the ball (line 36; Jun et al.'s κ, the inverse of the κ of Faury et al.);
 * - its data-dependent regret bound B_{t+1} = B_t + ‖g_t‖²_{V_{t+1}⁻¹}/(2κ), B_1 = 2κS²λ (lines 42, 62);
 * - the conversion: z_{t+1} = z_t + (θ_tᵀx_t)x_t, θ̂_{t+1} = V_{t+1}⁻¹z_{t+1}, the centre of the
 *   confidence set (lines 65–66);
 * - x_t = argmax μ(θ̂_tᵀx)·r_1 + √β_t‖x‖_{V_t⁻¹}, with β_t = 1 + (4/κ)B_t +
 *   8(S/κ)²·ln((2/δ)√(1 + 2B_t/κ + 4(S/κ)⁴/δ²)) (lines 91–95, which cite the paper's Theorem 1; only the
 *   paper's abstract could be read here, so its own constants are not checked against it).
 * Two deliberate differences from gloc.py: θ_{t+1} is the V_{t+1}-norm projection onto the ball, taken
 * only when the step leaves it (the online Newton step's own projection; gloc.py rescales θ to norm S
 * every round, line 70); and the decision is centred at θ̂_t, the conversion's centre (gloc.py computes
 * θ̂_t, line 66, but scores with the ONS iterate θ_t, line 102). λ is the config's (gloc.py: λ = d,
 * line 35). Per round O(|A_t|d²) for the decision and O(d²) for the update (O(d³) in rounds whose
 * step leaves the ball); O(d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot, gemv } from '../linalg/blas.js';
import { logisticSlope, sigmoid } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, requireInRange, type RangeProblem } from './kit/checks.js';
import { BonusSelector, DesignMatrix } from './kit/design-matrix.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;

/**
 * β_t as gloc.py's update_ucb_bonus computes it (lines 91–94):
 * 1 + (4/κ)B + 8(S/κ)²·ln((2/δ)·√(1 + 2B/κ + 4(S/κ)⁴/δ²)), B the online learner's regret bound.
 */
export function glocRadiusSq(curvature: number, normBound: number, delta: number, regretBound: number): number {
  const ratio = normBound / curvature;
  const inner = 1 + (2 * regretBound) / curvature + (4 * ratio ** 4) / (delta * delta);
  return 1 + (4 / curvature) * regretBound + 8 * ratio * ratio * Math.log((2 * Math.sqrt(inner)) / delta);
}

/**
 * Why GLOC cannot compute with `spec`, or null: μ̇(S·D) underflows for large S·D (the step divides by
 * it), β_1's (S/κ)⁴ overflows long before, and its 4(S/κ)⁴/δ² does too when δ² underflows.
 */
export function glocRangeProblem(spec: PolicySpec): RangeProblem | null {
  const curvature = logisticSlope(spec.normBound * spec.maxActionNorm);
  const SD = spec.normBound * spec.maxActionNorm;
  if (!(curvature > 0)) return { field: 'S', detail: `GLOC needs κ = μ̇(S·D) > 0 in double precision; S·D = ${SD} gives κ = ${curvature}: lower params.S` };
  const regretBound = 2 * curvature * spec.normBound * spec.normBound * spec.regularization;
  const numeric = typeof spec.beta === 'number';
  const beta = (numeric ? (spec.beta as number) : glocRadiusSq(curvature, spec.normBound, spec.delta, regretBound)) * spec.betaScale;
  if (Number.isFinite(beta)) return null;
  // 4(S/κ)⁴/δ²: with δ² = 0 the fault is δ's, else S's (or, numeric, β's and its scale's).
  if (numeric) return { field: 'beta', detail: `GLOC needs a finite β in double precision; beta · beta_scale = ${beta}: lower params.beta or params.beta_scale` };
  if (spec.delta * spec.delta === 0) {
    return { field: 'delta', detail: `GLOC needs a finite β in double precision; its 4(S/κ)⁴/δ² overflows for δ = ${spec.delta} (δ² underflows to 0): give params.delta ≥ 1e-150, or a numeric beta` };
  }
  return { field: 'S', detail: `GLOC needs a finite β in double precision; its (S/κ)⁴ overflows: S·D = ${SD} gives κ = ${curvature}, β_1 = ${beta}: lower params.S or give a numeric beta` };
}

export class Gloc implements Policy {
  readonly name = 'GLOC' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** κ: the smallest slope of μ on the ball. */
  readonly curvature: number;
  /** V_t = λI + Σ_{s<t} x_sx_sᵀ (the online Newton step's matrix and the confidence set's). */
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ_t: the online learner's iterate. */
  readonly online: Float64Array;
  /** θ̂_t = V_t⁻¹z_t: the centre of the confidence set. */
  readonly centre: Float64Array;
  /** z_t = Σ_{s<t} (θ_sᵀx_s) x_s. */
  private readonly targets: Float64Array;
  /** V_{t+1}⁻¹x_t */
  private readonly direction: Float64Array;
  /** B_t: the online learner's data-dependent regret bound. */
  regretBound: number;
  private projections = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    if (spec.K !== 1) throw new RangeError(`GLOC is a binary (K = 1) policy, got K = ${spec.K}`);
    this.d = spec.d;
    this.spec = spec;
    // κ = μ̇(S·D): the smallest slope of the logistic link on the ball (gloc.py line 36).
    this.curvature = logisticSlope(spec.normBound * spec.maxActionNorm);
    this.regretBound = 2 * this.curvature * spec.normBound * spec.normBound * spec.regularization;
    requireInRange(glocRangeProblem(spec));
    this.design = new DesignMatrix(spec.d, spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(1, spec.d, spec.reward);
    // The vectors products over V⁻¹ read and write live beside it (the design matrix's workspace).
    const space = this.design.workspace;
    this.online = space.float64(spec.d);
    this.centre = space.float64(spec.d);
    this.targets = space.float64(spec.d);
    this.direction = space.float64(spec.d);
  }

  /** β_t of gloc.py (it has no hidden constants) in 'theory' and 'order', or the constant; times beta_scale. */
  betaAt(): number {
    const { beta, betaScale, normBound, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    return Math.max(0, glocRadiusSq(this.curvature, normBound, delta, this.regretBound)) * betaScale;
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt();
    return this.selector.select(actions, this.centre, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { d, online, centre, targets, direction, design } = this;
    const prediction = dot(d, online, 0, x, 0);
    // g_t = (μ(θ_tᵀx_t) − y_t) x_t, at the iterate that predicted round t.
    const residual = sigmoid(prediction) - outcome;
    design.addOuter(1, x);
    design.applyInverse(x, direction);
    // ‖g_t‖²_{V_{t+1}⁻¹} = residual²·xᵀV_{t+1}⁻¹x.
    this.regretBound += (residual * residual * dot(d, x, 0, direction, 0)) / (2 * this.curvature);
    axpy(d, prediction, x, 0, targets, 0);
    gemv(d, d, design.inverse, 0, d, targets, 0, centre, 0);
    axpy(d, -residual / this.curvature, direction, 0, online, 0);
    if (design.projectOntoBall(online, this.spec.normBound)) this.projections++;
    assertFiniteState(this.name, online);
  }

  stats(): PolicyStats {
    const bytes = this.design.byteLength + this.selector.byteLength + 4 * this.online.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: this.projections, beta: this.lastBeta, delta: NaN };
  }

  /** θ̂_t, the centre the decisions use. */
  estimate(): Float64Array {
    return this.centre;
  }
}

export const glocPolicy: PolicyDescriptor = {
  name: 'GLOC',
  summary: 'online-to-confidence-set conversion of an online Newton step (Jun et al., 2017); K = 1 only',
  reference: 'Jun et al., 2017',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit gloc.py:91-95 (its radius; no other mode) and δ = 0.05 (scripts/generate_configs.py:21).
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 1,
  cost: {
    round: 'O(|A_t|·d² + d²), O(d³) when a step leaves the ball',
    memory: 'O(d²)',
    // The bonus ‖x‖_{V⁻¹} of every action; the rank-one update of V, V⁻¹, V⁻¹x and θ̂ = V⁻¹z.
    flops: ({ d, actions }) => 2 * actions * d * d + 10 * d * d,
    // V, V⁻¹, the refresh workspace and the bonus scratch.
    bytes: ({ d, actions }) => 8 * (4 * d * d + actions * (d + 2) + 6 * d),
    probeProjection: false,
  },
  rangeProblem: glocRangeProblem,
  create: (spec) => new Gloc(spec),
};
