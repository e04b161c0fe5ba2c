/** Deterministic random matrices and dense reference helpers shared by the linalg tests. */

import { Matrix } from 'ml-matrix';
import { mulberry32 } from '../../src/random/stream.js';

/** Machine epsilon for float64. */
export const EPS = 2 ** -52;

export { mulberry32 } from '../../src/random/stream.js';

/** Uniform in [−1, 1). */
export function symmetricUniform(rand: () => number): number {
  return 2 * rand() - 1;
}

/** A dense rows×cols matrix as plain nested arrays, entries uniform in [−1, 1). */
export function randomDense(rows: number, cols: number, rand: () => number): number[][] {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => symmetricUniform(rand)));
}

/** A random symmetric n×n matrix, entries uniform in [−1, 1). */
export function randomSymmetric(n: number, rand: () => number): number[][] {
  const a = randomDense(n, n, rand);
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) a[j][i] = a[i][j];
  return a;
}

/** A random orthogonal n×n matrix: the product of n Householder reflections with random directions. */
export function randomOrthogonal(n: number, rand: () => number): number[][] {
  const q = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let r = 0; r < n; r++) {
    const v = Array.from({ length: n }, () => symmetricUniform(rand));
    const vv = v.reduce((s, x) => s + x * x, 0);
    // q ← q (I − 2vvᵀ/vᵀv)
    for (let i = 0; i < n; i++) {
      let qv = 0;
      for (let k = 0; k < n; k++) qv += q[i][k] * v[k];
      const f = (2 * qv) / vv;
      for (let k = 0; k < n; k++) q[i][k] -= f * v[k];
    }
  }
  return q;
}

/** Q diag(λ) Qᵀ, exactly symmetrised. */
export function withSpectrum(q: number[][], lambda: number[]): number[][] {
  const n = lambda.length;
  const a = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += q[i][k] * lambda[k] * q[j][k];
      a[i][j] = s;
      a[j][i] = s;
    }
  }
  return a;
}

/** Naive product of dense matrices (triple loop). */
export function matmul(a: number[][], b: number[][]): number[][] {
  const m = a.length;
  const k = b.length;
  const n = k === 0 ? 0 : b[0].length;
  return Array.from({ length: m }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i][p] * b[p][j];
      return s;
    }),
  );
}

/** Transpose of a dense matrix with the given number of columns. */
export function transpose(a: number[][], cols: number): number[][] {
  return Array.from({ length: cols }, (_, j) => a.map((row) => row[j]));
}

/** Frobenius norm of a dense matrix. */
export function frobenius(a: number[][]): number {
  let s = 0;
  for (const row of a) for (const x of row) s += x * x;
  return Math.sqrt(s);
}

/** Largest |a_ij − b_ij|. */
export function maxAbsDiff(a: number[][], b: number[][]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < a[i].length; j++) worst = Math.max(worst, Math.abs(a[i][j] - b[i][j]));
  }
  return worst;
}

/** A strided view of a matrix embedded in a larger buffer: buffer, offset, leading dimension. */
export interface Embedded {
  buf: Float64Array;
  off: number;
  ld: number;
}

/**
 * Embeds a rows×cols matrix at offset `off` with leading dimension `ld` ≥ cols in a buffer whose other
 * cells all hold `fill` (a sentinel to detect stray reads or writes).
 */
export function embed(a: number[][], cols: number, off: number, ld: number, fill = 0): Embedded {
  const rows = a.length;
  const buf = new Float64Array(off + Math.max(0, rows - 1) * ld + cols + 3).fill(fill);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) buf[off + i * ld + j] = a[i][j];
  return { buf, off, ld };
}

/** Reads a rows×cols matrix back out of a strided buffer. */
export function extract(e: Embedded, rows: number, cols: number): number[][] {
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => e.buf[e.off + i * e.ld + j]),
  );
}

/** Converts nested arrays to an ml-matrix Matrix (the independent reference). */
export function toMatrix(a: number[][]): Matrix {
  return new Matrix(a);
}
