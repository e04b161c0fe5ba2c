/**
 * The 1-D root of Lemma 2: find ν > 0 with f(ν) = Σ_i a_i / (b_i + ν)² = S², eq. (24), eq. (25).
 * Both policies reduce the Z̃-norm projection onto ‖W‖_F ≤ S, eq. (9), to this form: EOFD-MLogB with
 * the m+K sketch directions plus the λ-complement, OFUL-MLogB with the full eigenbasis of H̃.
 */

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
