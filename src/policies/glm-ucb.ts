/**
 * GLM-UCB (Filippi, Cappé, Garivier and Szepesvári, NeurIPS 2010) for the logistic link (K = 1 only),
 * as the authors' harness plays it (criteo-research/logistic_bandit at d5e8aa2,
 * logbexp/algorithms/glm_ucb.py; line numbers are that file's):
 * - θ̂_t = argmin_θ Σ_{s<t} ℓ(θᵀx_s, y_s) + (λ/2)‖θ‖², the ℓ2-regularised maximum-likelihood estimate,
 *   ℓ the logistic loss (its gradient and Hessian, lines 83–88);
 * - V_t = λI + Σ_{s<t} x_sx_sᵀ (lines 48, 113);
 * - x_t = argmax μ(θ̂_tᵀx)·r_1 + ρ(t)‖x‖_{V_t⁻¹} (lines 128–135), with
 *   ρ(t) = (κ/4)·√(2 ln(1/δ) + ln det V_t − d ln λ) + √λ·S and κ = 1/μ̇(S·D), the inverse of the
 *   smallest slope of μ on the ball (lines 54, 118–126; 1/4 is the logistic link's largest slope). The
 *   paper's own text could not be read here, so these constants are the code's, not checked against it.
 * Three of glm_ucb.py's quirks are switched off: it runs 5 undamped Newton steps a round (line 82), here
 *   the estimate is solved (kit/mle.ts: warm-started Newton steps, Armijo backtracking, Cholesky) to
 *   ‖∇‖ ≤ 1e-12·(1 + Σ_s‖x_s‖); it refits only every 5th round after round 200 (line 79, lazy_update_fr
 *   = 5), here every round; and it starts from θ̂ and θ̃ drawn from N(0, I) (lines 50–51), here θ̂_1 = 0,
 *   the minimiser of the regularised loss of no data. The paper's projection step (θ̃_t, a non-convex
 *   problem; lines 94–101, off by default there, do_proj = False) is not taken: θ̃_t = θ̂_t. λ is the
 *   config's (glm_ucb.py: λ = d, line 47). Per round O(t·d² + d³) per Newton step (a few, warm-started)
 *   and O(|A_t|d²) for the decision; O(td + d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem, requireInRange } from './kit/checks.js';
import { BonusSelector, DesignMatrix } from './kit/design-matrix.js';
import { mleBytes, RegularizedMle } from './kit/mle.js';
import { logisticKappa } from './kit/radius.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;

/**
 * ρ(t) as glm_ucb.py's update_ucb_bonus computes it (lines 122–125):
 * (κ/4)·√(2 ln(1/δ) + ln det V_t − d ln λ) + √λ·S.
 */
export function glmUcbRadius(kappa: number, d: number, lambda: number, normBound: number, delta: number, logDetV: number): number {
  return 0.25 * kappa * Math.sqrt(Math.max(0, 2 * Math.log(1 / delta) + logDetV - d * Math.log(lambda))) + Math.sqrt(lambda) * normBound;
}

export class GlmUcb implements Policy {
  readonly name = 'GLM-UCB' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** λ */
  private readonly regularization: number;
  /** κ = 1/μ̇(S·D) */
  readonly kappa: number;
  /** V_t */
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ̂_t */
  readonly current: Float64Array;
  /** The history and its regularised MLE (refitted every round, warm-started at θ̂_{t−1}). */
  private readonly mle: RegularizedMle;
  private lastBeta = NaN;
  /** Newton iterations of the most recent refit. */
  lastIterations = 0;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    requireInRange(newtonRegularizationProblem('GLM-UCB', spec));
    if (spec.K !== 1) throw new RangeError(`GLM-UCB is a binary (K = 1) policy, got K = ${spec.K}`);
    const { d } = spec;
    this.d = d;
    this.spec = spec;
    this.regularization = spec.regularization;
    this.kappa = logisticKappa(spec.normBound, spec.maxActionNorm); // glm_ucb.py line 54
    this.design = new DesignMatrix(d, spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(1, d, spec.reward);
    // κ = 1/μ̇(S·D) grows as e^{SD}: for large S·D the radius is infinite and every decision a tie.
    if (!Number.isFinite(this.betaAt())) {
      throw new RangeError(
        `GLM-UCB needs a finite radius in double precision; S·D = ${spec.normBound * spec.maxActionNorm} gives κ = ${this.kappa}, β_1 = ${this.betaAt()}: lower params.S or give a numeric beta`,
      );
    }
    this.current = this.design.workspace.float64(d);
    this.mle = new RegularizedMle(1, d, this.design.workspace);
  }

  /** β_t = ρ(t)² (glm_ucb.py's radius, which has no hidden constants) in 'theory' and 'order', or the constant; times beta_scale. */
  betaAt(): number {
    const { beta, betaScale, d, normBound, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    const radius = glmUcbRadius(this.kappa, d, this.regularization, normBound, delta, this.design.logDeterminant);
    return radius * radius * betaScale;
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt();
    return this.selector.select(actions, this.current, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    this.mle.add(x, outcome);
    this.design.addOuter(1, x);
    this.mle.fit(this.current, this.regularization, 'gradient', this.name);
    this.lastIterations = this.mle.lastIterations;
    assertFiniteState(this.name, this.current);
  }

  stats(): PolicyStats {
    const bytes = this.design.byteLength + this.selector.byteLength + this.current.byteLength + this.mle.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const glmUcbPolicy: PolicyDescriptor = {
  name: 'GLM-UCB',
  summary: 'regularised maximum likelihood over the whole history + UCB bonus (Filippi et al., 2010); K = 1 only',
  reference: 'Filippi et al., 2010',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit glm_ucb.py:54, :118-126 (its radius; no other mode) and δ = 0.05 (scripts/generate_configs.py:21).
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 3,
  cost: {
    round: 'O(t·d² + d³) per Newton step (a few, warm-started), O(|A_t|·d²) for the decision',
    memory: 'O(td + d²)',
    // Two Newton steps (the Hessian's lower triangle over the t past rounds, its Cholesky factor) and the bonus ‖x‖_{V⁻¹}.
    flops: ({ d, actions, t }) => 2 * (t * d * d + (d * d * d) / 3) + 2 * actions * d * d,
    // The MLE (its history and Newton system), V_t, V_t⁻¹ and the selector's scratch (d×d each), θ̂.
    bytes: ({ d, t }) => mleBytes(1, d, t) + 8 * (4 * d * d + d),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('GLM-UCB', spec),
  create: (spec) => new GlmUcb(spec),
};
