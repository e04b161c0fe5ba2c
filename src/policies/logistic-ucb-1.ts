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
import { dot, gemv, gemvT, gram } from '../linalg/blas.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { logisticLoss, logisticSlope, sigmoid } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem, requireInRange } from './checks.js';
import { BonusSelector, DesignMatrix } from './design-matrix.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;
const EPS = 2 ** -52;
/** Newton iterations per refit at most (warm-started, it converges in a few). */
const NEWTON_MAX_ITERATIONS = 100;
/** Newton decrement, relative to 1 + |L|, below which full steps are taken (quadratic convergence). */
const RESOLVABLE_DECREASE = 1e-10;
/** First history capacity (rounds); doubled when full. */
const INITIAL_CAPACITY = 64;
/** Terms of the incomplete-gamma series and continued fraction at most. */
const GAMMA_MAX_TERMS = 100_000;
const TINY = 1e-300;

/** λ_t after n observations: λ·ln(2 + n), and λ itself before the first (logistic_ucb_1.py lines 45, 77; ofulogr.py lines 38, 66). */
export function regularizationAfter(lambda: number, n: number): number {
  return n === 0 ? lambda : lambda * Math.log(2 + n);
}

/** ln Γ(d/2) for an integer d ≥ 1, as a sum of logarithms (Γ(k) = (k−1)!, Γ(k + ½) = √π·Π_{j<k}(j + ½)). */
function logGammaHalf(d: number): number {
  let total = d % 2 === 0 ? 0 : 0.5 * Math.log(Math.PI);
  for (let x = d % 2 === 0 ? 1 : 0.5; x < d / 2 - 0.25; x += 1) total += Math.log(x);
  return total;
}

/**
 * ln F_d(x), F_d the χ² distribution function with d degrees of freedom: ln P(d/2, x/2), P the regularised
 * lower incomplete gamma function (Numerical Recipes' series below u = a + 1, Lentz's continued fraction
 * of 1 − P above).
 */
export function logChiSquareCdf(d: number, x: number): number {
  if (!(x > 0)) return -Infinity;
  const a = d / 2;
  const u = x / 2;
  const lnPrefix = a * Math.log(u) - u - logGammaHalf(d);
  if (u < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < GAMMA_MAX_TERMS; n++) {
      term *= u / (a + n);
      sum += term;
      if (term <= sum * EPS) break;
    }
    return lnPrefix + Math.log(sum);
  }
  let b = u + 1 - a;
  let c = 1 / TINY;
  let dd = 1 / b;
  let h = dd;
  for (let i = 1; i < GAMMA_MAX_TERMS; i++) {
    const an = -i * (i - a);
    b += 2;
    dd = an * dd + b;
    if (Math.abs(dd) < TINY) dd = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    dd = 1 / dd;
    const delta = dd * c;
    h *= delta;
    if (Math.abs(delta - 1) <= EPS) break;
  }
  return Math.log1p(-Math.exp(lnPrefix) * h);
}

/**
 * c_t = ln(1/δ) + ½ ln det H_t − (d/2) ln λ_t + ln(F_d(2λ_t)/F_d(λ_t)): the part both radii of the authors'
 * code share (logistic_ucb_1.py lines 110–114, ofulogr.py lines 94–98).
 */
export function concentrationTerm(d: number, lambdaT: number, logDetH: number, delta: number): number {
  return Math.log(1 / delta) + 0.5 * logDetH - 0.5 * d * Math.log(lambdaT) + (logChiSquareCdf(d, 2 * lambdaT) - logChiSquareCdf(d, lambdaT));
}

/** ρ_t of logistic_ucb_1.py lines 109–118 (see the header). */
export function logisticUcb1Radius(d: number, lambdaT: number, normBound: number, maxActionNorm: number, delta: number, logDetH: number): number {
  const c = concentrationTerm(d, lambdaT, logDetH, delta);
  const root = Math.sqrt(lambdaT);
  const gamma = Math.min(root / 2 + (2 / root) * c, 1 + c);
  const kappa = 1 / logisticSlope(normBound * maxActionNorm);
  return 0.25 * Math.sqrt(kappa) * Math.min(Math.sqrt(1 + 2 * normBound) * gamma, gamma + (gamma * gamma) / root) + root * normBound;
}

/**
 * The binary history and its regularised maximum-likelihood estimate θ̂ = argmin L(θ),
 * L(θ) = Σ_s ℓ(x_sᵀθ, y_s) + (λ/2)‖θ‖², by damped Newton from the previous estimate; ln det of the
 * Hessian of the last Newton step. Shared by Logistic-UCB-1 and OFULog-r.
 */
export class LogisticFit {
  readonly d: number;
  /** x_1..x_n, row-major (n×d). */
  rows: Float64Array;
  outcomes: Float64Array;
  /** n: observations so far. */
  count = 0;
  /** θ̂ */
  readonly estimate: Float64Array;
  /** ln det ∇²L at the last Newton iterate (λ·I's before any data). */
  logDetHessian: number;
  /** The λ of the last fit. */
  regularization: number;
  /** Newton iterations of the last fit. */
  lastIterations = 0;
  /** Per observation: z_s, then scratch. */
  private scores: Float64Array;
  private weights: Float64Array;
  private scaled: Float64Array;
  private capacity = 0;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  private readonly trial: Float64Array;
  /** d×d: a Hessian, then its Cholesky factor. */
  readonly factor: Float64Array;

  constructor(d: number, lambda: number) {
    this.d = d;
    this.estimate = new Float64Array(d);
    this.gradient = new Float64Array(d);
    this.step = new Float64Array(d);
    this.trial = new Float64Array(d);
    this.factor = new Float64Array(d * d);
    this.regularization = lambda;
    this.logDetHessian = d * Math.log(lambda);
    this.rows = new Float64Array(0);
    this.outcomes = new Float64Array(0);
    this.scores = new Float64Array(0);
    this.weights = new Float64Array(0);
    this.scaled = new Float64Array(0);
    this.grow(INITIAL_CAPACITY);
  }

  add(x: Float64Array, y: number): void {
    if (this.count === this.capacity) this.grow(2 * this.capacity);
    this.rows.set(x.subarray(0, this.d), this.count * this.d);
    this.outcomes[this.count] = y;
    this.count++;
  }

  private grow(capacity: number): void {
    const { d } = this;
    const rows = new Float64Array(capacity * d);
    rows.set(this.rows.subarray(0, this.count * d));
    const outcomes = new Float64Array(capacity);
    outcomes.set(this.outcomes.subarray(0, this.count));
    this.rows = rows;
    this.outcomes = outcomes;
    this.scores = new Float64Array(capacity);
    this.weights = new Float64Array(capacity);
    this.scaled = new Float64Array(capacity * d);
    this.capacity = capacity;
  }

  /** L(θ) with regularisation λ (z_s = x_sᵀθ left in `scores`). */
  loss(theta: Float64Array, lambda: number): number {
    const { d, count: n, scores } = this;
    gemv(n, d, this.rows, 0, d, theta, 0, scores, 0);
    let total = 0.5 * lambda * dot(d, theta, 0, theta, 0);
    for (let s = 0; s < n; s++) total += logisticLoss(scores[s], this.outcomes[s]);
    return total;
  }

  /** out = ∇L(θ) = Σ_s (σ(z_s) − y_s) x_s + λθ, from the z_s of the last `loss` at θ. */
  gradientAt(theta: Float64Array, lambda: number, out: Float64Array): void {
    const { d, count: n, scores, weights } = this;
    for (let s = 0; s < n; s++) weights[s] = sigmoid(scores[s]) - this.outcomes[s];
    gemvT(n, d, this.rows, 0, d, weights, 0, out, 0);
    for (let j = 0; j < d; j++) out[j] += lambda * theta[j];
  }

  /** out (d×d) = ∇²L + shift·I = Σ_s μ̇(z_s) x_s x_sᵀ + (λ + shift)I, from the z_s of the last `loss`. */
  hessianAt(lambda: number, out: Float64Array): void {
    const { d, count: n, scores, scaled, rows } = this;
    for (let s = 0; s < n; s++) {
      const root = Math.sqrt(logisticSlope(scores[s]));
      for (let j = 0; j < d; j++) scaled[s * d + j] = root * rows[s * d + j];
    }
    gram(n, d, scaled, 0, d, out, 0, d);
    for (let j = 0; j < d; j++) out[j * d + j] += lambda;
  }

  /** `factor` ← the Cholesky factor of ∇²L(θ) with regularisation λ. */
  hessianFactorAt(theta: Float64Array, lambda: number, name: string): void {
    this.loss(theta, lambda);
    this.hessianAt(lambda, this.factor);
    if (!cholesky(this.d, this.factor, 0, this.d)) throw new Error(`${name}: the Hessian of the likelihood is not positive definite`);
  }

  /** θ̂ = argmin L with regularisation λ, by damped Newton from the current estimate, to rounding. */
  fit(lambda: number, name: string): number {
    this.regularization = lambda;
    const value = this.minimize(this.estimate, lambda, null, 0, name);
    let logDet = 0;
    for (let j = 0; j < this.d; j++) logDet += Math.log(this.factor[j * this.d + j]);
    this.logDetHessian = 2 * logDet;
    return value;
  }

  /**
   * In place, θ ← argmin L(θ) − s·xᵀθ (L with regularisation λ; no linear term when x is null), by
   * damped Newton from θ to rounding: Armijo backtracking while the Newton decrement is resolvable, then
   * full steps while they shrink. Returns L(θ) (without the linear term); `factor` holds the Cholesky
   * factor of ∇²L at the last iterate but one (as the authors' code keeps its Hessian).
   */
  minimize(theta: Float64Array, lambda: number, x: Float64Array | null, s: number, name: string): number {
    const { d, gradient, step, trial, factor } = this;
    const objective = (point: Float64Array) => this.loss(point, lambda) - (x === null ? 0 : s * dot(d, x, 0, point, 0));
    let value = objective(theta);
    let previousStep = Infinity;
    let iteration = 0;
    for (; iteration < NEWTON_MAX_ITERATIONS; iteration++) {
      this.gradientAt(theta, lambda, gradient);
      if (x !== null) for (let j = 0; j < d; j++) gradient[j] -= s * x[j];
      this.hessianAt(lambda, factor);
      if (!cholesky(d, factor, 0, d)) throw new Error(`${name}: the Hessian of the likelihood is not positive definite`);
      step.set(gradient);
      choleskySolve(d, factor, 0, d, step, 0);
      const decrease = dot(d, gradient, 0, step, 0);
      const size = Math.sqrt(dot(d, step, 0, step, 0));
      if (decrease <= RESOLVABLE_DECREASE * (1 + Math.abs(value))) {
        // Near the minimiser: full Newton steps while they shrink (quadratic convergence), then stop.
        for (let j = 0; j < d; j++) theta[j] -= step[j];
        const scale = 1 + Math.sqrt(dot(d, theta, 0, theta, 0));
        if (size <= 4 * EPS * scale || size >= 0.5 * previousStep) break;
        previousStep = size;
        value = objective(theta);
        continue;
      }
      // Armijo backtracking.
      let t = 1;
      let next = value;
      for (let halving = 0; halving < 60; halving++) {
        for (let j = 0; j < d; j++) trial[j] = theta[j] - t * step[j];
        next = objective(trial);
        if (next <= value - 1e-4 * t * decrease) break;
        t *= 0.5;
      }
      theta.set(trial);
      value = next;
    }
    this.lastIterations = iteration + 1;
    return this.loss(theta, lambda);
  }

  get byteLength(): number {
    return (
      this.rows.byteLength +
      this.outcomes.byteLength +
      this.scores.byteLength +
      this.weights.byteLength +
      this.scaled.byteLength +
      this.factor.byteLength +
      4 * this.estimate.byteLength
    );
  }
}

export class LogisticUcb1 implements Policy {
  readonly name = 'Logistic-UCB-1' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** V_t = λI + Σ x_s x_sᵀ. */
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  readonly fitter: LogisticFit;
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
    this.fitter = new LogisticFit(spec.d, spec.regularization);
  }

  /** β_t = ρ_t² in 'theory' and 'order' (their radius has no hidden constants), or the constant; times beta_scale. */
  betaAt(): number {
    const { beta, betaScale, regularization, normBound, maxActionNorm, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    const lambdaT = regularizationAfter(regularization, this.fitter.count);
    const radius = logisticUcb1Radius(this.d, lambdaT, normBound, maxActionNorm, delta, this.fitter.logDetHessian);
    return radius * radius * betaScale;
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt();
    return this.selector.select(actions, this.fitter.estimate, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { fitter } = this;
    this.design.addOuter(1, x);
    fitter.add(x, outcome);
    fitter.fit(regularizationAfter(this.spec.regularization, fitter.count), this.name);
    const theta = fitter.estimate;
    if (dot(this.d, theta, 0, theta, 0) > this.spec.normBound ** 2) this.outsideBall++;
    assertFiniteState(this.name, theta);
  }

  stats(): PolicyStats {
    const bytes = this.design.byteLength + this.selector.byteLength + this.fitter.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.fitter.estimate;
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
    // The history (t·(d + 1)) with its scratch (t·(d + 2)), the Hessian, V_t and V_t⁻¹.
    bytes: ({ d, t }) => 8 * (t * (2 * d + 3) + 5 * d * d),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('Logistic-UCB-1', spec),
  create: (spec) => new LogisticUcb1(spec),
};
