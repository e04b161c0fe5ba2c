/**
 * OL2M (Zhang et al., 2016), the first online-Newton-step logistic bandit (K = 1 only):
 * A_{t+1} = A_t + (β/2) x_t x_tᵀ, A_1 = λI; θ_{t+1} = Π^{A_{t+1}}_{‖θ‖≤S}(θ_t − A_{t+1}⁻¹∇ℓ_t(θ_t)), the
 * A_{t+1}-norm projection onto the ball; and x_t = argmax σ(θ_tᵀx)·r_1 + γ_t‖x‖_{A_t⁻¹}. The curvature
 * constant β = 1/(2(1 + e^{SD})) and the radius γ_t (their Theorem 1) are those of the authors'
 * reference code (criteo-research/logistic_bandit, logbexp/algorithms/ol2m.py). Per round O(|A_t|d²)
 * for the decision and O(d²) for the update (O(d³) in rounds whose step leaves the ball); O(d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot } from '../linalg/blas.js';
import { sigmoid } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './kit/checks.js';
import { BonusSelector, DesignMatrix } from './kit/design-matrix.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of A_t. */
const DEFAULT_REFRESH_INTERVAL = 500;

/** OL2M's curvature constant β = 1/(2(1 + e^{SD})) (ol2m.py: `self.beta = 0.5 / (1 + np.exp(param_norm_ub))`, with D = 1 there). */
export function ol2mCurvature(normBound: number, maxActionNorm: number): number {
  return 0.5 / (1 + Math.exp(normBound * maxActionNorm));
}

/**
 * γ_t² of Zhang et al. (2016), Theorem 1, as ol2m.py's update_ucb_bonus computes it:
 * 8S + λS² + (8/β + 16S/3)τ_t + (2/β)(ln det A_t − d ln λ), τ_t = ln(4 ln(t+1) t²/δ).
 */
export function ol2mRadiusSq(d: number, lambda: number, normBound: number, curvature: number, delta: number, logDetA: number, t: number): number {
  const tau = Math.log((4 * Math.log(t + 1) * t * t) / delta);
  return (
    8 * normBound +
    lambda * normBound * normBound +
    (8 / curvature + (16 * normBound) / 3) * tau +
    (2 / curvature) * (logDetA - d * Math.log(lambda))
  );
}

export class Ol2m implements Policy {
  readonly name = 'OL2M' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** β: the exp-concavity constant of the logistic loss on the ball. */
  readonly curvature: number;
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ_t */
  private readonly current: Float64Array;
  private readonly direction: Float64Array;
  private projections = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    if (spec.K !== 1) throw new RangeError(`OL2M is a binary (K = 1) policy, got K = ${spec.K}`);
    this.d = spec.d;
    this.spec = spec;
    this.curvature = ol2mCurvature(spec.normBound, spec.maxActionNorm);
    this.design = new DesignMatrix(spec.d, spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(1, spec.d, spec.reward);
    // θ and A⁻¹∇ℓ live beside A⁻¹ (the design matrix's workspace), where products over it run.
    this.current = this.design.workspace.float64(spec.d);
    this.direction = this.design.workspace.float64(spec.d);
  }

  /** β_t = γ_t² (Theorem 1) in 'theory' and 'order' (it has no hidden constants), or the constant; times beta_scale. */
  betaAt(t: number): number {
    const { beta, betaScale, d, regularization, normBound, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    return Math.max(0, ol2mRadiusSq(d, regularization, normBound, this.curvature, delta, this.design.logDeterminant, t)) * betaScale;
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt(t);
    return this.selector.select(actions, this.current, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { d, current, direction } = this;
    // ∇ℓ_t(θ_t) = (σ(θ_tᵀx) − y) x, taken before A moves.
    const g = sigmoid(dot(d, current, 0, x, 0)) - outcome;
    this.design.addOuter(this.curvature / 2, x);
    this.design.applyInverse(x, direction);
    axpy(d, -g, direction, 0, current, 0);
    if (this.design.projectOntoBall(current, this.spec.normBound)) this.projections++;
    assertFiniteState(this.name, current);
  }

  stats(): PolicyStats {
    const bytes = this.design.byteLength + this.selector.byteLength + 2 * this.current.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: this.projections, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const ol2mPolicy: PolicyDescriptor = {
  name: 'OL2M',
  summary: 'online Newton step with a UCB bonus, the first ONS logistic bandit (Zhang et al., 2016); K = 1 only',
  reference: 'Zhang et al., 2016',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit ol2m.py:81-85 (its radius; no other mode) and δ = 0.05 (scripts/generate_configs.py:21).
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 1,
  cost: {
    round: 'O(|A_t|·d² + d²)',
    memory: 'O(d²)',
    // The bonus ‖x‖_{A⁻¹} of every action, the step A⁻¹∇ℓ and the rank-one update of A⁻¹.
    flops: ({ d, actions }) => 2 * actions * d * d + 8 * d * d,
    // A, A⁻¹, the refresh workspace and the bonus scratch.
    bytes: ({ d, actions }) => 8 * (4 * d * d + actions * d + 4 * d),
    probeProjection: false,
  },
  create: (spec) => new Ol2m(spec),
};
