/**
 * The 1-D root of Lemma 2: find ν > 0 with f(ν) = Σ_i a_i / (b_i + ν)² = S², eq. (24), eq. (25).
 * EOFD-MLogB reduces the Z̃-norm projection onto ‖W‖_F ≤ S, eq. (9), to this form with the m+K sketch
 * directions plus the λ-complement; OFUL-MLogB's textbook solver with the full eigenbasis of H̃. Its
 * default solver takes the same root by Cholesky factorisations instead (`TrustRegionProjection`).
 */
import { dot, gemv } from '../linalg/blas.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { Workspace } from '../linalg/simd.js';

/**
 * f(ν) = ‖W(ν)‖², decreasing in ν: `at(ν)` sets `value` = f(ν), `slope` = f′(ν) < 0 and `curvature` =
 * f″(ν), or NaN for Newton steps alone.
 */
interface SquaredNorm {
  value: number;
  slope: number;
  curvature: number;
  at(nu: number): void;
}

/** Newton's step −h/h′ on h(ν) = f^{-1/2} − radius^{-1}, at f = f(ν) and f′ = f′(ν). */
function newtonStep(f: number, df: number, radius: number): number {
  // h'(ν) = −½ f^{-3/2} f'(ν)
  const h = 1 / Math.sqrt(f) - 1 / radius;
  const dh = (-0.5 * df) / (f * Math.sqrt(f));
  return -(h / dh);
}

/**
 * Halley's step from Newton's δ: δ/(1 + δ·h″/(2h′)), h″/h′ = −(3/2)f′/f + f″/f′ (cubic convergence);
 * Newton's where the correction would more than double it (far from the root).
 */
function halleyStep(delta: number, f: number, df: number, d2f: number): number {
  const scale = 1 + 0.5 * delta * ((-1.5 * df) / f + d2f / df);
  return scale >= 0.5 ? delta / scale : delta;
}

/**
 * The root ν of f(ν) = target in [lo, hi] (f(lo) ≥ target ≥ f(hi)), from `start`, by Newton's method on
 * h(ν) = f(ν)^{-1/2} − target^{-1/2}, which is increasing and concave (Moré and Sorensen, 1983): from
 * below the root the iterates rise monotonically to it, from above one step lands below it. Halley's
 * step replaces Newton's when `curve` gives f″. A step that leaves the bracket, which every evaluation
 * narrows, is replaced by bisection (rounding guard). The stopping tests look at Newton's step.
 * Stops when the Newton step is at most tolerance·ν (tested first: at the root, rounding may put a
 * null step on the bracket's edge) or the bracket is 4ε narrow, returning that last step's ν (not
 * evaluated); or, returning the ν evaluated, when f equals target or rounding in f shows (a step from
 * below the root past a ν evaluated above it): f then fixes ν no closer. `curve` holds f at the last
 * ν evaluated, `curve.at`'s argument.
 */
function secularNewton(curve: SquaredNorm, target: number, lo: number, hi: number, start: number, tolerance: number): number {
  const radius = Math.sqrt(target);
  let nu = start > lo && start < hi ? start : lo;
  /** Whether hi is a ν evaluated above the root (f < target), not only a bound. */
  let above = false;
  for (let iteration = 0; iteration < 100; iteration++) {
    curve.at(nu);
    const f = curve.value;
    const df = curve.slope;
    if (f === target) return nu;
    if (f > target) {
      lo = nu;
    } else {
      hi = nu;
      above = true;
    }
    const delta = newtonStep(f, df, radius);
    let next = nu + delta;
    if (Math.abs(next - nu) <= tolerance * Math.max(nu, next)) return next;
    // From below the root Newton stays below it: a step past a ν seen above it is rounding in f.
    if (f > target && above && next >= hi) return nu;
    if (!Number.isNaN(curve.curvature)) next = nu + halleyStep(delta, f, df, curve.curvature);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (hi - lo <= 4 * Number.EPSILON * hi) return next;
    nu = next;
  }
  return nu;
}

/** f(ν) = Σ a_i/(b_i+ν)², eq. (24): ‖W(ν)‖² in an eigenbasis. */
class SecularSum implements SquaredNorm {
  value = 0;
  slope = 0;
  readonly curvature = NaN;

  constructor(
    private readonly count: number,
    private readonly a: Float64Array,
    private readonly b: Float64Array,
  ) {}

  at(nu: number): void {
    const { count, a, b } = this;
    let f = 0;
    let df = 0;
    for (let i = 0; i < count; i++) {
      const inv = 1 / (b[i] + nu);
      const term = a[i] * inv * inv;
      f += term;
      df -= 2 * term * inv;
    }
    this.value = f;
    this.slope = df;
  }
}

/**
 * Returns the root ν of Σ a_i/(b_i+ν)² = target (a_i ≥ 0, b_i > 0, f(0) > target > 0) to machine
 * precision, by `secularNewton` from the lower end of the bracket below.
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
  const lo = Math.max(0, Math.sqrt(total) / radius - bMax);
  const hi = Math.max(lo, Math.sqrt(total) / radius - bMin);
  return secularNewton(new SecularSum(count, a, b), target, lo, hi, lo, 4 * Number.EPSILON);
}

/**
 * The M-norm projection onto the ball ‖θ‖₂ ≤ S done exactly, eq. (9): with M = QΛQᵀ,
 * θ = Q diag(μ/(μ+ν)) Qᵀθ' and ν the root of Σ μ_i²(q_iᵀθ')²/(μ_i+ν)² = S². O(n³), for the exact
 * policies (OFUL-MLogB's textbook H̃, OL2M's and MNL-UCB's design matrix) in the rounds that leave the ball.
 * Its buffers are allocated on first use; the eigenvectors stay factored (no O(n³) back-transformation).
 */
export class ExactBallProjection {
  private readonly n: number;
  /** Where the eigensolver keeps its arrays (its kernels then run as WebAssembly), when given. */
  private readonly space: Workspace | undefined;
  private work: { matrix: Float64Array; values: Float64Array; eigen: SymmetricEigen; coordinates: Float64Array; a: Float64Array } | null = null;
  private nu = NaN;

  constructor(n: number, space?: Workspace) {
    this.n = n;
    this.space = space;
  }

  /** The n×n buffer the caller fills with M before `project` (which overwrites it); only its lower triangle is read. */
  matrix(): Float64Array {
    const n = this.n;
    this.work ??= { matrix: new Float64Array(n * n), values: new Float64Array(n), eigen: new SymmetricEigen(n, this.space), coordinates: new Float64Array(n), a: new Float64Array(n) };
    return this.work.matrix;
  }

  /**
   * M's eigenvalues (Householder reduction, then QL without vectors: numpy's eigvalsh) for M as put in
   * `matrix()`, which it overwrites: the decomposition's cost for a caller that pays it in the rounds
   * that do not project (OFUL-MLogB's textbook solver), where the eigenvectors would go unused.
   */
  eigenvalues(): void {
    const { matrix, values, eigen } = this.filled();
    eigen.eigenvalues(this.n, matrix, 0, this.n, values);
  }

  /** In place: `point` (length n, outside the ball) becomes its M-norm projection, M as put in `matrix()`. */
  project(point: Float64Array, normBound: number): void {
    const n = this.n;
    const { matrix, values, eigen, coordinates, a } = this.filled();
    eigen.decomposeFactored(n, matrix, 0, n, values);
    eigen.applyVectorsTransposed(point, coordinates);
    for (let i = 0; i < n; i++) a[i] = coordinates[i] * coordinates[i] * values[i] * values[i];
    const nu = secularRoot(n, a, values, normBound * normBound);
    for (let i = 0; i < n; i++) coordinates[i] *= values[i] / (values[i] + nu);
    eigen.applyVectors(coordinates, point);
    this.nu = nu;
  }

  /** The buffers, once `matrix()` has allocated them. */
  private filled(): NonNullable<typeof this.work> {
    if (this.work === null) throw new Error('ExactBallProjection: fill matrix() before eigenvalues() or project()');
    return this.work;
  }

  /** ν of the last projection (NaN before the first). */
  get multiplier(): number {
    return this.nu;
  }

  get byteLength(): number {
    const work = this.work;
    return work === null ? 0 : work.matrix.byteLength + 3 * work.values.byteLength + work.eigen.byteLength;
  }
}

/**
 * The M-norm projection onto the ball ‖θ‖₂ ≤ S, eq. (9), as a trust-region subproblem without an
 * eigendecomposition (Moré and Sorensen, 1983): for θ' outside the ball, θ(ν) = (M+νI)⁻¹Mθ' with
 * ‖θ(ν)‖ = S, ν > 0 (KKT: M(θ − θ') + νθ = 0). `secularNewton` on ν; each evaluation is one Cholesky
 * factorisation M + νI = LLᵀ (dpotrf) and two solves with it, f′(ν) = −2θᵀ(M+νI)⁻¹θ: ≈ n³/3 flops
 * per factorisation, typically 2–4 of them. Its arrays live in a Workspace (WebAssembly kernels),
 * allocated on first use.
 */
export class TrustRegionProjection implements SquaredNorm {
  value = 0;
  slope = 0;
  curvature = 0;
  /** Cholesky factorisations of M + νI taken so far. */
  factorizations = 0;
  private readonly n: number;
  /** A lower bound on M's eigenvalues (OFUL-MLogB's H̃ ⪰ λI), 0 when none is known. */
  private readonly floor: number;
  private readonly space: Workspace | null;
  private work: {
    matrix: Float64Array;
    factor: Float64Array;
    rhs: Float64Array;
    solution: Float64Array;
    direction: Float64Array;
    second: Float64Array;
  } | null = null;
  /** ν of the last `at`, and of the last projection (the next one starts there: consecutive M differ little). */
  private evaluated = NaN;
  private nu = NaN;

  /** `space`: where the arrays live (a workspace of their own when absent). */
  constructor(n: number, options: { space?: Workspace; floor?: number } = {}) {
    this.n = n;
    this.floor = options.floor ?? 0;
    this.space = options.space ?? null;
    if (!(this.floor >= 0 && this.floor < Infinity)) throw new Error(`TrustRegionProjection: floor must be finite and ≥ 0, got ${this.floor}`);
  }

  /** The n×n buffer the caller fills with M (symmetric positive definite) before `project`; kept. */
  matrix(): Float64Array {
    const n = this.n;
    if (this.work === null) {
      const space = this.space ?? new Workspace(8 * (2 * n * n + 4 * n) + 4096);
      const vector = () => space.float64(n);
      this.work = { matrix: space.float64(n * n), factor: space.float64(n * n), rhs: vector(), solution: vector(), direction: vector(), second: vector() };
    }
    return this.work.matrix;
  }

  /** ν of the last projection (NaN before the first). */
  get multiplier(): number {
    return this.nu;
  }

  /**
   * θ(ν) = (M+νI)⁻¹Mθ' into `solution`, (M+νI)⁻¹θ(ν) into `direction`; f = ‖θ‖², f′ = −2θᵀ(M+νI)⁻¹θ,
   * f″ = 6‖(M+νI)⁻¹θ‖² (f⁽ᵏ⁾ = (−1)ᵏ(k+1)! θᵀ(M+νI)⁻ᵏθ).
   */
  at(nu: number): void {
    const n = this.n;
    const { matrix, factor, rhs, solution, direction } = this.work as NonNullable<typeof this.work>;
    factor.set(matrix);
    for (let i = 0; i < n; i++) factor[i * n + i] += nu;
    this.factorizations++;
    if (!cholesky(n, factor, 0, n)) throw new Error(`TrustRegionProjection: M + νI is not positive definite (ν = ${nu})`);
    solution.set(rhs);
    choleskySolve(n, factor, 0, n, solution, 0);
    direction.set(solution);
    choleskySolve(n, factor, 0, n, direction, 0);
    this.value = dot(n, solution, 0, solution, 0);
    this.slope = -2 * dot(n, solution, 0, direction, 0);
    this.curvature = 6 * dot(n, direction, 0, direction, 0);
    this.evaluated = nu;
  }

  /** In place: `point` (length n) becomes its M-norm projection onto ‖θ‖ ≤ S, M as put in `matrix()`. */
  project(point: Float64Array, normBound: number): void {
    if (this.work === null) throw new Error('TrustRegionProjection: fill matrix() before project()');
    const n = this.n;
    const S = normBound;
    const { matrix, factor, rhs, solution, direction, second } = this.work;
    const norm = Math.sqrt(dot(n, point, 0, point, 0));
    if (norm <= S) return;
    gemv(n, n, matrix, 0, n, point, 0, rhs, 0);
    // Bracket: with M's spectrum in [floor, ‖M‖_F], ‖θ(ν)‖ lies between ‖Mθ'‖/(μ+ν) and between
    // μ/(μ+ν)·‖θ'‖ at its two ends; each bound equal to S bounds ν. The last projection's ν starts.
    const top = Math.sqrt(dot(n * n, matrix, 0, matrix, 0));
    const pulled = Math.sqrt(dot(n, rhs, 0, rhs, 0));
    const lo = Math.max(0, pulled / S - top, this.floor * (norm / S - 1));
    const hi = Math.max(lo, Math.min(pulled / S - this.floor, top * (norm / S - 1)));
    // Stopping rule: a Newton step δ ≤ 2·10⁻⁶·ν, then from the last ν factored one Halley step Δ and
    // θ(ν+Δ) = θ − Δ(M+νI)⁻¹θ + Δ²(M+νI)⁻²θ, without another factorisation. With r_i = 1/(μ_i+ν) ≤ 1/ν,
    // |h″/h′| ≤ 3/ν and |h‴/h′| ≤ 27/ν² (moments of r), so the root is within 7δ³/ν² < ε·ν/3 of ν+Δ and
    // the series' remainder is below (Δ/ν)³‖θ‖ < ε‖θ‖/25: θ at the returned ν, both to machine precision.
    const last = secularNewton(this, S * S, lo, hi, this.nu, 2e-6);
    const base = this.evaluated;
    let step = 0;
    if (last !== base) {
      step = halleyStep(newtonStep(this.value, this.slope, S), this.value, this.slope, this.curvature);
      second.set(direction);
      choleskySolve(n, factor, 0, n, second, 0);
    }
    for (let i = 0; i < n; i++) point[i] = solution[i] - step * (direction[i] - step * second[i]);
    this.nu = base + step;
  }

  get byteLength(): number {
    const work = this.work;
    return work === null ? 0 : work.matrix.byteLength + work.factor.byteLength + 4 * work.rhs.byteLength;
  }
}
