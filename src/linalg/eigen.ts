/**
 * Full eigendecomposition of a real symmetric matrix: Householder tridiagonalisation followed by the
 * implicit QL iteration with Wilkinson shifts — the EISPACK tred2/tql2 pair as transcribed in JAMA,
 * rewritten for row-major storage.
 *
 * JAMA keeps the orthogonal matrix V in columns and walks down them; here the working copy holds
 * W = Vᵀ, so each Householder update, each accumulation step and each Givens rotation of the QL sweep
 * runs along a row of W (contiguous memory). W is transposed into the caller's `vectors` at the end.
 */

const EPS = 2 ** -52;

/** Reusable workspace for the eigendecomposition of symmetric matrices of order ≤ maxN. */
export class SymmetricEigen {
  /** Largest order this workspace accepts. */
  readonly maxN: number;
  /** W = Vᵀ, the transposed accumulated orthogonal transform (n×n, ld = n). */
  private readonly w: Float64Array;
  /** Diagonal of the tridiagonal matrix, then the eigenvalues (unsorted). */
  private readonly d: Float64Array;
  /** Off-diagonal of the tridiagonal matrix. */
  private readonly e: Float64Array;
  /** Cosines and sines of the current QL sweep's Givens rotations (rotation i acts on rows i, i+1 of W). */
  private readonly rotC: Float64Array;
  private readonly rotS: Float64Array;
  /** Permutation putting the eigenvalues in descending order. */
  private readonly order: Int32Array;

  /** Allocates all workspace for matrices of order up to maxN. */
  constructor(maxN: number) {
    if (!Number.isInteger(maxN) || maxN < 0) {
      throw new Error(`SymmetricEigen: maxN must be a non-negative integer, got ${maxN}`);
    }
    this.maxN = maxN;
    this.w = new Float64Array(maxN * maxN);
    this.d = new Float64Array(maxN);
    this.e = new Float64Array(maxN);
    this.rotC = new Float64Array(maxN);
    this.rotS = new Float64Array(maxN);
    this.order = new Int32Array(maxN);
  }

  /**
   * Eigendecomposition of the symmetric n×n matrix at a[aOff], row stride lda (only the lower triangle
   * is read; `a` is not modified): values[0..n) in descending order, `vectors` row-major n×n (ld = n)
   * with column j the unit eigenvector of values[j].
   */
  decompose(
    n: number,
    a: Float64Array,
    aOff: number,
    lda: number,
    values: Float64Array,
    vectors: Float64Array,
  ): void {
    if (!Number.isInteger(n) || n < 0) {
      throw new Error(`SymmetricEigen: order n must be a non-negative integer, got ${n}`);
    }
    if (n > this.maxN) {
      throw new Error(`SymmetricEigen: order n = ${n} exceeds the workspace's maxN = ${this.maxN}`);
    }
    if (n === 0) return;
    if (lda < n || aOff < 0 || aOff + (n - 1) * lda + n > a.length) {
      throw new Error(
        `SymmetricEigen: matrix of order ${n} at offset ${aOff}, lda ${lda} does not fit in an array of length ${a.length}`,
      );
    }
    if (values.length < n || vectors.length < n * n) {
      throw new Error(`SymmetricEigen: output arrays too short for order ${n}`);
    }
    const w = this.w;
    // W ← A (symmetric, from the lower triangle), checking every entry read.
    for (let i = 0; i < n; i++) {
      const ra = aOff + i * lda;
      for (let j = 0; j <= i; j++) {
        const v = a[ra + j];
        if (!Number.isFinite(v)) {
          throw new Error(`SymmetricEigen: non-finite entry at (${i}, ${j})`);
        }
        w[i * n + j] = v;
        w[j * n + i] = v;
      }
    }
    if (n === 1) {
      values[0] = w[0];
      vectors[0] = 1;
      return;
    }
    this.tridiagonalize(n);
    this.diagonalize(n);
    this.writeSorted(n, values, vectors);
  }

  /** Householder reduction to tridiagonal form, accumulating W = Vᵀ (EISPACK tred2). */
  private tridiagonalize(n: number): void {
    const w = this.w;
    const d = this.d;
    const e = this.e;
    const last = (n - 1) * n;
    for (let j = 0; j < n; j++) d[j] = w[last + j];

    for (let i = n - 1; i > 0; i--) {
      // Scale row i to avoid under/overflow, then build the Householder vector in d[0..i).
      let scale = 0;
      let h = 0;
      for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
      if (scale === 0) {
        e[i] = d[i - 1];
        for (let j = 0; j < i; j++) {
          d[j] = w[j * n + i - 1];
          w[j * n + i] = 0;
          w[i * n + j] = 0;
        }
      } else {
        for (let k = 0; k < i; k++) {
          d[k] /= scale;
          h += d[k] * d[k];
        }
        let f = d[i - 1];
        let g = Math.sqrt(h);
        if (f > 0) g = -g;
        e[i] = scale * g;
        h -= f * g;
        d[i - 1] = f - g;
        for (let j = 0; j < i; j++) e[j] = 0;

        // e ← (trailing block) · u, reading the block's upper triangle of W row by row.
        const ri = i * n;
        for (let j = 0; j < i; j++) {
          const rj = j * n;
          f = d[j];
          w[ri + j] = f;
          g = e[j] + w[rj + j] * f;
          for (let k = j + 1; k < i; k++) {
            const wjk = w[rj + k];
            g += wjk * d[k];
            e[k] += wjk * f;
          }
          e[j] = g;
        }
        f = 0;
        for (let j = 0; j < i; j++) {
          e[j] /= h;
          f += e[j] * d[j];
        }
        const hh = f / (h + h);
        for (let j = 0; j < i; j++) e[j] -= hh * d[j];

        // Rank-2 update of the trailing block: B ← B − u·eᵀ − e·uᵀ.
        for (let j = 0; j < i; j++) {
          const rj = j * n;
          f = d[j];
          g = e[j];
          for (let k = j; k < i; k++) w[rj + k] -= f * e[k] + g * d[k];
          d[j] = w[rj + i - 1];
          w[rj + i] = 0;
        }
      }
      d[i] = h;
    }

    // Accumulate the Householder reflections into W.
    for (let i = 0; i < n - 1; i++) {
      const ri = i * n;
      const ri1 = ri + n;
      w[ri + n - 1] = w[ri + i];
      w[ri + i] = 1;
      const h = d[i + 1];
      if (h !== 0) {
        // Rows j of the leading (i+1)×(i+1) block: w_j ← w_j − ⟨u, w_j⟩·u/h, u = row i+1 of W.
        // Two rows per pass share the loads of u and d.
        const len = i + 1;
        for (let k = 0; k < len; k++) d[k] = w[ri1 + k] / h;
        let j = 0;
        for (; j + 1 < len; j += 2) {
          const r0 = j * n;
          const r1 = r0 + n;
          let g0 = 0;
          let g1 = 0;
          for (let k = 0; k < len; k++) {
            const u = w[ri1 + k];
            g0 += u * w[r0 + k];
            g1 += u * w[r1 + k];
          }
          for (let k = 0; k < len; k++) {
            const dk = d[k];
            w[r0 + k] -= g0 * dk;
            w[r1 + k] -= g1 * dk;
          }
        }
        if (j < len) {
          const r0 = j * n;
          let g0 = 0;
          for (let k = 0; k < len; k++) g0 += w[ri1 + k] * w[r0 + k];
          for (let k = 0; k < len; k++) w[r0 + k] -= g0 * d[k];
        }
      }
      for (let k = 0; k <= i; k++) w[ri1 + k] = 0;
    }
    for (let j = 0; j < n; j++) {
      d[j] = w[j * n + n - 1];
      w[j * n + n - 1] = 0;
    }
    w[last + n - 1] = 1;
    e[0] = 0;
  }

  /** Implicit QL iteration with Wilkinson shifts on the tridiagonal (d, e), rotating rows of W (EISPACK tql2). */
  private diagonalize(n: number): void {
    const w = this.w;
    const d = this.d;
    const e = this.e;
    const rc = this.rotC;
    const rs = this.rotS;
    for (let i = 1; i < n; i++) e[i - 1] = e[i];
    e[n - 1] = 0;

    const maxIterations = 30 * n;
    let iterations = 0;
    let f = 0;
    let tst1 = 0;
    for (let l = 0; l < n; l++) {
      // Find a small subdiagonal element.
      tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
      let m = l;
      while (m < n - 1) {
        if (Math.abs(e[m]) <= EPS * tst1) break;
        m++;
      }
      // If m == l, d[l] is already an eigenvalue; otherwise iterate.
      if (m > l) {
        do {
          if (++iterations > maxIterations) {
            throw new Error(
              `SymmetricEigen: QL iteration did not converge in ${maxIterations} iterations (order ${n})`,
            );
          }
          // Wilkinson shift.
          let g = d[l];
          let p = (d[l + 1] - g) / (2 * e[l]);
          let r = hypot(p, 1);
          if (p < 0) r = -r;
          d[l] = e[l] / (p + r);
          d[l + 1] = e[l] * (p + r);
          const dl1 = d[l + 1];
          let h = g - d[l];
          for (let i = l + 2; i < n; i++) d[i] -= h;
          f += h;

          // Implicit QL transformation.
          p = d[m];
          let c = 1;
          let c2 = c;
          let c3 = c;
          const el1 = e[l + 1];
          let s = 0;
          let s2 = 0;
          for (let i = m - 1; i >= l; i--) {
            c3 = c2;
            c2 = c;
            s2 = s;
            g = c * e[i];
            h = c * p;
            r = hypot(p, e[i]);
            e[i + 1] = s * r;
            s = e[i] / r;
            c = p / r;
            p = c * d[i] - s * g;
            d[i + 1] = h + s * (c * g + s * d[i]);
            rc[i] = c;
            rs[i] = s;
          }
          applyRotations(n, w, l, m, rc, rs);
          p = (-s * s2 * c3 * el1 * e[l]) / dl1;
          e[l] = s * p;
          d[l] = c * p;
        } while (Math.abs(e[l]) > EPS * tst1);
      }
      d[l] += f;
      e[l] = 0;
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(d[i])) {
        throw new Error(`SymmetricEigen: non-finite eigenvalue (overflow) for order ${n}`);
      }
    }
  }

  /** Eigenvalues in descending order into values, and Wᵀ with columns permuted alike into vectors. */
  private writeSorted(n: number, values: Float64Array, vectors: Float64Array): void {
    const d = this.d;
    const w = this.w;
    const order = this.order;
    // Insertion sort of indices by descending eigenvalue (stable; nearly sorted input is cheap).
    for (let i = 0; i < n; i++) {
      const di = d[i];
      let j = i - 1;
      while (j >= 0 && d[order[j]] < di) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
    }
    for (let j = 0; j < n; j++) {
      const src = order[j] * n;
      values[j] = d[order[j]];
      for (let r = 0; r < n; r++) vectors[r * n + j] = w[src + r];
    }
  }
}

/**
 * Applies one QL sweep's rotations to W: rotation i (for i = m−1 down to l) maps rows (i, i+1) to
 * (c·x − s·y, s·x + c·y). Two consecutive rotations share row i, so they are fused into one pass over
 * three rows: each row is loaded and stored once per pair instead of twice.
 */
function applyRotations(
  n: number,
  w: Float64Array,
  l: number,
  m: number,
  rc: Float64Array,
  rs: Float64Array,
): void {
  let i = m - 1;
  for (; i - 1 >= l; i -= 2) {
    const c1 = rc[i];
    const s1 = rs[i];
    const c0 = rc[i - 1];
    const s0 = rs[i - 1];
    const r0 = (i - 1) * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    for (let k = 0; k < n; k++) {
      const x = w[r1 + k];
      const y = w[r2 + k];
      const z = w[r0 + k];
      w[r2 + k] = s1 * x + c1 * y;
      const x1 = c1 * x - s1 * y;
      w[r1 + k] = s0 * z + c0 * x1;
      w[r0 + k] = c0 * z - s0 * x1;
    }
  }
  if (i >= l) {
    const c = rc[i];
    const s = rs[i];
    const r0 = i * n;
    const r1 = r0 + n;
    for (let k = 0; k < n; k++) {
      const x = w[r0 + k];
      const y = w[r1 + k];
      w[r1 + k] = s * x + c * y;
      w[r0 + k] = c * x - s * y;
    }
  }
}

/** √(a² + b²) without destructive under/overflow. */
function hypot(a: number, b: number): number {
  const x = Math.abs(a);
  const y = Math.abs(b);
  if (x > y) {
    const t = y / x;
    return x * Math.sqrt(1 + t * t);
  }
  if (y === 0) return 0;
  const t = x / y;
  return y * Math.sqrt(1 + t * t);
}
