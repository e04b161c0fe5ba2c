/**
 * RS-GLinCB (Sawarni, Das, Barman and Sinha, "Generalized linear bandits with limited adaptivity",
 * NeurIPS 2024, arXiv 2404.06831: the rarely-switching algorithm), K = 1, as the authors' code plays it
 * (tanmaygoyal258/MNL_Limited_Adaptivity `RS_GLincb.py` at d8bc55d, which carries Sawarni et al.'s
 * nirjhar-das/GLBandit_Limited_Adaptivity `RS_GLBandit.py` over; line numbers below are RS_GLincb.py's):
 *
 * - Warm-up (switching criterion I): V = λI + Σ_{warm-up s} x_s x_sᵀ. If some action has
 *   ‖x‖²_{V⁻¹} > 1/(c_w κ R⁴ S² d) (c_w = 0.01, R = 1; lines 24, 30, 50–53), play the one of largest
 *   ‖x‖_{V⁻¹} (the first on ties), add it to V and refit θ̂_w, the regularised MLE over the warm-up
 *   rounds (lines 59–62, 107–115).
 * - Otherwise (switching criterion II): if det H_t ≥ (1 + c) det H_τ (c = 0.5, line 26, 67), switch:
 *   H_τ = H_t and θ̂_τ is refitted over every round so far, warm-up rounds included (lines 68–74,
 *   110–111). Eliminate the actions whose UCB_w = θ̂_wᵀx + γ√κ‖x‖_{V⁻¹} is below the largest
 *   LCB_w = θ̂_wᵀx − γ√κ‖x‖_{V⁻¹} (lines 77–92), and play, among the others,
 *   argmax ((θ̂_w + θ̂_τ)/2)ᵀx + β‖x‖_{H_τ⁻¹} (lines 94–101); then H_{t+1} = H_t + μ̇(xᵀθ̂_w) x xᵀ
 *   (lines 119–126), H_1 = λI.
 * - Both estimates minimise Σ_s ℓ(θᵀx_s, y_s) + (λ/2)‖θ‖² (their solver is handed λ/2 and adds
 *   lmbda‖θ‖², utils.py:82–84, lines 69–70, 112–113), here solved exactly (policies/kit/mle.ts).
 * - λ = 0.5 (line 27; the paper's d ln(T/δ)/R² is commented out there), γ = R S √(d ln(T/δ)) (line 28),
 *   β = 4√(d ln(T/δ)) (line 29), δ = 0.05 (main.py:19).
 *
 * κ: theirs is the instance's max_x 1/μ̇(θ*ᵀx) over the arm sets the environment will draw
 * (MNLEnv.py:70–82, an oracle quantity a policy cannot have); here its bound on the problem class,
 * 1/μ̇(S·D) = 2 + e^{SD} + e^{−SD}. Two departures from their code, both of the paper's algorithm:
 * H_τ is a copy of H_t (theirs, `self.prev_H = self.curr_H` at line 68, aliases the two arrays, so after
 * the first switch det H_t ≥ 1.5 det H_τ never holds again and the bonus reads the growing H_t); and
 * the MLE is solved to 1e-12 where theirs runs scipy's BFGS with finite differences (utils.py:110).
 * Two rules for rounding: scores (and warm-up norms) within 1e-12 (relative) of the best are ties, which
 * go to the lowest index; and a ratio det H_t / det H_τ within RS_GLINCB_RATIO_TOLERANCE of 1 + c counts
 * as reaching it. (Sawarni et al.'s own RS_GLBandit.py, nirjhar-das/GLBandit_Limited_Adaptivity at
 * 3292646, differs from the code followed here: it divides the weight μ̇ of H by e, its warm-up threshold
 * shrinks as 1/ln(1 + t), and one radius γ√(ln(1 + t)) serves both bonuses; the paper's text could not be
 * read here, only its abstract.)
 *
 * β mode (params.beta): 'theory' and 'order' are the code's radii (no hidden constants); a number is β²,
 * the squared UCB radius (γ stays); beta_scale multiplies β² and γ². Per round O(|A_t|·d²) (the two
 * norms of every action), O(d²) per update; a warm-up round refits θ̂_w (O(t·d²) per Newton step) and
 * a switch refits θ̂_τ and inverts H_τ (O(t·d² + d³)). O(td + d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot, gemmNT } from '../linalg/blas.js';
import { sigmoid } from '../model/logistic.js';
import { spdInverse } from '../linalg/cholesky.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem, requireInRange } from './kit/checks.js';
import { DesignMatrix } from './kit/design-matrix.js';
import { mleBytes, RegularizedMle } from './kit/mle.js';
import { logisticKappa } from './kit/radius.js';
import { firstOfTies } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** c: a switch when det H_t ≥ (1 + c) det H_τ (RS_GLincb.py:26, `doubling_constant`). */
export const RS_GLINCB_DOUBLING = 0.5;
/** c_w of the warm-up threshold 1/(c_w κ R⁴ S² d) (RS_GLincb.py:30). */
export const RS_GLINCB_WARMUP_CONSTANT = 0.01;
/** R, their `logistic_constant` (RS_GLincb.py:24). */
export const RS_GLINCB_R = 1;
/** β = 4√(d ln(T/δ)) (RS_GLincb.py:29). */
export const RS_GLINCB_BETA_FACTOR = 4;
/**
 * A ratio det H_t / det H_τ within this (relative) of 1 + c counts as reaching it. With their λ = 0.5,
 * μ̇(0) = 1/4 and unit actions, the ratio after the first round of the second phase is exactly
 * 1 + (1/4)/λ = 1.5, and which side of it the rounding falls on would decide.
 */
export const RS_GLINCB_RATIO_TOLERANCE = 1e-9;
/** Default rounds between exact re-inversions of V and H. */
const DEFAULT_REFRESH_INTERVAL = 500;

/** The horizon T a limited-adaptivity policy's constants read; a RangeError without one. */
export function requireHorizon(name: string, spec: PolicySpec): number {
  if (spec.horizon === undefined) throw new RangeError(`${name} needs the horizon T (PolicySpec.horizon): its constants read ln(T/δ)`);
  return spec.horizon;
}

export class RsGlincb implements Policy {
  readonly name = 'RS-GLinCB' as const;
  private readonly d: number;
  /** κ */
  readonly kappa: number;
  /** The warm-up threshold on ‖x‖²_{V⁻¹}. */
  readonly warmupThreshold: number;
  /** γ (times √beta_scale). */
  readonly gamma: number;
  /** β (times √beta_scale; √ of a constant β mode). */
  readonly radius: number;
  /** V = λI + Σ_{warm-up} x xᵀ. */
  readonly warmupDesign: DesignMatrix;
  /** H_t = λI + Σ_{other rounds} μ̇(xᵀθ̂_w) x xᵀ. */
  readonly design: DesignMatrix;
  /** H_τ⁻¹ (d×d) and ln det H_τ (−∞ before the first switch, so that the first such round switches). */
  readonly switchedInverse: Float64Array;
  private switchedLogDet = -Infinity;
  private readonly inverseWork: Float64Array;
  /** θ̂_w, θ̂_τ and (θ̂_w + θ̂_τ)/2. */
  readonly warmupEstimate: Float64Array;
  readonly switchedEstimate: Float64Array;
  private readonly average: Float64Array;
  private readonly warmupFit: RegularizedMle;
  private readonly fullFit: RegularizedMle;
  /** λ: the ridge of both fits. */
  private readonly ridge: number;
  /** Per action: V⁻¹x rows (beside V⁻¹) and H_τ⁻¹x rows (beside H_τ⁻¹), then the scores. */
  private columns: Float64Array = new Float64Array(0);
  private switchedColumns: Float64Array = new Float64Array(0);
  private scores = new Float64Array(0);
  private warmupNorms = new Float64Array(0);
  private lastWasWarmup = false;
  /** Rounds of warm-up, and switches (θ̂_τ refits). */
  warmupRounds = 0;
  switches = 0;
  private lastBeta = NaN;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    requireInRange(newtonRegularizationProblem('RS-GLinCB', spec));
    if (spec.K !== 1) throw new RangeError(`RS-GLinCB is a binary (K = 1) policy, got K = ${spec.K}`);
    const T = requireHorizon('RS-GLinCB', spec);
    const d = spec.d;
    this.d = d;
    const lambda = spec.regularization;
    const S = spec.normBound;
    this.kappa = logisticKappa(S, spec.maxActionNorm);
    this.warmupThreshold = 1 / (RS_GLINCB_WARMUP_CONSTANT * this.kappa * RS_GLINCB_R ** 4 * S * S * d);
    const logTerm = d * Math.log(T / spec.delta);
    const scale = Math.sqrt(spec.betaScale);
    this.gamma = RS_GLINCB_R * S * Math.sqrt(Math.max(0, logTerm)) * scale;
    this.radius = (typeof spec.beta === 'number' ? Math.sqrt(spec.beta) : RS_GLINCB_BETA_FACTOR * Math.sqrt(Math.max(0, logTerm))) * scale;
    const refresh = spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL;
    this.warmupDesign = new DesignMatrix(d, lambda, refresh);
    this.design = new DesignMatrix(d, lambda, refresh);
    // H_τ⁻¹ and its products live beside H_t (the design matrix's workspace), where the kernels run.
    this.switchedInverse = this.design.workspace.float64(d * d);
    this.inverseWork = this.design.workspace.float64(d * d + d);
    this.warmupEstimate = new Float64Array(d);
    this.switchedEstimate = new Float64Array(d);
    this.average = new Float64Array(d);
    this.ridge = lambda;
    this.warmupFit = new RegularizedMle(1, d);
    this.fullFit = new RegularizedMle(1, d);
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    const { d } = this;
    const count = actions.count;
    if (this.scores.length < count) {
      this.columns = this.warmupDesign.workspace.float64(count * d);
      this.switchedColumns = this.design.workspace.float64(count * d);
      this.scores = new Float64Array(count);
      this.warmupNorms = new Float64Array(count);
    }
    const { columns, scores, warmupNorms } = this;
    const features = actions.features;
    this.lastBeta = this.radius * this.radius;
    // ‖x‖²_{V⁻¹} of every action (row a of X V⁻¹ is (V⁻¹x_a)ᵀ).
    gemmNT(count, d, d, features, 0, d, this.warmupDesign.inverse, 0, d, columns, 0, d);
    let largest = -Infinity;
    for (let a = 0; a < count; a++) {
      const q = dot(d, columns, a * d, features, a * d);
      warmupNorms[a] = q;
      // Lines 53–57: the largest of the norms strictly above the threshold (ties below).
      scores[a] = q > this.warmupThreshold ? q : -Infinity;
      if (scores[a] > largest) largest = scores[a];
    }
    this.lastWasWarmup = largest > -Infinity;
    if (this.lastWasWarmup) return firstOfTies(scores, count, largest);

    // Criterion II: det H_t ≥ (1 + c) det H_τ, in logarithms (a relative RS_GLINCB_RATIO_TOLERANCE short counts).
    if (this.design.logDeterminant - this.switchedLogDet >= Math.log1p(RS_GLINCB_DOUBLING) - RS_GLINCB_RATIO_TOLERANCE) this.switch();

    // Elimination by θ̂_w (lines 77–92), then the UCB of H_τ among the survivors (lines 94–101).
    let bestLower = -Infinity;
    for (let a = 0; a < count; a++) {
      const width = this.gamma * Math.sqrt(this.kappa) * Math.sqrt(Math.max(0, warmupNorms[a]));
      const mean = dot(d, this.warmupEstimate, 0, features, a * d);
      scores[a] = mean + width;
      if (mean - width > bestLower) bestLower = mean - width;
    }
    const switchedColumns = this.switchedColumns;
    gemmNT(count, d, d, features, 0, d, this.switchedInverse, 0, d, switchedColumns, 0, d);
    let best = -Infinity;
    for (let a = 0; a < count; a++) {
      if (!(scores[a] >= bestLower)) {
        scores[a] = -Infinity;
        continue;
      }
      const normSq = dot(d, switchedColumns, a * d, features, a * d);
      scores[a] = dot(d, this.average, 0, features, a * d) + this.radius * Math.sqrt(Math.max(0, normSq));
      if (scores[a] > best) best = scores[a];
    }
    return firstOfTies(scores, count, best);
  }

  /** H_τ = H_t (a copy), θ̂_τ = the MLE over every round so far. */
  private switch(): void {
    const { d } = this;
    if (!spdInverse(d, this.design.matrix, 0, d, this.switchedInverse, 0, d, this.inverseWork)) {
      throw new Error(`${this.name}: H_t is not positive definite at a switch`);
    }
    this.switchedLogDet = this.design.logDeterminant;
    this.fullFit.fit(this.switchedEstimate, this.ridge, 'gradient', this.name);
    this.refreshAverage();
    this.switches++;
  }

  private refreshAverage(): void {
    for (let a = 0; a < this.d; a++) this.average[a] = 0.5 * (this.warmupEstimate[a] + this.switchedEstimate[a]);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { d } = this;
    this.fullFit.add(x, outcome);
    if (this.lastWasWarmup) {
      this.warmupRounds++;
      this.warmupDesign.addOuter(1, x);
      this.warmupFit.add(x, outcome);
      this.warmupFit.fit(this.warmupEstimate, this.ridge, 'gradient', this.name);
      this.refreshAverage();
      assertFiniteState(this.name, this.warmupEstimate);
    } else {
      const p = sigmoid(dot(d, this.warmupEstimate, 0, x, 0));
      this.design.addOuter(p * (1 - p), x);
    }
  }

  stats(): PolicyStats {
    const bytes =
      this.warmupDesign.byteLength +
      this.design.byteLength +
      this.switchedInverse.byteLength +
      this.inverseWork.byteLength +
      3 * this.average.byteLength +
      this.warmupFit.byteLength +
      this.fullFit.byteLength +
      this.columns.byteLength +
      this.switchedColumns.byteLength +
      this.scores.byteLength +
      this.warmupNorms.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  /** θ̂_τ, the estimate the policy plays (averaged with θ̂_w in its UCB). */
  estimate(): Float64Array {
    return this.switchedEstimate;
  }
}

export const rsGlincbPolicy: PolicyDescriptor = {
  name: 'RS-GLinCB',
  summary: 'rarely-switching GLM bandit: warm-up, arm elimination and a UCB refitted only when det H grows 1.5-fold (Sawarni et al., 2024); K = 1 only',
  reference: 'Sawarni, Das, Barman and Sinha, 2024',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // tanmaygoyal258/MNL_Limited_Adaptivity RS_GLincb.py:27-29 (λ = 0.5, γ, β: no other radius) and δ = 0.05 (main.py:19).
  defaults: { lambda: 0.5, beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 2,
  cost: {
    round: 'O(|A_t|·d²); a warm-up round or a switch adds a refit, O(t·d² + d³) per Newton step',
    memory: 'O(td + d²)',
    // The two norms ‖x‖_{V⁻¹}, ‖x‖_{H_τ⁻¹} of every action and a rank-one update; refits are rare.
    flops: ({ d, actions }) => 4 * actions * d * d + 8 * d * d,
    // Two MLEs (the warm-up rounds' and every round's: at most t rounds each), V, H and their inverses, H_τ⁻¹ and the per-action scratch.
    bytes: ({ d, actions, t }) => 2 * mleBytes(1, d, t) + 8 * (10 * d * d + actions * (d + 2)),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('RS-GLinCB', spec),
  create: (spec) => new RsGlincb(spec),
};
