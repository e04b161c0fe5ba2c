/**
 * The 1-D root of Lemma 2: find ν > 0 with f(ν) = Σ_i a_i / (b_i + ν)² = S², eq. (24), eq. (25).
 * Both policies reduce the Z̃-norm projection onto ‖W‖_F ≤ S, eq. (9), to this form: EOFD-MLogB with
 * the m+K sketch directions plus the λ-complement, OFUL-MLogB with the full eigenbasis of H̃.
 */
import { SymmetricEigen } from '../linalg/eigen.js';
import type { Workspace } from '../linalg/simd.js';

/**
 * Returns the root ν of Σ a_i/(b_i+ν)² = target (a_i ≥ 0, b_i > 0, f(0) > target > 0).
 * Newton's method on h(ν) = f(ν)^{-1/2} − target^{-1/2}, which is increasing and concave (Moré and
 * Sorensen's trust-region argument), so the iterates rise monotonically from a lower bound to the
 * root; a bracketing bisection step guards against rounding. Converges to machine precision.
 */
export function secularRoot(count: number, a: Float64Array, b: Float64Array, target: number): number {
  let total = 0;
  let bMin = Infinity;
  let bMax = 0;
  for (let i = 0; i < count; i++) {
    total += a[i];
    if (b[i] < bMin) bMin = b[i];
    if (b[i] > bMax) bMax = b[i];
  }
  const radius = Math.sqrt(target);
  // f(ν) ≥ total/(bMax+ν)² and f(ν) ≤ total/(bMin+ν)² bracket the root.
  let lo = Math.max(0, Math.sqrt(total) / radius - bMax);
  let hi = Math.max(lo, Math.sqrt(total) / radius - bMin);
  let nu = lo;
  for (let iteration = 0; iteration < 100; iteration++) {
    let f = 0;
    let df = 0;
    for (let i = 0; i < count; i++) {
      const inv = 1 / (b[i] + nu);
      const term = a[i] * inv * inv;
      f += term;
      df -= 2 * term * inv;
    }
    if (f === target) return nu;
    if (f > target) lo = nu;
    else hi = nu;
    // h(ν) = f^{-1/2} − target^{-1/2}; h'(ν) = −½ f^{-3/2} f'(ν)
    const h = 1 / Math.sqrt(f) - 1 / radius;
    const dh = (-0.5 * df) / (f * Math.sqrt(f));
    let next = nu - h / dh;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (Math.abs(next - nu) <= 4 * Number.EPSILON * Math.max(nu, next) || hi - lo <= 4 * Number.EPSILON * hi) {
      return next;
    }
    nu = next;
  }
  return nu;
}

/**
 * The M-norm projection onto the ball ‖θ‖₂ ≤ S done exactly, eq. (9): with M = QΛQᵀ,
 * θ = Q diag(μ/(μ+ν)) Qᵀθ' and ν the root of Σ μ_i²(q_iᵀθ')²/(μ_i+ν)² = S². O(n³), for the exact
 * policies (OFUL-MLogB's H̃, OL2M's and MNL-UCB's design matrix) in the rounds that leave the ball.
 * Its buffers are allocated on first use; the eigenvectors stay factored (no O(n³) back-transformation).
 */
export class ExactBallProjection {
  private readonly n: number;
  /** Where the eigensolver keeps its arrays (its kernels then run as WebAssembly), when given. */
  private readonly space: Workspace | undefined;
  private work: { matrix: Float64Array; values: Float64Array; eigen: SymmetricEigen; coordinates: Float64Array; a: Float64Array } | null = null;

  constructor(n: number, space?: Workspace) {
    this.n = n;
    this.space = space;
  }

  /** The n×n buffer the caller fills with M before `project` (which overwrites it). */
  matrix(): Float64Array {
    const n = this.n;
    this.work ??= { matrix: new Float64Array(n * n), values: new Float64Array(n), eigen: new SymmetricEigen(n, this.space), coordinates: new Float64Array(n), a: new Float64Array(n) };
    return this.work.matrix;
  }

  /**
   * M = QΛQᵀ for M as put in `matrix()` (which it overwrites), as `project` starts; alone, for a
   * caller that pays for the decomposition in every round (OFUL-MLogB's textbook solver).
   */
  decompose(): void {
    if (this.work === null) throw new Error('ExactBallProjection: fill matrix() before decompose() or project()');
    const { matrix, values, eigen } = this.work;
    eigen.decomposeFactored(this.n, matrix, 0, this.n, values);
  }

  /** In place: `point` (length n, outside the ball) becomes its M-norm projection, M as put in `matrix()`. */
  project(point: Float64Array, normBound: number): void {
    const n = this.n;
    this.decompose();
    const { values, eigen, coordinates, a } = this.work as NonNullable<typeof this.work>;
    eigen.applyVectorsTransposed(point, coordinates);
    for (let i = 0; i < n; i++) a[i] = coordinates[i] * coordinates[i] * values[i] * values[i];
    const nu = secularRoot(n, a, values, normBound * normBound);
    for (let i = 0; i < n; i++) coordinates[i] *= values[i] / (values[i] + nu);
    eigen.applyVectors(coordinates, point);
  }

  get byteLength(): number {
    const work = this.work;
    return work === null ? 0 : work.matrix.byteLength + 3 * work.values.byteLength + work.eigen.byteLength;
  }
}
