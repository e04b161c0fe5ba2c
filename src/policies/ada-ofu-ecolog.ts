/**
 * ada-OFU-ECOLog (Faury, Abeille, Jun and Calauzènes, AISTATS 2022), a one-step online logistic
 * bandit (K = 1 only), as the authors' reference code plays it (criteo-research/logistic_bandit,
 * logbexp/algorithms/ecolog.py):
 * - the ECOLog step θ_{t+1} = argmin_{‖θ‖≤S} ½‖θ − θ_t‖²_{Ṽ_t} + ℓ(θᵀx_t, y_t), ℓ the logistic loss;
 * - θ̄_t = argmin_{‖θ‖≤S} ½‖θ − θ_{t+1}‖²_{Ṽ_t} + ℓ(θᵀx_t, 0) + ℓ(θᵀx_t, 1), for the data-dependent radius;
 * - Ṽ_{t+1} = Ṽ_t + μ̇(θ_{t+1}ᵀx_t) x_t x_tᵀ, Ṽ_1 = λI, μ̇ = σ(1 − σ);
 * - x_t = argmax σ(θ_tᵀx)·r_1 + γ_t‖x‖_{Ṽ_t⁻¹}, γ_t² = 2λS² + (1+S)²g_t + Σ_{s<t} [2(1+S)(ℓ_s(θ̄_s) − ℓ_s(θ_{s+1})) − ½‖θ_{s+1} − θ̄_s‖_{Ṽ_s}],
 *   g_t = √λ/2 + (2/√λ)·ln(2√(1 + t/(4λ))/δ).
 * Both steps are solved exactly (ecolog.py runs projected gradient descent): unconstrained, the
 * minimiser is θ_c − m·Ṽ⁻¹x with m the root of the scalar equation m = ℓ'(θ_cᵀx − m‖x‖²_{Ṽ⁻¹});
 * otherwise, in Ṽ's eigenbasis, the ball's multiplier ν by bisection with that scalar root inside.
 * Per round O(|A_t|d²) for the decision and O(d²) for the update (O(d³) in rounds whose step leaves
 * the ball); O(d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot, gemv } from '../linalg/blas.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { logisticLoss, logisticSlope, sigmoid } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './kit/checks.js';
import { BonusSelector, DesignMatrix } from './kit/design-matrix.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of Ṽ_t. */
const DEFAULT_REFRESH_INTERVAL = 500;
/** The data-dependent condition μ̇(θ̄ᵀx)/μ̇(θ_{t+1}ᵀx) ≤ 2 (ecolog.py line 77, which raises when it fails). */
export const ECOLOG_SENSITIVITY_RATIO = 2;
const EPS = 2 ** -52;
/** Iteration caps of the two roots (both stop at machine precision long before). */
const MAX_ITERATIONS = 200;

/**
 * γ_t² as ecolog.py's update_ucb_bonus computes it (lines 105–107, "a more precise version of Thm 3"):
 * 2λS² + (1+S)²g_t + cumulativeLoss, g_t = √λ/2 + (2/√λ)·ln(2√(1 + t/(4λ))/δ), t the round.
 */
export function ecologRadiusSq(lambda: number, normBound: number, delta: number, t: number, cumulativeLoss: number): number {
  const rootLambda = Math.sqrt(lambda);
  const g = rootLambda / 2 + (2 / rootLambda) * Math.log((2 * Math.sqrt(1 + t / (4 * lambda))) / delta);
  return 2 * lambda * normBound * normBound + (1 + normBound) ** 2 * g + cumulativeLoss;
}

/**
 * The root m of m = a(σ(z₀ − m q) − b) (q ≥ 0): the multiplier of the step's stationarity condition
 * θ = θ_c − m·M⁻¹x for a loss of derivative a(σ(z) − b). Its left side minus its right is increasing,
 * negative at −ab and positive at a(1 − b); Newton's method guarded by that bracket.
 */
export function stepMultiplier(z0: number, q: number, a: number, b: number): number {
  let lo = -a * b;
  let hi = a * (1 - b);
  let m = a * (sigmoid(z0) - b);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const s = sigmoid(z0 - m * q);
    const h = m - a * (s - b);
    if (h === 0) return m;
    if (h > 0) hi = m;
    else lo = m;
    let next = m - h / (1 + a * q * s * (1 - s));
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (Math.abs(next - m) <= 4 * EPS * Math.max(Math.abs(m), Math.abs(next)) || hi - lo <= 4 * EPS * Math.max(Math.abs(lo), Math.abs(hi))) {
      return next;
    }
    m = next;
  }
  return m;
}

export class AdaOfuEcolog implements Policy {
  readonly name = 'ada-OFU-ECOLog' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** Ṽ_t */
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ_t */
  private readonly current: Float64Array;
  /** θ_{t+1} during an update. */
  private readonly next: Float64Array;
  /** θ̄_t of the last update. */
  readonly thetaBar: Float64Array;
  /** Ṽ_t⁻¹x_t */
  private readonly direction: Float64Array;
  private readonly scratch: Float64Array;
  /** Σ_s 2(1+S)(ℓ_s(θ̄_s) − ℓ_s(θ_{s+1})) − ½‖θ_{s+1} − θ̄_s‖_{Ṽ_s} (ecolog.py line 86). */
  cumulativeLoss = 0;
  /** Updates in which μ̇(θ̄ᵀx)/μ̇(θ_{t+1}ᵀx) > 2 (ecolog.py raises there; this policy counts and goes on). */
  sensitivityViolations = 0;
  /** The eigenbasis of Ṽ_t for the constrained steps (allocated on first use; valid for one update). */
  private eigen: { solver: SymmetricEigen; values: Float64Array; x: Float64Array; centre: Float64Array; coordinates: Float64Array } | null = null;
  private eigenFresh = false;
  private projections = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    if (spec.K !== 1) throw new RangeError(`ada-OFU-ECOLog is a binary (K = 1) policy, got K = ${spec.K}`);
    this.d = spec.d;
    this.spec = spec;
    this.design = new DesignMatrix(spec.d, spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(1, spec.d, spec.reward);
    // θ, θ̄ and the products over Ṽ and Ṽ⁻¹ they enter live beside them (the design matrix's workspace).
    const space = this.design.workspace;
    this.current = space.float64(spec.d);
    this.next = space.float64(spec.d);
    this.thetaBar = space.float64(spec.d);
    this.direction = space.float64(spec.d);
    this.scratch = space.float64(spec.d);
  }

  /** β_t = γ_t² (ecolog.py's radius, which has no hidden constants) in 'theory' and 'order', or the constant; times beta_scale. */
  betaAt(t: number): number {
    const { beta, betaScale, regularization, normBound, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    return Math.max(0, ecologRadiusSq(regularization, normBound, delta, t, this.cumulativeLoss)) * betaScale;
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt(t);
    return this.selector.select(actions, this.current, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { d, current, next, thetaBar, direction, scratch, design } = this;
    const S = this.spec.normBound;
    this.eigenFresh = false;
    design.applyInverse(x, direction);
    const q = dot(d, direction, 0, x, 0);
    // θ_{t+1}: ℓ(z, y) has derivative σ(z) − y; θ̄: ℓ(z, 0) + ℓ(z, 1) has derivative 2(σ(z) − ½).
    let constrained = this.step(current, x, q, 1, outcome, next);
    constrained = this.step(next, x, q, 2, 0.5, thetaBar) || constrained;
    if (constrained) this.projections++;
    const z = dot(d, next, 0, x, 0);
    const zBar = dot(d, thetaBar, 0, x, 0);
    // ‖θ_{t+1} − θ̄‖_{Ṽ_t} (not squared, as ecolog.py line 66), before Ṽ moves.
    for (let i = 0; i < d; i++) scratch[i] = next[i] - thetaBar[i];
    gemv(d, d, design.matrix, 0, d, scratch, 0, direction, 0);
    const gap = Math.sqrt(Math.max(0, dot(d, scratch, 0, direction, 0)));
    this.cumulativeLoss += 2 * (1 + S) * (logisticLoss(zBar, outcome) - logisticLoss(z, outcome)) - 0.5 * gap;
    const slope = logisticSlope(z);
    if (logisticSlope(zBar) / slope > ECOLOG_SENSITIVITY_RATIO) this.sensitivityViolations++;
    design.addOuter(slope, x);
    current.set(next);
    assertFiniteState(this.name, current);
  }

  /**
   * out = argmin_{‖θ‖≤S} ½‖θ − centre‖²_Ṽ + L(θᵀx) for L' = a(σ − b), with direction = Ṽ⁻¹x and
   * q = xᵀṼ⁻¹x. Returns whether the ball constraint is active.
   */
  private step(centre: Float64Array, x: Float64Array, q: number, a: number, b: number, out: Float64Array): boolean {
    const { d } = this;
    const S = this.spec.normBound;
    const m = stepMultiplier(dot(d, centre, 0, x, 0), q, a, b);
    out.set(centre);
    axpy(d, -m, this.direction, 0, out, 0);
    if (dot(d, out, 0, out, 0) <= S * S) return false;
    this.constrainedStep(centre, x, a, b, out);
    return true;
  }

  /**
   * The step on the sphere: Ṽ(θ − θ_c) + m x + νθ = 0, ‖θ‖ = S, m = a(σ(θᵀx) − b). With Ṽ = QΛQᵀ,
   * p = Qᵀθ_c and w = Qᵀx, θ(ν) = Q[(λ_i p_i − m w_i)/(λ_i + ν)]_i with m = stepMultiplier(z₀(ν), q(ν)),
   * z₀(ν) = Σ w_iλ_ip_i/(λ_i+ν), q(ν) = Σ w_i²/(λ_i+ν). ‖θ(ν)‖ is non-increasing in ν (θ(ν) minimises
   * the objective plus ν‖θ‖²/2), so ν is found by bisection on [0, (‖Ṽθ_c‖ + a·max(b, 1−b)‖x‖)/S],
   * where ‖θ(ν)‖ ≤ S at the right end; θ is taken at the bracket's feasible end.
   */
  private constrainedStep(centre: Float64Array, x: Float64Array, a: number, b: number, out: Float64Array): void {
    const { d } = this;
    const S = this.spec.normBound;
    const eigen = (this.eigen ??= {
      solver: new SymmetricEigen(d),
      values: new Float64Array(d),
      x: new Float64Array(d),
      centre: new Float64Array(d),
      coordinates: new Float64Array(d),
    });
    const { solver, values, coordinates } = eigen;
    const w = eigen.x;
    const p = eigen.centre;
    if (!this.eigenFresh) {
      solver.decomposeFactored(d, this.design.matrix, 0, d, values);
      solver.applyVectorsTransposed(x, w);
      this.eigenFresh = true;
    }
    solver.applyVectorsTransposed(centre, p);
    // p_i ← λ_i p_i (the coordinates of Ṽθ_c).
    for (let i = 0; i < d; i++) p[i] *= values[i];
    let lo = 0;
    let hi = (Math.sqrt(dot(d, p, 0, p, 0)) + a * Math.max(b, 1 - b) * Math.sqrt(dot(d, w, 0, w, 0))) / S;
    for (let iteration = 0; iteration < MAX_ITERATIONS && hi - lo > 4 * EPS * hi; iteration++) {
      const mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      if (this.normSqAt(mid, this.multiplierAt(mid, a, b)) > S * S) lo = mid;
      else hi = mid;
    }
    const m = this.multiplierAt(hi, a, b);
    for (let i = 0; i < d; i++) coordinates[i] = (p[i] - m * w[i]) / (values[i] + hi);
    solver.applyVectors(coordinates, out);
  }

  /** stepMultiplier at z₀(ν), q(ν) in the eigenbasis of `constrainedStep`. */
  private multiplierAt(nu: number, a: number, b: number): number {
    const { values, x: w, centre: p } = this.eigen!;
    let z0 = 0;
    let q = 0;
    for (let i = 0; i < this.d; i++) {
      const inv = 1 / (values[i] + nu);
      z0 += w[i] * p[i] * inv;
      q += w[i] * w[i] * inv;
    }
    return stepMultiplier(z0, q, a, b);
  }

  /** ‖θ(ν)‖² for the multiplier m, in the eigenbasis of `constrainedStep`. */
  private normSqAt(nu: number, m: number): number {
    const { values, x: w, centre: p } = this.eigen!;
    let total = 0;
    for (let i = 0; i < this.d; i++) {
      const c = (p[i] - m * w[i]) / (values[i] + nu);
      total += c * c;
    }
    return total;
  }

  stats(): PolicyStats {
    const eigen = this.eigen;
    const eigenBytes = eigen === null ? 0 : eigen.solver.byteLength + 4 * eigen.values.byteLength;
    const bytes = this.design.byteLength + this.selector.byteLength + 5 * this.current.byteLength + eigenBytes;
    return { stateBytes: bytes, sketchError: 0, projections: this.projections, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const adaOfuEcologPolicy: PolicyDescriptor = {
  name: 'ada-OFU-ECOLog',
  summary: 'one-step online logistic estimate (ECOLog) with a data-dependent UCB radius (Faury et al., 2022); K = 1 only',
  reference: 'Faury et al., 2022',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit ecolog.py:32 (λ = 1), :105-108 (its radius) and δ = 0.05 (scripts/generate_configs.py:21).
  defaults: { lambda: 1, beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 1,
  cost: {
    round: 'O(|A_t|·d² + d²)',
    memory: 'O(d²)',
    // The bonus ‖x‖_{Ṽ⁻¹} of every action; Ṽ⁻¹x, the Ṽ-norm of θ_{t+1} − θ̄ and the rank-one update of Ṽ, Ṽ⁻¹.
    flops: ({ d, actions }) => 2 * actions * d * d + 10 * d * d,
    // Ṽ, Ṽ⁻¹, the refresh workspace and the bonus scratch (the eigenbasis of a constrained step excepted).
    bytes: ({ d, actions }) => 8 * (3 * d * d + actions * (d + 2) + 7 * d),
    probeProjection: false,
  },
  create: (spec) => new AdaOfuEcolog(spec),
};
