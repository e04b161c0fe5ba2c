/**
 * EOFD-TS (ours): Thompson sampling on EOFD-MLogB's estimate and sketch. Each round it draws
 * W̃ = W_t + √β_t Z_t^{-1/2} ξ, ξ ~ N(0, I_Kd) from its own seeded stream, with the sketch's
 * Z_t = λ_t I + VΛVᵀ (eq. (11)) and its symmetric inverse root
 * Z_t^{-1/2} = λ_t^{-1/2}(I − VVᵀ) + V(λ_t I + Λ)^{-1/2}Vᵀ, applied in O(Kd·m); then it plays the action
 * of largest expected reward rᵀσ(W̃x) (K = 1: w̃ᵀx). W_t, Z_t and β_t are EOFD-MLogB's, by composition
 * (`core`), including params.sketch (λ_t = λ + ρ/2 for robust FD). Per round O(Kd·m) for the draw
 * and O(|A_t|·K·d) for the scores on top of EOFD-MLogB's update, O(Kd(m+K)²); memory O(Kd·m).
 */
import { EofdMLogB } from './eofd-mlogb.js';
import { type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS, SKETCH_KEYS } from './policy.js';
import type { PolicySpec } from './spec.js';
import { ThompsonSampling } from './thompson-sampling.js';

export class EofdTs extends ThompsonSampling<EofdMLogB> {
  readonly name = 'EOFD-TS' as const;
  /** Vᵀξ (length: the sketch's capacity). */
  private coordinates: Float64Array;

  constructor(spec: PolicySpec) {
    const core = new EofdMLogB(spec);
    super(core, spec, 'EOFD-TS', core.sketch.workspace);
    this.coordinates = core.sketch.workspace.float64(core.sketch.capacity);
  }

  /** m_t: the sketch size in this round. */
  sketchSize(): number {
    return this.core.sketchSize();
  }

  /** out = √β Z_t^{-1/2} ξ (covariance β Z_t⁻¹), in O(Kd·m). */
  perturbation(beta: number, xi: Float64Array, out: Float64Array): void {
    const sketch = this.core.sketch;
    if (this.coordinates.length < sketch.capacity) this.coordinates = sketch.workspace.float64(sketch.capacity);
    this.core.sketch.inverseSquareRootApply(this.core.curvatureRegularization, xi, out, this.coordinates);
    const root = Math.sqrt(beta);
    for (let i = 0; i < this.dimension; i++) out[i] *= root;
  }

  stats(): PolicyStats {
    return this.statsWith(this.coordinates.byteLength);
  }
}

export const eofdTsPolicy: PolicyDescriptor = {
  name: 'EOFD-TS',
  summary: "Thompson sampling on EOFD-MLogB's sketch: W̃ ~ N(W_t, β_t Z_t⁻¹) through Z_t^{-1/2} in O(Kd·m)",
  reference: "ours (Thompson sampling on EOFD-MLogB's state)",
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, STEP_KEYS, RADIUS_KEYS, SKETCH_KEYS),
  sketchDimension: (d, K) => K * d,
  needsRandomStream: true,
  costRank: 1,
  cost: {
    round: 'O(Kd(m+K)² + |A_t|·Kd)',
    memory: 'O(Kdm)',
    // The draw (Vᵀξ and back), the scores, and EOFD-MLogB's update (new basis, two small eigendecompositions).
    flops: ({ d, K, m, actions }) => 2 * actions * K * d + 4 * K * d * m + 2 * K * d * m * (m + K) + 20 * (m + K) ** 3,
    // The basis and its spare (Kd×m each), W, W', ΔW, W̃, ξ, the small Gram's eigenvectors.
    bytes: ({ d, K, m }) => 8 * (2 * K * d * m + 5 * K * d + 3 * (m + K) ** 2),
    probeProjection: false,
  },
  create: (spec) => new EofdTs(spec),
};
