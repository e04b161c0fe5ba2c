/**
 * `eofd bench --linalg`: eofd's dense kernels (src/linalg/) side by side with numpy single-thread on the
 * same symmetric positive definite matrices, as best-of-N times and their ratio eofd ÷ numpy.
 * The matrix of order n is A = XXᵀ/n + I, X with i.i.d. unit-variance uniform entries (a
 * Marchenko–Pastur spectrum in [1, 5]: no clustering for divide and conquer to deflate), built once per
 * n and handed to numpy through a file (numpy.ts). eofd runs under each backend with its arrays in a
 * `Workspace` (under wasm, the kernels run as WebAssembly).
 *
 * Also the operation-equivalents of policy rows (`numpyTargets`): the numpy operations that do the
 * dense work of one OFUL-MLogB round or projection at n = Kd.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gemmNNUpdate, gemmNT } from '../linalg/blas.js';
import { cholesky, spdInverse } from '../linalg/cholesky.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { withBackend, Workspace, type Backend } from '../linalg/simd.js';
import { Mulberry32Stream } from '../random/stream.js';
import type { BenchPoint } from './measure.js';
import { NUMPY_OPERATIONS, numpyAbsence, TIMED_SECONDS, WARMUP_SECONDS, type NumpyLinalg, type NumpyOperation } from './numpy.js';

/** Each timed eofd operation and the numpy/scipy call that does the same work. */
export const LINALG_OPERATIONS = [
  { name: 'cholesky', eofd: 'cholesky', numpy: 'potrf' },
  { name: 'spdInverse', eofd: 'spdInverse', numpy: 'potrf+potri' },
  { name: 'tridiagonalize', eofd: 'SymmetricEigen.tridiagonalize', numpy: 'sytrd' },
  { name: 'decomposeFactored', eofd: 'SymmetricEigen.decomposeFactored', numpy: 'eigvalsh' },
  { name: 'decompose', eofd: 'SymmetricEigen.decompose', numpy: 'eigh' },
  { name: 'gemm', eofd: 'gemmNNUpdate', numpy: 'dot' },
] as const satisfies readonly { name: string; eofd: string; numpy: NumpyOperation }[];

export type LinalgOperation = (typeof LINALG_OPERATIONS)[number];
export type LinalgOperationName = LinalgOperation['name'];

/** Largest relative eigenvalue difference from numpy's that still reads as "the same matrix". */
export const EIGENVALUE_AGREEMENT = 1e-9;

/** A = XXᵀ/n + I (row-major n×n, exactly symmetric), X n×n with entries uniform on [−√3, √3) from mulberry32(seed). */
export function spdMatrix(n: number, seed: number): Float64Array {
  const stream = new Mulberry32Stream(seed);
  const space = new Workspace(8 * 2 * n * n);
  const x = space.float64(n * n);
  const a = space.float64(n * n);
  const scale = Math.sqrt(3);
  for (let i = 0; i < x.length; i++) x[i] = scale * (2 * stream.uniform() - 1);
  gemmNT(n, n, n, x, 0, n, x, 0, n, a, 0, n);
  const result = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) result[i * n + j] = result[j * n + i] = a[i * n + j] / n + (i === j ? 1 : 0);
  }
  return result;
}

/** eofd's best times at one n under one backend, and the eigenvalues it found (descending). */
export interface EofdLinalg {
  ms: Record<LinalgOperationName, number>;
  eigenvalues: Float64Array;
}

/** Seconds of untimed calls, and the least total of timed ones (numpy.ts's timing rule). */
export interface LinalgTiming {
  warmupSeconds: number;
  timedSeconds: number;
}

export const LINALG_TIMING: LinalgTiming = { warmupSeconds: WARMUP_SECONDS, timedSeconds: TIMED_SECONDS };

/** Best time of `body`, ms: untimed calls for `warmupSeconds` (at least one), then ≥ `repeats` timed calls and ≥ `timedSeconds` of them. */
function bestMs(body: () => void, repeats: number, timing: LinalgTiming): number {
  const warmupStart = performance.now();
  do body();
  while (performance.now() - warmupStart < 1e3 * timing.warmupSeconds);
  let best = Infinity;
  let total = 0;
  for (let r = 0; r < repeats || total < 1e3 * timing.timedSeconds; r++) {
    const start = performance.now();
    body();
    const elapsed = performance.now() - start;
    best = Math.min(best, elapsed);
    total += elapsed;
  }
  return best;
}

/**
 * Times every LINALG_OPERATIONS entry on `matrix` (n×n SPD) under `backend`: inputs, outputs and the
 * eigensolver's workspace in one Workspace. Cholesky factors a copy of A (the copy is timed, as
 * dpotrf's own copy is); gemm is C = 0, C += A·A. Throws if A is not positive definite.
 */
export function measureEofdLinalg(matrix: Float64Array, n: number, backend: Backend, repeats: number, timing: LinalgTiming = LINALG_TIMING): EofdLinalg {
  return withBackend(backend, () => {
    const space = new Workspace(8 * (6 * n * n + 8 * n), backend);
    const a = space.float64(n * n);
    a.set(matrix);
    const factor = space.float64(n * n);
    const out = space.float64(n * n);
    const work = space.float64(n * n + n);
    const vectors = space.float64(n * n);
    const values = space.float64(n);
    const diagonal = space.float64(n);
    const offDiagonal = space.float64(n);
    const eigen = new SymmetricEigen(n, space);
    const notPositiveDefinite = (name: string) => new Error(`${name}: the bench matrix is not positive definite`);
    const bodies: Record<LinalgOperationName, () => void> = {
      cholesky: () => {
        factor.set(a);
        if (!cholesky(n, factor, 0, n)) throw notPositiveDefinite('cholesky');
      },
      spdInverse: () => {
        if (!spdInverse(n, a, 0, n, out, 0, n, work)) throw notPositiveDefinite('spdInverse');
      },
      tridiagonalize: () => eigen.tridiagonalize(n, a, 0, n, diagonal, offDiagonal),
      decomposeFactored: () => eigen.decomposeFactored(n, a, 0, n, values),
      decompose: () => eigen.decompose(n, a, 0, n, values, vectors),
      gemm: () => {
        out.fill(0);
        gemmNNUpdate(n, n, n, 1, a, 0, n, a, 0, n, out, 0, n);
      },
    };
    const ms = {} as Record<LinalgOperationName, number>;
    for (const { name } of LINALG_OPERATIONS) ms[name] = bestMs(bodies[name], repeats, timing);
    eigen.decomposeFactored(n, a, 0, n, values);
    return { ms, eigenvalues: Float64Array.from(values) };
  });
}

/** max_i |λ_i − μ_i| / max_i |μ_i| of two descending spectra of the same length. */
export function eigenvalueDifference(ours: Float64Array, theirs: Float64Array): number {
  if (ours.length !== theirs.length) throw new Error(`eigenvalueDifference: ${ours.length} against ${theirs.length} eigenvalues`);
  let difference = 0;
  let scale = 0;
  for (let i = 0; i < ours.length; i++) {
    difference = Math.max(difference, Math.abs(ours[i] - theirs[i]));
    scale = Math.max(scale, Math.abs(theirs[i]));
  }
  return scale === 0 ? difference : difference / scale;
}

/** eofd ÷ numpy; null when either is absent. */
export function linalgRatio(eofdMs: number | null, numpyMs: number | null): number | null {
  return eofdMs === null || numpyMs === null || !(numpyMs > 0) ? null : eofdMs / numpyMs;
}

/** One operation at one n under one backend. */
export interface LinalgRow {
  n: number;
  backend: Backend;
  operation: LinalgOperation;
  repeats: number;
  /** Best time, ms; null when eofd's measurement failed. */
  eofdMs: number | null;
  numpyMs: number | null;
  /** eigenvalueDifference of eofd's and numpy's spectra of the matrix; null without both. */
  eigenvalueDifference: number | null;
  /** numpy's versions and BLAS; null without numpy. */
  numpy: { numpy: string; scipy: string | null; blas: string } | null;
  /** Why a time is absent, or that the spectra disagree; '' otherwise. */
  note: string;
}

/** The rows of one (n, backend): eofd's measurement (or its failure) beside numpy's. */
export function linalgRows(n: number, backend: Backend, repeats: number, eofd: EofdLinalg | { error: string }, numpy: NumpyLinalg): LinalgRow[] {
  const ours = 'error' in eofd ? null : eofd;
  const difference = ours !== null && numpy.ok ? eigenvalueDifference(ours.eigenvalues, numpy.eigenvalues) : null;
  return LINALG_OPERATIONS.map((operation) => {
    const numpyMs = numpy.ok ? (numpy.ms[operation.numpy] ?? null) : null;
    const notes = [
      'error' in eofd ? `eofd failed: ${eofd.error}` : '',
      numpyAbsence(numpy, operation.numpy),
      difference !== null && !(difference <= EIGENVALUE_AGREEMENT) ? `eigenvalues differ from numpy's by ${difference.toExponential(1)} (relative): not the same matrix?` : '',
    ];
    return {
      n,
      backend,
      operation,
      repeats,
      eofdMs: ours === null ? null : ours.ms[operation.name],
      numpyMs,
      eigenvalueDifference: difference,
      numpy: numpy.ok ? { numpy: numpy.numpy, scipy: numpy.scipy, blas: numpy.blas } : null,
      note: notes.filter((note) => note !== '').join('; '),
    };
  });
}

/** Writes `matrix` as little-endian float64 to a fresh temporary file; returns its path and a remover. */
export function writeMatrixFile(matrix: Float64Array): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-linalg-'));
  const file = path.join(dir, 'matrix.f64');
  const bytes = Buffer.alloc(matrix.length * 8);
  for (let i = 0; i < matrix.length; i++) bytes.writeDoubleLE(matrix[i], 8 * i);
  fs.writeFileSync(file, bytes);
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The time of a policy row that numpy's operations are compared with, at n = Kd. */
export interface NumpyTarget {
  /** 'round': select + update, median; 'projection': an update that projects (eq. (9)), median. */
  measured: 'round' | 'projection';
  operations: readonly NumpyOperation[];
}

/**
 * The numpy operation-equivalents of a point's dense work at n = Kd. OFUL-MLogB's textbook round
 * inverts H from its Cholesky factor and eigendecomposes H̃ without forming its eigenvectors
 * (`decomposeFactored`): dpotrf + dpotri and eigvalsh. Its projection (eq. (9), under either solver)
 * needs H̃'s eigenvectors: eigh. Other policies: none.
 */
export function numpyTargets(point: Pick<BenchPoint, 'policy' | 'ofulSolver'>): NumpyTarget[] {
  if (point.policy !== 'OFUL-MLogB') return [];
  const projection: NumpyTarget = { measured: 'projection', operations: ['eigh'] };
  return point.ofulSolver === 'textbook' ? [{ measured: 'round', operations: ['eigvalsh', 'potrf+potri'] }, projection] : [projection];
}

/** "eigvalsh + potrf+potri" */
export function describeOperations(operations: readonly NumpyOperation[]): string {
  return operations.join(' + ');
}

/** The legend of the numpy operation names: "potrf: scipy.linalg.lapack.dpotrf; …". */
export function numpyLegend(operations: readonly NumpyOperation[]): string {
  return [...new Set(operations)].map((operation) => `${operation}: ${NUMPY_OPERATIONS[operation]}`).join('; ');
}
