/**
 * TS-MLogB (ours): Thompson sampling on OFUL-MLogB's estimate. Each round it draws
 * W̃ = W_t + √β_t H_t^{-1/2} ξ, ξ ~ N(0, I_Kd) from its own seeded stream, and plays the action of
 * largest expected reward rᵀσ(W̃x) (K = 1: w̃ᵀx). W_t, H_t and β_t are OFUL-MLogB's, by composition
 * (`core`: the same online Newton steps, eq. (8)–(9)).
 *
 * The square root is the Cholesky one: H_t = L Lᵀ, H_t^{-1/2}ξ := L^{-T}ξ, whose covariance is
 * L^{-T}L^{-1} = H_t⁻¹, so W̃ ~ N(W_t, β_t H_t⁻¹) exactly. L follows H by K rank-one updates per round
 * (H_{t+1} = H_t + Σ_j (F_{:j} ⊗ x)(F_{:j} ⊗ x)ᵀ with ∇σ(W_{t+1}x) = FFᵀ), O(K(Kd)²), and the draw is one
 * back substitution, O((Kd)²): no eigendecomposition of H in any round. Per round O(K(Kd)²) on top of
 * OFUL-MLogB's update; memory O((Kd)²) (L beside the core's H and H⁻¹).
 */
import { choleskyRankOneUpdate, solveLowerTransposed } from '../linalg/cholesky.js';
import { LocalModel } from '../model/local-model.js';
import { OfulMLogB } from './oful-mlogb.js';
import { type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS } from './policy.js';
import type { PolicySpec } from './spec.js';
import { ThompsonSampling } from './thompson-sampling.js';

export class TsMLogB extends ThompsonSampling<OfulMLogB> {
  readonly name = 'TS-MLogB' as const;
  /** L with H_t = LLᵀ (Kd×Kd, lower triangle; the upper stays 0). */
  readonly factor: Float64Array;
  private readonly K: number;
  private readonly d: number;
  private readonly local: LocalModel;
  private readonly column: Float64Array;

  constructor(spec: PolicySpec) {
    const core = new OfulMLogB(spec);
    super(core, spec, 'TS-MLogB', core.workspace);
    const { K, d } = spec;
    const n = K * d;
    this.K = K;
    this.d = d;
    this.local = new LocalModel(K, d);
    // H_1 = λI: L = √λ I.
    this.factor = core.workspace.float64(n * n);
    for (let i = 0; i < n; i++) this.factor[i * n + i] = Math.sqrt(spec.regularization);
    this.column = new Float64Array(n);
  }

  /** out = √β L^{-T} ξ (covariance β H_t⁻¹), by one back substitution. */
  perturbation(beta: number, xi: Float64Array, out: Float64Array): void {
    const n = this.dimension;
    out.set(xi);
    solveLowerTransposed(n, this.factor, 0, n, out, 0);
    const root = Math.sqrt(beta);
    for (let i = 0; i < n; i++) out[i] *= root;
  }

  override update(x: Float64Array, outcome: number): void {
    super.update(x, outcome);
    // The core's H gained ∇²ℓ_t(W_{t+1}) = (F ⊗ x)(F ⊗ x)ᵀ: the same K columns F_{:j} ⊗ x update L.
    const { K, d, dimension: n, column } = this;
    const factor = this.local.evaluate(this.core.estimate(), x, outcome).hessianFactor(1);
    for (let j = 0; j < K; j++) {
      for (let i = 0; i < K; i++) {
        const f = factor[i * K + j];
        for (let a = 0; a < d; a++) column[i * d + a] = f * x[a];
      }
      choleskyRankOneUpdate(n, this.factor, 0, n, column, 0);
    }
  }

  stats(): PolicyStats {
    return this.statsWith(this.factor.byteLength + this.column.byteLength);
  }
}

export const tsMLogBPolicy: PolicyDescriptor = {
  name: 'TS-MLogB',
  summary: "Thompson sampling on OFUL-MLogB's estimate: W̃ ~ N(W_t, β_t H_t⁻¹) by a Cholesky factor of H kept by rank-one updates",
  reference: "ours (Thompson sampling on OFUL-MLogB's state)",
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS),
  needsRandomStream: true,
  costRank: 2,
  cost: {
    round: 'O(K(Kd)² + |A_t|·Kd)',
    memory: 'O((Kd)²)',
    // The draw (one back substitution), the scores, OFUL-MLogB's update, and K rank-one updates of L.
    flops: ({ d, K, actions }) => 2 * actions * K * d + (9 + 4 * K) * (K * d) ** 2,
    // OFUL-MLogB's seven Kd×Kd arrays (H, H⁻¹, refresh, projection) and L.
    bytes: ({ d, K }) => 8 * (8 * (K * d) ** 2 + 20 * K * d),
    probeProjection: true,
  },
  create: (spec) => new TsMLogB(spec),
};
