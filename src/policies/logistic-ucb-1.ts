/**
 * Logistic-UCB-1 (Faury, Abeille, Calauzènes and Fercoq, ICML 2020, "Improved optimistic algorithms
 * for logistic bandits", Alg. 1), K = 1 only, as the authors' reference code plays it
 * (criteo-research/logistic_bandit at d5e8aa2, logbexp/algorithms/logistic_ucb_1.py; line numbers are
 * that file's):
 * - θ̂_t = argmin_θ L_t(θ), L_t(θ) = Σ_{s<t} ℓ(x_sᵀθ, y_s) + (λ_t/2)‖θ‖², ℓ(z, y) = ln(1 + e^z) − yz: the
 *   regularised maximum-likelihood estimate (paper, eq. (5)), refitted on the whole history every round;
 * - λ_t = λ·ln(2 + n) after n ≥ 1 observations, λ before the first (lines 45, 77: theirs λ = d, i.e.
 *   λ_t = d·ln(2 + n); the paper's Theorem 2 takes λ_t ∝ d ln t);
 * - H_t = Σ_{s<t} μ̇(x_sᵀθ̂_t) x_s x_sᵀ + λ_t I (lines 85–86), V_t = λI + Σ_{s<t} x_s x_sᵀ (lines 46, 99: a
 *   fixed λ, where the paper writes κλ_t);
 * - the radius (update_ucb_bonus, lines 108–118, "a slight refinement" of the paper's Theorem 1 and
 *   Lemma 2): with c_t = ln(1/δ) + ½ ln det H_t − (d/2) ln λ_t + ln(F_d(2λ_t)/F_d(λ_t)), F_d the χ²_d
 *   distribution function, γ_t = min(√λ_t/2 + (2/√λ_t)c_t, 1 + c_t) and
 *   ρ_t = ¼√κ·min(√(1+2S)·γ_t, γ_t + γ_t²/√λ_t) + √λ_t·S, κ = 1/μ̇(S·D) (line 52);
 * - x_t = argmax σ(θ̂_tᵀx)·r_1 + ρ_t‖x‖_{V_t⁻¹} (compute_optimistic_reward, lines 121–128), ties to the lowest index.
 * Where theirs differs and eofd does not follow: θ̂ starts at 0 (theirs: a N(0, I) draw, line 49, which
 * decides round 1); the MLE is solved to convergence every round by damped Newton (theirs: five undamped
 * Newton steps, lines 81–87, and after 200 rounds only every fifth round, line 78); the paper's
 * projection θ_t^(1) = argmin_{‖θ‖≤S} ‖g_t(θ) − g_t(θ̂_t)‖_{V_t⁻¹} (non-convex) is not taken, as theirs
 * does not take it (rounds with ‖θ̂_t‖ > S are counted). Ln det H_t comes from the Hessian of the last
 * Newton step, as theirs. β_t (stats) is ρ_t². Per round O(n·d²) per Newton step (a few, warm-started),
 * O(d³) for ln det H_t and O(|A_t|·d²) for the decision; O(nd + d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot } from '../linalg/blas.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem, requireInRange } from './kit/checks.js';
import { BonusSelector, DesignMatrix } from './kit/design-matrix.js';
import { mleBytes, RegularizedMle } from './kit/mle.js';
import { concentrationTerm, logisticKappa, regularizationAfter } from './kit/radius.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;

/** ρ_t of logistic_ucb_1.py lines 109–118 (see the header). */
export function logisticUcb1Radius(d: number, lambdaT: number, normBound: number, maxActionNorm: number, delta: number, logDetH: number): number {
  const c = concentrationTerm(d, lambdaT, logDetH, delta);
  const root = Math.sqrt(lambdaT);
  const gamma = Math.min(root / 2 + (2 / root) * c, 1 + c);
  const kappa = logisticKappa(normBound, maxActionNorm);
  return 0.25 * Math.sqrt(kappa) * Math.min(Math.sqrt(1 + 2 * normBound) * gamma, gamma + (gamma * gamma) / root) + root * normBound;
}

export class LogisticUcb1 implements Policy {
  readonly name = 'Logistic-UCB-1' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** V_t = λI + Σ x_s x_sᵀ. */
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** The history and its regularised MLE (refitted every round, warm-started at θ̂_{t−1}, to rounding). */
  readonly mle: RegularizedMle;
  /** θ̂_t */
  readonly current: Float64Array;
  /** ln det H_t, from the Hessian of the last Newton step (λ·I's before any data), as theirs. */
  logDetHessian: number;
  /** Rounds whose estimate θ̂_t lies outside the ball ‖θ‖ ≤ S (the paper projects there; the authors' code does not). */
  outsideBall = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    requireInRange(newtonRegularizationProblem('Logistic-UCB-1', spec));
    if (spec.K !== 1) throw new RangeError(`Logistic-UCB-1 is a binary (K = 1) policy, got K = ${spec.K}`);
    this.d = spec.d;
    this.spec = spec;
    this.design = new DesignMatrix(spec.d, spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(1, spec.d, spec.reward);
    this.mle = new RegularizedMle(1, spec.d, this.design.workspace);
    this.current = this.design.workspace.float64(spec.d);
    this.logDetHessian = spec.d * Math.log(spec.regularization);
  }

  /** β_t = ρ_t² in 'theory' and 'order' (their radius has no hidden constants), or the constant; times beta_scale. */
  betaAt(): number {
    const { beta, betaScale, regularization, normBound, maxActionNorm, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    const lambdaT = regularizationAfter(regularization, this.mle.rounds);
    const radius = logisticUcb1Radius(this.d, lambdaT, normBound, maxActionNorm, delta, this.logDetHessian);
    return radius * radius * betaScale;
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt();
    return this.selector.select(actions, this.current, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { mle, current } = this;
    this.design.addOuter(1, x);
    mle.add(x, outcome);
    mle.fit(current, regularizationAfter(this.spec.regularization, mle.rounds), 'rounding', this.name);
    this.logDetHessian = mle.logDetFactor();
    if (dot(this.d, current, 0, current, 0) > this.spec.normBound ** 2) this.outsideBall++;
    assertFiniteState(this.name, current);
  }

  stats(): PolicyStats {
    const bytes = this.design.byteLength + this.selector.byteLength + this.mle.byteLength + this.current.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const logisticUcb1Policy: PolicyDescriptor = {
  name: 'Logistic-UCB-1',
  summary: 'regularised MLE refitted every round + a κ-scaled bonus on V_t (Faury et al., 2020); K = 1 only',
  reference: 'Faury et al., 2020',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit logistic_ucb_1.py:108-118 (their radius); δ = 0.05 (scripts/generate_configs.py:21).
  // Their λ = d (lines 45, 77) depends on d and is not a default here: λ is the config's.
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 3,
  cost: {
    round: 'O(t·d² + d³) per Newton step (a few, warm-started) + O(|A_t|·d²)',
    memory: 'O(td + d²)',
    // Three Newton steps over the t past rounds (Hessian, Cholesky factor), the bonus ‖x‖_{V⁻¹} and V's update.
    flops: ({ d, actions, t }) => 3 * (t * d * d + 4 * t * d + d ** 3 / 3) + 2 * actions * (d * d + d) + 4 * d * d,
    // The MLE (its history and Newton system), V_t, V_t⁻¹ and the selector's scratch (d×d each), θ̂.
    bytes: ({ d, t }) => mleBytes(1, d, t) + 8 * (4 * d * d + d),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('Logistic-UCB-1', spec),
  create: (spec) => new LogisticUcb1(spec),
};
