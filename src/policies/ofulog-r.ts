/**
 * OFULog-r (Abeille, Faury and Calauzènes, AISTATS 2021, "Instance-wise minimax-optimal algorithms for
 * logistic bandits"), K = 1 only, with the constants of the authors' reference code
 * (criteo-research/logistic_bandit at d5e8aa2, logbexp/algorithms/ofulogr.py; line numbers are that file's):
 * - θ̂_t = argmin_θ L_t(θ), L_t(θ) = Σ_{s<t} ℓ(x_sᵀθ, y_s) + (λ_t/2)‖θ‖², ℓ(z, y) = ln(1 + e^z) − yz, refitted
 *   on the whole history every round; λ_t = λ·ln(2 + n) after n ≥ 1 observations, λ before the first
 *   (lines 38, 66: theirs λ = d);
 * - the confidence set C_t = {θ : L_t(θ) − L_t(θ̂_t) ≤ β_t, ‖θ‖ ≤ S} with (update_ucb_bonus, lines 92–101)
 *   c_t = ln(1/δ) + ½ ln det H_t − (d/2) ln λ_t + ln(F_d(2λ_t)/F_d(λ_t)) (H_t the Hessian of L_t at θ̂_t,
 *   F_d the χ²_d distribution function), γ_t = min(√λ_t(½ + S) + (2/√λ_t)c_t, √λ_t·S + c_t) and
 *   β_t = (γ_t + γ_t²/λ_t)²;
 * - the optimistic plan (Alg. 2 of the paper; compute_optimistic_reward, lines 103–118):
 *   x_t = argmax_x max_{θ∈C_t} xᵀθ (σ is increasing, so this is argmax_x max_θ σ(xᵀθ)), ties to the lowest index.
 * The inner problem is convex (a linear objective over the intersection of a sub-level set of a convex
 * function and a ball) and is solved here to rounding, where theirs runs 20 COBYLA iterations from θ̂:
 * (a) if L_t(S·x/‖x‖) ≤ L_t(θ̂) + β_t the ball's point is the answer; (b) otherwise the sub-level set alone:
 * θ(s) = argmin L_t(θ) − s·xᵀθ (Newton, warm-started by the tangent θ' = ∇²L⁻¹x), with s the root of
 * √(2(L_t(θ(s)) − L̂_t)) = √(2β_t) (Newton in s, bracketed); if ‖θ(s)‖ ≤ S that is the answer; (c) otherwise
 * both constraints bind: for a ≥ 0 the same root with L_t + (a/2)(‖θ‖² − S²) in place of L_t, and a the
 * root of ‖θ_a‖ = S (Newton in a, bracketed; at such a root the KKT conditions of the original problem
 * hold with the ball's multiplier a·μ, so it is the maximiser). When the data put the sub-level set
 * outside the ball (min_{‖θ‖≤S} L_t > L_t(θ̂) + β_t: S is below ‖θ*‖), the ball is dropped for that
 * round (the round is counted). Where theirs differs and eofd does not follow: θ̂ starts at 0 (theirs:
 * a N(0, I) draw, line 40); the MLE is solved to convergence every round (theirs: five Newton steps, and
 * after 200 rounds every tenth round only, line 67); the ball is ‖θ‖ ≤ S as in the paper (theirs bounds
 * ‖θ‖ by S², line 114); and in the round after the first theirs scores every action by a N(0, 1) draw
 * (line 107, ctr = 1), here by the plan. β_t (stats) is β_t. Per round O(n·d²) per Newton step: a few
 * for the MLE, and for each action a few to a few dozen; O(nd + d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot } from '../linalg/blas.js';
import { choleskySolve } from '../linalg/cholesky.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem, requireInRange } from './kit/checks.js';
import { type LinearTerm, mleBytes, RegularizedMle } from './kit/mle.js';
import { concentrationTerm, regularizationAfter } from './kit/radius.js';
import { firstOfTies } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

const EPS = 2 ** -52;
/** Iterations of each root search at most (each converges in a few; the cap only bounds a failure). */
const ROOT_MAX_ITERATIONS = 200;

/** β_t of ofulogr.py lines 92–101 (see the header). */
export function ofulogRadius(d: number, lambdaT: number, normBound: number, delta: number, logDetH: number): number {
  const c = concentrationTerm(d, lambdaT, logDetH, delta);
  const root = Math.sqrt(lambdaT);
  const gamma = Math.min(root * (0.5 + normBound) + (2 / root) * c, root * normBound + c);
  return (gamma + (gamma * gamma) / lambdaT) ** 2;
}

/** Which case of the plan decided an action's value (counted over the run). */
export interface PlanCases {
  /** (a) the ball's point S·x/‖x‖ lies in the sub-level set. */
  ball: number;
  /** (b) the sub-level set's maximiser lies in the ball. */
  level: number;
  /** (c) both constraints bind. */
  both: number;
  /** β_t = 0: xᵀθ̂ (greedy). */
  greedy: number;
}

export class OfuLogR implements Policy {
  readonly name = 'OFULog-r' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** The history and its regularised MLE; its fits (to rounding) also solve the plan's inner problems. */
  readonly mle: RegularizedMle;
  /** θ̂_t */
  readonly current: Float64Array;
  /** ln det H_t, from the Hessian of the MLE's last Newton step (λ·I's before any data), as theirs. */
  private logDetHessian: number;
  /** The linear term −s·xᵀθ of the plan's fits (one object, reused). */
  private readonly linear: LinearTerm;
  /** λ_t of the current round. */
  private lambdaT: number;
  /** L_t(θ̂_t) */
  private lossHat = 0;
  /** β_t·beta_scale of the current round. */
  private level = 0;
  /** Whether the sub-level set meets the ball this round. */
  private feasible = true;
  readonly cases: PlanCases = { ball: 0, level: 0, both: 0, greedy: 0 };
  /** Rounds in which the sub-level set missed the ball (‖θ*‖ > S) and the ball was dropped. */
  infeasibleRounds = 0;
  private optimistic = new Float64Array(0);
  private readonly action: Float64Array;
  private readonly theta: Float64Array;
  private readonly previous: Float64Array;
  private readonly centre: Float64Array;
  private readonly tangent: Float64Array;
  private readonly other: Float64Array;
  /** The Cholesky factor of ∇²L_t(θ̂_t), computed once a round for every action's plan. */
  private readonly hatFactor: Float64Array;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    requireInRange(newtonRegularizationProblem('OFULog-r', spec));
    if (spec.K !== 1) throw new RangeError(`OFULog-r is a binary (K = 1) policy, got K = ${spec.K}`);
    const { d } = spec;
    this.d = d;
    this.spec = spec;
    this.mle = new RegularizedMle(1, d);
    this.current = new Float64Array(d);
    this.logDetHessian = d * Math.log(spec.regularization);
    this.lambdaT = spec.regularization;
    this.action = new Float64Array(d);
    this.linear = { x: this.action, s: 0 };
    this.theta = new Float64Array(d);
    this.previous = new Float64Array(d);
    this.centre = new Float64Array(d);
    this.tangent = new Float64Array(d);
    this.other = new Float64Array(d);
    this.hatFactor = new Float64Array(d * d);
  }

  /** β_t in 'theory' and 'order' (their radius has no hidden constants), or the constant; times beta_scale. */
  betaAt(): number {
    const { beta, betaScale, normBound, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    return ofulogRadius(this.d, this.lambdaT, normBound, delta, this.logDetHessian) * betaScale;
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    const { d } = this;
    this.lastBeta = this.betaAt();
    this.level = this.lastBeta;
    this.mle.factorAt(this.current, this.lambdaT, this.name);
    this.hatFactor.set(this.mle.factor);
    this.feasible = this.level > 0 ? this.meetsBall() : true;
    if (!this.feasible) this.infeasibleRounds++;
    const count = actions.count;
    if (this.optimistic.length < count) this.optimistic = new Float64Array(count);
    let best = -Infinity;
    for (let a = 0; a < count; a++) {
      this.action.set(actions.features.subarray(a * d, (a + 1) * d));
      const value = this.optimisticValue(this.action);
      this.optimistic[a] = value;
      if (value > best) best = value;
    }
    return firstOfTies(this.optimistic, count, best);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { mle, current } = this;
    mle.add(x, outcome);
    this.lambdaT = regularizationAfter(this.spec.regularization, mle.rounds);
    this.lossHat = mle.fit(current, this.lambdaT, 'rounding', this.name);
    this.logDetHessian = mle.logDetFactor();
    assertFiniteState(this.name, current);
  }

  /**
   * max {xᵀθ : L_t(θ) ≤ L̂_t + β_t, ‖θ‖ ≤ S} by the three cases of the header (the ball dropped in a
   * round whose sub-level set misses it).
   */
  optimisticValue(x: Float64Array): number {
    const { d, theta } = this;
    const S = this.spec.normBound;
    const estimate = this.current;
    const norm = Math.sqrt(dot(d, x, 0, x, 0));
    if (this.level <= 0) {
      this.cases.greedy++;
      return dot(d, x, 0, estimate, 0);
    }
    if (norm === 0) return 0;
    const c = this.lossHat + this.level;
    if (this.feasible) {
      // (a)
      for (let j = 0; j < d; j++) theta[j] = (S * x[j]) / norm;
      if (this.mle.loss(theta, this.lambdaT) <= c) {
        this.cases.ball++;
        return S * norm;
      }
    }
    // (b)
    this.centre.set(estimate);
    this.mle.factor.set(this.hatFactor);
    let s = this.levelRoot(x, 0, this.level, this.lossHat);
    const normSq = dot(d, theta, 0, theta, 0);
    if (!this.feasible || normSq <= S * S) {
      this.cases.level++;
      return dot(d, x, 0, theta, 0);
    }
    // (c) Newton on h(a) = ½(‖θ_a‖² − S²), h(0) > 0, bracketed; θ_a, s_a from levelRoot.
    this.cases.both++;
    let h = 0.5 * (normSq - S * S);
    let slope = this.normSlope(x, s, h);
    let lo = 0;
    let hi = Infinity;
    let a = 0;
    this.centre.set(estimate);
    for (let iteration = 0; iteration < ROOT_MAX_ITERATIONS; iteration++) {
      // Newton in b = 1/(λ_t + a), in which h is nearly linear (h ∝ 1/(λ_t + a) when L_t is quadratic).
      const ridge = this.lambdaT + a;
      let next = 1 / (1 / ridge + h / (slope * ridge * ridge)) - this.lambdaT;
      if (!(next > lo && next < hi)) next = hi < Infinity ? 0.5 * (lo + hi) : Math.max(2 * a, this.lambdaT);
      if (Math.abs(next - a) <= 4 * EPS * Math.max(a, next)) break;
      a = next;
      // argmin of L_t + (a/2)‖θ‖² (warm from the last), its value m0; then the level root for c + aS²/2.
      const minimum = this.mle.fit(this.centre, this.lambdaT + a, 'rounding', this.name);
      const m0 = minimum;
      const levelA = c + 0.5 * a * S * S - m0;
      if (!(levelA > 0)) {
        // The ridge pushes even the minimiser above the level: a is past the root.
        hi = a;
        h = -Infinity;
        slope = NaN;
        continue;
      }
      s = this.levelRoot(x, a, levelA, m0);
      h = 0.5 * (dot(d, theta, 0, theta, 0) - S * S);
      if (h > 0) lo = a;
      else hi = a;
      if (Math.abs(h) <= 4 * EPS * S * S || (hi < Infinity && hi - lo <= 4 * EPS * hi)) break;
      slope = this.normSlope(x, s, h);
    }
    return dot(d, x, 0, theta, 0);
  }

  /**
   * θ (this.theta) ← the maximiser of xᵀθ over {L_a(θ) ≤ m0 + level}, L_a = L_t + (a/2)‖θ‖², from its
   * minimiser (this.centre, whose Hessian factor `mle.factor` holds) of value m0: θ(s) = argmin
   * L_a − s·xᵀθ with s the root of g(s) = √(2(L_a(θ(s)) − m0)) − √(2·level) (nearly linear in s:
   * L_a(θ(s)) − m0 ≈ s²·xᵀM⁻¹x/2), by Newton's method in s bracketed by bisection. Leaves the factor of
   * M = ∇²L_a at θ in `mle.factor`, M⁻¹x in `tangent`; returns s.
   */
  private levelRoot(x: Float64Array, a: number, level: number, m0: number): number {
    const { d, theta, previous, tangent, mle, linear } = this;
    const lambda = this.lambdaT + a;
    const target = Math.sqrt(2 * level);
    tangent.set(x);
    choleskySolve(d, mle.factor, 0, d, tangent, 0);
    let s = target / Math.sqrt(Math.max(dot(d, x, 0, tangent, 0), Number.MIN_VALUE));
    let sPrevious = 0;
    previous.set(this.centre);
    let lo = 0;
    let hi = Infinity;
    for (let iteration = 0; iteration < ROOT_MAX_ITERATIONS; iteration++) {
      // Predictor along the tangent dθ/ds = M⁻¹x, then Newton's corrector.
      for (let j = 0; j < d; j++) theta[j] = previous[j] + (s - sPrevious) * tangent[j];
      linear.x = x;
      linear.s = s;
      const value = mle.fit(theta, lambda, 'rounding', this.name, linear);
      tangent.set(x);
      choleskySolve(d, mle.factor, 0, d, tangent, 0);
      const gap = Math.sqrt(2 * Math.max(0, value - m0));
      const g = gap - target;
      if (g < 0) lo = s;
      else hi = s;
      if (g === 0) break;
      // g'(s) = s·xᵀM⁻¹x/gap.
      let next = gap > 0 ? s - (g * gap) / (s * dot(d, x, 0, tangent, 0)) : 2 * s;
      if (!(next > lo && next < hi)) next = hi < Infinity ? 0.5 * (lo + hi) : 2 * s;
      if (Math.abs(next - s) <= 4 * EPS * s) break;
      previous.set(theta);
      sPrevious = s;
      s = next;
    }
    return s;
  }

  /**
   * dh/da of h(a) = ½(‖θ_a‖² − S²) along the solutions of levelRoot: with u = M⁻¹x, v = M⁻¹θ,
   * θ' = s'u − v and s' = (xᵀv − h/s)/xᵀu (from ∇L_a(θ) = s·x and L_a(θ) + (a/2)... = const).
   */
  private normSlope(x: Float64Array, s: number, h: number): number {
    const { d, theta, tangent, other } = this;
    other.set(theta);
    choleskySolve(d, this.mle.factor, 0, d, other, 0);
    const sPrime = (dot(d, x, 0, other, 0) - h / s) / dot(d, x, 0, tangent, 0);
    return sPrime * dot(d, theta, 0, tangent, 0) - dot(d, theta, 0, other, 0);
  }

  /**
   * Whether min_{‖θ‖≤S} L_t(θ) ≤ L̂_t + β_t: true when ‖θ̂‖ ≤ S; otherwise θ(ν) = argmin L_t + (ν/2)‖θ‖²
   * with ‖θ(ν)‖ = S (Newton in ν, d‖θ‖²/dν = −2θᵀM⁻¹θ, bracketed), whose L_t is compared with the level.
   */
  private meetsBall(): boolean {
    const { d, centre, other, mle } = this;
    const S = this.spec.normBound;
    const estimate = this.current;
    if (dot(d, estimate, 0, estimate, 0) <= S * S) return true;
    const c = this.lossHat + this.level;
    centre.set(estimate);
    let nu = 0;
    let lo = 0;
    let hi = Infinity;
    mle.factor.set(this.hatFactor);
    for (let iteration = 0; iteration < ROOT_MAX_ITERATIONS; iteration++) {
      const h = 0.5 * (dot(d, centre, 0, centre, 0) - S * S);
      if (h > 0) lo = nu;
      else hi = nu;
      other.set(centre);
      choleskySolve(d, mle.factor, 0, d, other, 0);
      let next = nu + h / dot(d, centre, 0, other, 0);
      if (!(next > lo && next < hi)) next = hi < Infinity ? 0.5 * (lo + hi) : Math.max(2 * nu, 1);
      if (h === 0 || Math.abs(next - nu) <= 4 * EPS * next) break;
      nu = next;
      mle.fit(centre, this.lambdaT + nu, 'rounding', this.name);
    }
    // L_t at the constrained minimiser (λ_t, not λ_t + ν).
    return mle.loss(centre, this.lambdaT) <= c;
  }

  /** max_{θ∈C_t} xᵀθ of each action of the last selection. */
  get lastValues(): Float64Array {
    return this.optimistic;
  }

  stats(): PolicyStats {
    const bytes = this.mle.byteLength + this.optimistic.byteLength + 8 * this.theta.byteLength + this.hatFactor.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const ofulogRPolicy: PolicyDescriptor = {
  name: 'OFULog-r',
  summary: 'optimism over the likelihood-ratio confidence set {L(θ) − L(θ̂) ≤ β, ‖θ‖ ≤ S}, solved exactly per action (Abeille et al., 2021); K = 1 only',
  reference: 'Abeille et al., 2021',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit ofulogr.py:92-101 (their β_t); δ = 0.05 (scripts/generate_configs.py:21).
  // Their λ = d (lines 38, 66) depends on d and is not a default here: λ is the config's.
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 5,
  cost: {
    round: 'O(|A_t|·t·d²) per Newton step (a few to a few dozen per action) + O(t·d²) for the MLE',
    memory: 'O(td + d²)',
    // About eight Newton steps (Hessian over t rounds, Cholesky) per action, three for the MLE.
    flops: ({ d, actions, t }) => (8 * actions + 3) * (t * d * d + 4 * t * d + d ** 3 / 3),
    // The MLE (its history and Newton system), the estimate's Hessian factor, a few vectors and the actions' values.
    bytes: ({ d, actions, t }) => mleBytes(1, d, t) + 8 * (d * d + 12 * d + actions),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('OFULog-r', spec),
  create: (spec) => new OfuLogR(spec),
};
