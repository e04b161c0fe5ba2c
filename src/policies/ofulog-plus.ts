/**
 * OFULog+ (Lee, Yun and Jun, AISTATS 2024, "Improved regret bounds of (multinomial) logistic bandits via
 * regret-to-confidence-set conversion", Section 4), binary (K = 1). With L_t(θ) = Σ_{s<t} ℓ(x_sᵀθ, y_s)
 * the unregularised log-loss, ℓ(z, y) = ln(1 + e^z) − yz, and Θ = {‖θ‖ ≤ S}:
 * - θ̂_t = argmin_{θ∈Θ} L_t(θ) (the constrained MLE);
 * - the likelihood-ratio confidence set C_t = {θ ∈ Θ : L_t(θ) − L_t(θ̂_t) ≤ β_t²}, convex (R2CS);
 * - x_t = argmax_{x∈A_t} max_{θ∈C_t} xᵀθ (σ is increasing, so this is the optimistic reward's argmax).
 * β_t² = 10d ln(e + S(t−1)/(2d)) + 2(e − 2 + S) ln(1/δ), with t − 1 the observations so far: the
 * authors' code (nick-jhlee/logistic_bandit, logbexp/algorithms/ofulogplus.py lines 79–82,
 * `update_ucb_bonus`, which reads len(self.rewards)); the paper's own statement could not be read here
 * (only its abstract). `beta` 'theory' and 'order' both give this radius (it has no hidden constants); a
 * number is a constant β_t²; beta_scale multiplies either. δ defaults to theirs, 0.05
 * (scripts/generate_configs.py line 22, `-fl`); their experiments set S = ‖θ*‖ + 1 (line 56), which a
 * config gives as params.S.
 *
 * Both optimisations are solved to machine precision where the authors' code runs SLSQP to tol 1e-5
 * (generate_configs.py `-tol`; lines 65–67 and 96 of ofulogplus.py). The maximum of xᵀθ over C_t is
 * S‖x‖ exactly when S x/‖x‖ lies in C_t (checked first; in particular when t = 1). Otherwise the
 * convex programme min −xᵀθ s.t. L_t(θ) ≤ c, ½(‖θ‖² − S²) ≤ 0 (c = L_t(θ̂_t) + β_t²), and the MLE
 * min L_t(θ) s.t. ½(‖θ‖² − S²) ≤ 0, are each solved by Newton's method on the KKT equations of the
 * active constraints guessed, p∇L + a∇L + bθ = q, L = c, ½‖θ‖² = ½S² (p = 1, q = 0 for the MLE;
 * p = 0, q = x for a value), whose answer is accepted only when it is a KKT point (a > 0, b ≥ 0, the
 * other constraint satisfied): for a convex programme that certifies the optimum. This polish starts
 * from a guess: for the MLE θ̂_{t−1} (the ball first when θ̂_{t−1} is on the sphere, with
 * b = −θᵀ∇L/‖θ‖²); for a value the maximiser over the quadratic model of C_t, θ̂ + H⁻¹x/a with
 * H = ∇²L_t(θ̂_t) and a = ‖x‖_{H⁻¹}/√(2β_t²), and that point scaled onto the sphere with the ball
 * active (on a d = 6 trace these certified 91% of the values). Failing that, a log-barrier method
 * (Newton centring, backtracking that keeps the iterate strictly feasible; Boyd and Vandenberghe 2004,
 * Alg. 11.1; the barrier Hessian factored without its two outer products, which enter by Woodbury)
 * runs from τ = 0.1·S‖x‖ (0.1 for the MLE), τ ÷ 16 a stage, and the polish is tried again from its
 * points at the 1st, 2nd, 4th, 8th, … stage. If none certifies before τ = 1e-14, the barrier's point is
 * taken and counted (`uncertified`: a degenerate MLE, where only L_t(θ̂_t) matters). A polish iterate
 * with ‖θ‖ > 10S is taken as diverging.
 *
 * Per round O(|A_t|·N·(td² + d³)) (N Newton steps, about 5–25 an action; measured 3.6 s of CPU for
 * 1,000 rounds at d = 6, S = 4, 20 actions a round) and memory O(td): the history is kept, as the
 * method refits on all of it.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot, gemv } from '../linalg/blas.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { logisticLoss } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, requireInRange, type RangeProblem } from './kit/checks.js';
import { firstOfTies } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** β_t² of ofulogplus.py `update_ucb_bonus` (lines 79–82) after `observations` = t − 1 rounds. */
export function ofulogPlusRadiusSq(d: number, normBound: number, delta: number, observations: number): number {
  return 10 * d * Math.log(Math.E + (normBound * observations) / (2 * d)) + 2 * (Math.E - 2 + normBound) * Math.log(1 / delta);
}

/** β_t² (the authors' radius after t − 1 rounds, or the constant), times beta_scale. */
export function ofulogPlusConfidence(spec: Pick<PolicySpec, 'd' | 'normBound' | 'delta' | 'beta' | 'betaScale'>, t: number): number {
  const { beta, betaScale } = spec;
  if (typeof beta === 'number') return beta * betaScale;
  return ofulogPlusRadiusSq(spec.d, spec.normBound, spec.delta, t - 1) * betaScale;
}

/**
 * The smallest β_t² relative to L_t(θ̂_t) ≤ (t − 1)·ln 2 (θ = 0's loss) that the cap L(θ̂) + β_t²
 * resolves: C_t needs points strictly inside it for the barrier method, and a cap within a few ulps
 * of L(θ̂) (2.2·10⁻¹⁶ relative) has none (measured: β = 10⁻³⁰ fails in round 2). 10⁻¹⁰ leaves 10⁶ ulps.
 */
export const MIN_RELATIVE_RADIUS = 1e-10;

/** Why OFULog+ cannot compute with `spec` (a radius below what its cap resolves over the horizon), or null. */
export function ofulogPlusRangeProblem(spec: PolicySpec): RangeProblem | null {
  // β_t² grows with t: round 1's is the smallest; L(θ̂) is largest at the horizon.
  const radius = ofulogPlusConfidence(spec, 1);
  const floor = MIN_RELATIVE_RADIUS * Math.max(1, spec.horizon ?? 1) * Math.LN2;
  if (radius >= floor) return null;
  const numeric = typeof spec.beta === 'number';
  return {
    field: numeric ? 'beta' : 'beta_scale',
    detail:
      `OFULog+ needs β_t² ≥ ${floor.toExponential(1)} (${MIN_RELATIVE_RADIUS}·T·ln 2, the rounding of its loss over T rounds), got ${radius.toExponential(3)} ` +
      `(${numeric ? 'params.beta' : 'its radius'} × params.beta_scale): its confidence set L_t(θ) ≤ L_t(θ̂) + β_t² has no interior in double precision; raise ${numeric ? 'params.beta or ' : ''}params.beta_scale`,
  };
}

/** Barrier schedule: τ_0 (times S‖x‖ for an optimistic value), the factor between stages, the τ below which the polish is tried, and the uncertified end. */
const BARRIER_START = 0.1;
const BARRIER_FACTOR = 16;
const BARRIER_POLISH = 1e-1;
const BARRIER_END = 1e-14;
/** Newton centring stops when the decrement λ²/2 falls below this (absolute, in objective units). */
const CENTRING_TOLERANCE = 1e-10;
const MAX_NEWTON = 100;
const MAX_POLISH = 12;
/** KKT residuals relative to the size of their terms that count as zero. */
const POLISH_TOLERANCE = 1e-13;
/** How far a multiplier may be negative, or an inactive constraint violated (relative), and still certify. */
const CERTIFY_TOLERANCE = 1e-10;
/** Interior start: a point on or near the sphere is pulled in to this fraction of S. */
const INTERIOR = 1 - 1e-3;

/** min pL(θ) − qᵀθ over {‖θ‖ ≤ S}, with L(θ) ≤ c when `cap` is finite. */
interface Programme {
  lossWeight: number;
  linear: Float64Array | null;
  cap: number;
}

export class OfulogPlus implements Policy {
  readonly name = 'OFULog+' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** S */
  private readonly normBound: number;
  /** x_1..x_n as rows (capacity doubles). */
  private history: Float64Array;
  /** y_1..y_n ∈ {0, 1}. */
  private outcomes: Float64Array;
  /** x_sᵀθ of the point last evaluated. */
  private margins: Float64Array;
  private observations = 0;
  /** θ̂_t */
  readonly thetaHat: Float64Array;
  /** L_t(θ̂_t) */
  lossHat = 0;
  /** Rounds whose MLE lies on the sphere ‖θ‖ = S. */
  private projections = 0;
  /** Programmes no active set certified (the barrier's point at τ = 1e-14 was taken). */
  uncertified = 0;
  private lastBeta = NaN;
  /** The round's optimistic values max_{θ∈C_t} xᵀθ. */
  private optimistic = new Float64Array(0);
  // Newton workspaces.
  private readonly point: Float64Array;
  private readonly trial: Float64Array;
  private readonly gradient: Float64Array;
  private readonly lossGradient: Float64Array;
  private readonly hessian: Float64Array;
  private readonly step: Float64Array;
  private readonly kkt: Float64Array;
  private readonly rhs: Float64Array;
  private readonly direction: Float64Array;
  private readonly other: Float64Array;
  /** The Cholesky factor of ∇²L(θ̂) for this round's starting points, when it is positive definite. */
  private readonly modelFactor: Float64Array;
  private modelReady = false;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    if (spec.K !== 1) throw new RangeError(`OFULog+ is a binary (K = 1) policy, got K = ${spec.K}`);
    requireInRange(ofulogPlusRangeProblem(spec));
    const d = spec.d;
    this.d = d;
    this.spec = spec;
    this.normBound = spec.normBound;
    this.history = new Float64Array(64 * d);
    this.outcomes = new Float64Array(64);
    this.margins = new Float64Array(64);
    this.thetaHat = new Float64Array(d);
    this.point = new Float64Array(d);
    this.trial = new Float64Array(d);
    this.gradient = new Float64Array(d);
    this.lossGradient = new Float64Array(d);
    this.hessian = new Float64Array(d * d);
    this.step = new Float64Array(d);
    this.kkt = new Float64Array((d + 2) * (d + 2));
    this.rhs = new Float64Array(d + 2);
    this.direction = new Float64Array(d);
    this.other = new Float64Array(d);
    this.modelFactor = new Float64Array(d * d);
  }

  /** β_t² (authors' radius, or the constant), times beta_scale. */
  confidenceRadius(t: number): number {
    return ofulogPlusConfidence(this.spec, t);
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    const { d } = this;
    const count = actions.count;
    if (this.optimistic.length < count) this.optimistic = new Float64Array(count);
    this.lastBeta = this.confidenceRadius(t);
    const cap = this.lossHat + this.lastBeta;
    // ∇²L(θ̂) for the polish's starting points (none while it is singular, or with a radius of 0).
    this.derivatives(this.thetaHat);
    this.modelFactor.set(this.hessian);
    this.modelReady = this.lastBeta > 0 && this.observations > 0 && cholesky(d, this.modelFactor, 0, d);
    let best = -Infinity;
    for (let a = 0; a < count; a++) {
      const value = this.optimisticValue(actions.features.subarray(a * d, (a + 1) * d), cap);
      this.optimistic[a] = value;
      if (value > best) best = value;
    }
    return firstOfTies(this.optimistic, count, best);
  }

  /** max xᵀθ over C_t = {‖θ‖ ≤ S, L_t(θ) ≤ cap}. */
  optimisticValue(x: Float64Array, cap: number): number {
    const { d, normBound: S } = this;
    const xNorm = Math.sqrt(dot(d, x, 0, x, 0));
    if (xNorm === 0) return 0;
    // The ball's maximiser S x/‖x‖, when C_t contains it.
    for (let j = 0; j < d; j++) this.trial[j] = (S * x[j]) / xNorm;
    if (this.loss(this.trial) <= cap) return S * xNorm;
    const programme: Programme = { lossWeight: 0, linear: x, cap };
    // First the polish alone from the maximiser over the quadratic model of C_t,
    // {½(θ − θ̂)ᵀ∇²L(θ̂)(θ − θ̂) ≤ β²}: θ̂ + H⁻¹x/a with a = ‖x‖_{H⁻¹}/√(2β²) (x = a∇L there).
    if (this.modelReady) {
      const w = this.other;
      w.set(x);
      choleskySolve(d, this.modelFactor, 0, d, w, 0);
      const a = Math.sqrt(dot(d, x, 0, w, 0) / (2 * (cap - this.lossHat)));
      for (let j = 0; j < d; j++) this.point[j] = this.thetaHat[j] + w[j] / a;
      if (this.polishFrom(programme, this.point, false, a)) return dot(d, x, 0, this.point, 0);
      for (let j = 0; j < d; j++) this.point[j] = this.thetaHat[j] + w[j] / a;
      const norm = Math.sqrt(dot(d, this.point, 0, this.point, 0));
      if (norm > S) {
        for (let j = 0; j < d; j++) this.point[j] *= S / norm;
        if (this.polishFrom(programme, this.point, true, a, 0)) return dot(d, x, 0, this.point, 0);
      }
    }
    // A strictly feasible start: θ̂ pulled inside the ball, as far as L stays below the cap.
    let shrink = Math.min(1, (INTERIOR * S) / Math.max(Math.sqrt(dot(d, this.thetaHat, 0, this.thetaHat, 0)), Number.MIN_VALUE));
    for (let j = 0; j < d; j++) this.point[j] = shrink * this.thetaHat[j];
    for (let tries = 0; !(this.loss(this.point) < cap); tries++) {
      if (tries > 60) throw new Error(`${this.name}: no strictly feasible point near θ̂ (L(θ̂) = ${this.lossHat}, cap ${cap})`);
      shrink = 1 - (1 - shrink) / 8;
      for (let j = 0; j < d; j++) this.point[j] = shrink * this.thetaHat[j];
    }
    this.solve(programme, this.point);
    return dot(d, x, 0, this.point, 0);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { d } = this;
    const n = this.observations;
    if ((n + 1) * d > this.history.length) {
      const history = new Float64Array(2 * this.history.length);
      history.set(this.history);
      this.history = history;
      const outcomes = new Float64Array(2 * this.outcomes.length);
      outcomes.set(this.outcomes);
      this.outcomes = outcomes;
      this.margins = new Float64Array(this.outcomes.length);
    }
    for (let j = 0; j < d; j++) this.history[n * d + j] = x[j];
    this.outcomes[n] = outcome;
    this.observations = n + 1;
    // θ̂_{t+1}: Newton on the KKT equations from θ̂_t first (no constraint, then the sphere), else barrier + polish.
    const mle: Programme = { lossWeight: 1, linear: null, cap: Infinity };
    // On the sphere the ball is tried first, with b from the stationarity ∇L + bθ = 0 in least squares.
    const S = this.normBound;
    const normSq = dot(d, this.thetaHat, 0, this.thetaHat, 0);
    const onSphere = normSq >= S * S * (1 - 1e-9);
    let certified = false;
    for (const ballActive of onSphere ? [true, false] : [false, true]) {
      this.point.set(this.thetaHat);
      let b = 0;
      if (ballActive && normSq > 0) {
        this.derivatives(this.thetaHat);
        b = Math.max(0, -dot(d, this.thetaHat, 0, this.lossGradient, 0) / normSq);
      }
      certified = this.polishFrom(mle, this.point, ballActive, 0, b);
      if (certified) break;
    }
    if (!certified) {
      const shrink = Math.min(1, (INTERIOR * this.normBound) / Math.max(Math.sqrt(dot(d, this.thetaHat, 0, this.thetaHat, 0)), Number.MIN_VALUE));
      for (let j = 0; j < d; j++) this.point[j] = shrink * this.thetaHat[j];
      this.solve(mle, this.point);
    }
    this.thetaHat.set(this.point);
    this.lossHat = this.loss(this.thetaHat);
    if (dot(d, this.thetaHat, 0, this.thetaHat, 0) >= S * S * (1 - 1e-12)) this.projections++;
    assertFiniteState(this.name, this.thetaHat);
  }

  /**
   * Solves `programme` from the strictly feasible `theta` (overwritten with the solution): barrier
   * stages to BARRIER_POLISH, then the polish with the ball inactive and active; if neither certifies,
   * the barrier on to BARRIER_END.
   */
  private solve(programme: Programme, theta: Float64Array): void {
    const { d, normBound: S } = this;
    const start = this.direction;
    const scale = programme.linear === null ? 1 : S * Math.sqrt(dot(d, programme.linear, 0, programme.linear, 0));
    // Polish attempts at the 1st, 2nd, 4th, 8th, … stage from BARRIER_POLISH on (a programme that no
    // active set certifies, a degenerate MLE, then costs a few attempts, not one a stage).
    let stage = 0;
    for (let tau = BARRIER_START * scale; tau >= BARRIER_END * scale; tau /= BARRIER_FACTOR) {
      this.centre(programme, theta, tau);
      if (tau > BARRIER_POLISH * scale) continue;
      stage++;
      if ((stage & (stage - 1)) !== 0) continue;
      // The active set guessed first: the constraint whose slack is the smaller share of its scale.
      const multipliers = this.barrierMultipliers(programme, theta, tau);
      const ballShare = (S * S - dot(d, theta, 0, theta, 0)) / (S * S);
      const lossShare = Number.isFinite(programme.cap) ? (programme.cap - this.loss(theta)) / Math.max(1, Math.abs(programme.cap - this.lossHat)) : Infinity;
      const ballFirst = ballShare < lossShare;
      start.set(theta);
      if (this.polishFrom(programme, theta, ballFirst, multipliers.loss, multipliers.ball)) return;
      theta.set(start);
      if (this.polishFrom(programme, theta, !ballFirst, multipliers.loss, multipliers.ball)) return;
      theta.set(start);
    }
    for (let j = 0; j < d; j++) if (!Number.isFinite(theta[j])) throw new Error(`${this.name}: the barrier method diverged`);
    this.uncertified++;
  }

  /** The barrier's multiplier estimates a = τ/(c − L), b = 2τ/(S² − ‖θ‖²) at a centred point. */
  private barrierMultipliers(programme: Programme, theta: Float64Array, tau: number): { loss: number; ball: number } {
    const S = this.normBound;
    const ball = (2 * tau) / (S * S - dot(this.d, theta, 0, theta, 0));
    const loss = Number.isFinite(programme.cap) ? tau / (programme.cap - this.loss(theta)) : 0;
    return { loss, ball };
  }

  /** φ_τ(θ) = pL − qᵀθ − τ ln(c − L) − τ ln(S² − ‖θ‖²); Infinity outside the interior. */
  private barrierValue(programme: Programme, theta: Float64Array, tau: number): number {
    const { d, normBound: S } = this;
    const ballSlack = S * S - dot(d, theta, 0, theta, 0);
    if (!(ballSlack > 0)) return Infinity;
    const L = this.loss(theta);
    let value = programme.lossWeight * L - tau * Math.log(ballSlack);
    if (programme.linear !== null) value -= dot(d, programme.linear, 0, theta, 0);
    if (Number.isFinite(programme.cap)) {
      const slack = programme.cap - L;
      if (!(slack > 0)) return Infinity;
      value -= tau * Math.log(slack);
    }
    return value;
  }

  /** Newton centring of φ_τ from `theta` (kept strictly feasible), in place. */
  private centre(programme: Programme, theta: Float64Array, tau: number): void {
    const { d, normBound: S } = this;
    const g = this.gradient;
    const H = this.hessian;
    const capped = Number.isFinite(programme.cap);
    for (let iteration = 0; iteration < MAX_NEWTON; iteration++) {
      const L = this.derivatives(theta);
      const ballSlack = S * S - dot(d, theta, 0, theta, 0);
      const lossSlack = capped ? programme.cap - L : Infinity;
      const weight = programme.lossWeight + (capped ? tau / lossSlack : 0);
      const ballWeight = (2 * tau) / ballSlack;
      const outer = capped ? tau / (lossSlack * lossSlack) : 0;
      const ballOuter = (4 * tau) / (ballSlack * ballSlack);
      const gL = this.lossGradient;
      // ∇²φ = B + u uᵀ + v vᵀ with B = w∇²L + (2τ/s_B)I ⪰ (2τ/s_B)I, u = √(τ/s_L²)∇L and
      // v = √(4τ/s_B²)θ: B is factored and the two rank-one terms enter by Woodbury (a 2×2 system), so
      // neither barrier's outer product, however large near the boundary, can spoil the factor.
      for (let i = 0; i < d; i++) {
        g[i] = weight * gL[i] + ballWeight * theta[i] - (programme.linear === null ? 0 : programme.linear[i]);
        for (let j = 0; j <= i; j++) H[i * d + j] = weight * H[i * d + j] + (i === j ? ballWeight : 0);
      }
      if (!cholesky(d, H, 0, d)) throw new Error(`${this.name}: the barrier Hessian is not positive definite (τ = ${tau})`);
      const step = this.step;
      for (let i = 0; i < d; i++) step[i] = -g[i];
      choleskySolve(d, H, 0, d, step, 0);
      const u = this.trial;
      const v = this.other;
      const rootOuter = Math.sqrt(outer);
      const rootBall = Math.sqrt(ballOuter);
      for (let i = 0; i < d; i++) {
        u[i] = rootOuter * gL[i];
        v[i] = rootBall * theta[i];
      }
      // Uᵀ(B⁻¹(−g)) before U is overwritten by B⁻¹U.
      const cu = rootOuter * dot(d, gL, 0, step, 0);
      const cv = rootBall * dot(d, theta, 0, step, 0);
      choleskySolve(d, H, 0, d, u, 0);
      choleskySolve(d, H, 0, d, v, 0);
      // (I + UᵀB⁻¹U) c = UᵀB⁻¹(−g); step = B⁻¹(−g) − B⁻¹U c.
      const m11 = 1 + rootOuter * dot(d, gL, 0, u, 0);
      const m12 = rootOuter * dot(d, gL, 0, v, 0);
      const m22 = 1 + rootBall * dot(d, theta, 0, v, 0);
      const det = m11 * m22 - m12 * m12;
      const c1 = (m22 * cu - m12 * cv) / det;
      const c2 = (m11 * cv - m12 * cu) / det;
      for (let i = 0; i < d; i++) step[i] -= c1 * u[i] + c2 * v[i];
      const slope = dot(d, g, 0, step, 0);
      if (-slope / 2 <= CENTRING_TOLERANCE) return;
      const current = this.barrierValue(programme, theta, tau);
      let s = 1;
      let accepted = false;
      for (let halvings = 0; halvings < 80; halvings++, s /= 2) {
        for (let j = 0; j < d; j++) this.trial[j] = theta[j] + s * step[j];
        const value = this.barrierValue(programme, this.trial, tau);
        if (value <= current + 0.25 * s * slope) {
          accepted = true;
          break;
        }
      }
      if (!accepted) return;
      theta.set(this.trial);
    }
  }

  /**
   * Newton's method on the KKT equations of `programme` with the loss constraint active (when capped)
   * and the ball active or not, from `theta` and the multiplier guesses; true, with `theta` the
   * solution, when it converges to a KKT point (a > 0, b ≥ 0, the inactive constraint satisfied).
   */
  private polishFrom(programme: Programme, theta: Float64Array, ballActive: boolean, lossMultiplier: number, ballMultiplier = 0): boolean {
    const { d, normBound: S } = this;
    const capped = Number.isFinite(programme.cap);
    const n = d + (capped ? 1 : 0) + (ballActive ? 1 : 0);
    const J = this.kkt;
    const r = this.rhs;
    const H = this.hessian;
    const gL = this.lossGradient;
    const q = programme.linear;
    let a = capped ? lossMultiplier : 0;
    let b = ballActive ? ballMultiplier : 0;
    const p = programme.lossWeight;
    const size = this.observations;
    let converged = false;
    for (let iteration = 0; iteration < MAX_POLISH; iteration++) {
      const L = this.derivatives(theta);
      let scaleTheta = Number.MIN_VALUE;
      let residualTheta = 0;
      for (let i = 0; i < d; i++) {
        const qi = q === null ? 0 : q[i];
        r[i] = (p + a) * gL[i] + b * theta[i] - qi;
        residualTheta = Math.max(residualTheta, Math.abs(r[i]));
        scaleTheta = Math.max(scaleTheta, Math.abs(qi), Math.abs(b * theta[i]));
      }
      scaleTheta += Math.abs(p + a) * (size * this.spec.maxActionNorm + 1);
      let k = d;
      let residualLoss = 0;
      if (capped) {
        r[k++] = L - programme.cap;
        residualLoss = Math.abs(L - programme.cap) / Math.max(1, Math.abs(programme.cap));
      }
      const thetaSq = dot(d, theta, 0, theta, 0);
      let residualBall = 0;
      if (ballActive) {
        r[k++] = 0.5 * (thetaSq - S * S);
        residualBall = Math.abs(thetaSq - S * S) / (S * S);
      }
      if (residualTheta <= POLISH_TOLERANCE * scaleTheta && residualLoss <= POLISH_TOLERANCE && residualBall <= POLISH_TOLERANCE) {
        converged = true;
        break;
      }
      // J = [[(p+a)∇²L + bI, ∇L, θ], [∇Lᵀ, 0, 0], [θᵀ, 0, 0]] (the active columns).
      J.fill(0, 0, n * n);
      for (let i = 0; i < d; i++) {
        for (let j = 0; j <= i; j++) {
          const v = (p + a) * H[i * d + j] + (i === j ? b : 0);
          J[i * n + j] = v;
          J[j * n + i] = v;
        }
      }
      k = d;
      if (capped) {
        for (let i = 0; i < d; i++) J[i * n + k] = J[k * n + i] = gL[i];
        k++;
      }
      if (ballActive) {
        for (let i = 0; i < d; i++) J[i * n + k] = J[k * n + i] = theta[i];
        k++;
      }
      for (let i = 0; i < n; i++) r[i] = -r[i];
      if (!solveDense(n, J, r)) return false;
      for (let i = 0; i < d; i++) theta[i] += r[i];
      k = d;
      if (capped) a += r[k++];
      if (ballActive) b += r[k++];
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      // KKT points lie in the ball: an iterate far outside it is diverging.
      if (!(dot(d, theta, 0, theta, 0) <= 100 * S * S)) return false;
    }
    if (!converged) return false;
    if (capped && !(a > 0)) return false;
    if (ballActive && b < -CERTIFY_TOLERANCE * (Math.abs(p + a) + 1)) return false;
    if (!ballActive && dot(d, theta, 0, theta, 0) > S * S * (1 + CERTIFY_TOLERANCE)) return false;
    return true;
  }

  /** L(θ) = Σ_s ℓ(x_sᵀθ, y_s), with the margins kept. O(nd). */
  private loss(theta: Float64Array): number {
    const n = this.observations;
    if (n === 0) return 0;
    gemv(n, this.d, this.history, 0, this.d, theta, 0, this.margins, 0);
    let sum = 0;
    for (let s = 0; s < n; s++) sum += logisticLoss(this.margins[s], this.outcomes[s]);
    return sum;
  }

  /** L(θ), ∇L into `lossGradient` and ∇²L (lower triangle) into `hessian`, in one pass. O(nd²). */
  private derivatives(theta: Float64Array): number {
    const { d } = this;
    const n = this.observations;
    const g = this.lossGradient;
    const H = this.hessian;
    g.fill(0);
    H.fill(0);
    if (n === 0) return 0;
    const X = this.history;
    const z = this.margins;
    gemv(n, d, X, 0, d, theta, 0, z, 0);
    let L = 0;
    for (let s = 0; s < n; s++) {
      // One exponential for ℓ, σ and σ': e = e^{−|z|}, σ(z) = 1/(1 + e) (z ≥ 0) or e/(1 + e), σ' = e/(1 + e)².
      const zs = z[s];
      const e = Math.exp(-Math.abs(zs));
      const inv = 1 / (1 + e);
      const y = this.outcomes[s];
      L += Math.max(zs, 0) + Math.log1p(e) - y * zs;
      const residual = (zs >= 0 ? inv : e * inv) - y;
      const slope = e * inv * inv;
      const row = s * d;
      for (let i = 0; i < d; i++) {
        const xi = X[row + i];
        g[i] += residual * xi;
        const w = slope * xi;
        for (let j = 0; j <= i; j++) H[i * d + j] += w * X[row + j];
      }
    }
    return L;
  }

  stats(): PolicyStats {
    const bytes =
      this.history.byteLength +
      this.outcomes.byteLength +
      this.margins.byteLength +
      this.optimistic.byteLength +
      this.thetaHat.byteLength +
      this.point.byteLength +
      this.trial.byteLength +
      this.gradient.byteLength +
      this.lossGradient.byteLength +
      this.hessian.byteLength +
      this.step.byteLength +
      this.kkt.byteLength +
      this.rhs.byteLength +
      this.direction.byteLength +
      this.other.byteLength +
      this.modelFactor.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: this.projections, beta: this.lastBeta, delta: NaN };
  }

  /** θ̂_t. */
  estimate(): Float64Array {
    return this.thetaHat;
  }
}

/** Solves the n×n system A z = b in place (b ← z) by Gaussian elimination with partial pivoting; false if singular. */
function solveDense(n: number, A: Float64Array, b: Float64Array): boolean {
  for (let k = 0; k < n; k++) {
    let pivot = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(A[i * n + k]) > Math.abs(A[pivot * n + k])) pivot = i;
    const p = A[pivot * n + k];
    if (!(Math.abs(p) > 0) || !Number.isFinite(p)) return false;
    if (pivot !== k) {
      for (let j = 0; j < n; j++) {
        const t = A[k * n + j];
        A[k * n + j] = A[pivot * n + j];
        A[pivot * n + j] = t;
      }
      const t = b[k];
      b[k] = b[pivot];
      b[pivot] = t;
    }
    for (let i = k + 1; i < n; i++) {
      const f = A[i * n + k] / p;
      if (f === 0) continue;
      for (let j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let j = i + 1; j < n; j++) s -= A[i * n + j] * b[j];
    b[i] = s / A[i * n + i];
    if (!Number.isFinite(b[i])) return false;
  }
  return true;
}

export const ofulogPlusPolicy: PolicyDescriptor = {
  name: 'OFULog+',
  summary: 'likelihood-ratio confidence set around the constrained MLE, optimism by convex programming (Lee, Yun and Jun, 2024); K = 1 only',
  reference: 'Lee, Yun and Jun, 2024',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(['S', 'delta', 'beta', 'beta_scale']),
  // nick-jhlee/logistic_bandit ofulogplus.py:79-82 (its radius) and δ = 0.05 (scripts/generate_configs.py:22).
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 4,
  cost: {
    round: 'O(|A_t|·N·(td² + d³)), N ≈ 5–25 Newton steps an action',
    memory: 'O(td)',
    // About 25 Newton steps an action, each a Hessian over the history and two loss evaluations.
    flops: ({ d, actions, t }) => 25 * (actions + 1) * (Math.max(t, 1) * (d * d + 6 * d) + d * d * d),
    // The history, its margins and outcomes, the Newton workspaces.
    bytes: ({ d, actions, t }) => 8 * (Math.max(t, 1) * (d + 2) + actions + 4 * d * d + 10 * d),
    probeProjection: false,
  },
  rangeProblem: ofulogPlusRangeProblem,
  create: (spec) => new OfulogPlus(spec),
};
