import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { axpy, dot, gemmNN, gemmNNUpdate, gemmNT, gemmNTUpdate, gemv, gemvT, ger, symvLower } from '../../src/linalg/blas.js';
import { SymmetricEigen } from '../../src/linalg/eigen.js';
import { Home, Workspace, backend, homeOf, wasmAvailable, withBackend } from '../../src/linalg/simd.js';
import { mulberry32 } from './fixtures.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 13];

/** Bit patterns of a Float64Array, so that −0 ≠ +0 and NaN payloads count. */
function bits(a: Float64Array): bigint[] {
  return Array.from(new BigInt64Array(a.buffer, a.byteOffset, a.length));
}

/** A buffer of `length` values from N(0,1)-ish draws, with exact zeros and −0 sprinkled in. */
function values(random: () => number, length: number): number[] {
  return Array.from({ length }, () => {
    const u = random();
    if (u < 0.03) return 0;
    if (u < 0.05) return -0;
    return (random() - 0.5) * 2 ** Math.floor(8 * random() - 4);
  });
}

/**
 * The same call on plain arrays (TypeScript) and on copies in a workspace memory (WebAssembly): inputs
 * either live in the workspace or are staged from plain arrays, per `foreign`.
 */
function bothBackends(sizes: number[], call: (arrays: Float64Array[]) => number | void, foreign: boolean[], random: () => number) {
  const data = sizes.map((n) => values(random, n));
  const plain = data.map((d) => Float64Array.from(d));
  const jsResult = call(plain);
  const workspace = new Workspace(1 << 16, 'wasm');
  const home = data.map((d, i) => {
    if (foreign[i]) return Float64Array.from(d);
    const a = workspace.float64(d.length);
    a.set(d);
    return a;
  });
  const wasmResult = call(home);
  return { plain, home, jsResult, wasmResult };
}

describe('simd: bad arguments', () => {
  it('an array past a workspace’s maximum is an ordinary Float64Array (its kernels run as TypeScript)', () => {
    const workspace = new Workspace(1024, 'wasm');
    const inside = workspace.float64(4);
    const past = workspace.float64(2 ** 24); // 128 MiB: past the 64 MiB headroom of a 1 KiB workspace
    expect(homeOf(inside)).toBeInstanceOf(Home);
    expect(homeOf(past)).toBeUndefined();
    expect(past.length).toBe(2 ** 24);
  });

  it('the generated kernels are what scripts/simd-kernels.mjs generates', () => {
    // Fails (exit 1, naming the stale file) after an edit of the generator without `npm run simd`.
    expect(() => execFileSync(process.execPath, [path.join(REPO, 'scripts', 'gen-simd.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});

describe('simd: workspaces', () => {
  it('wasm is the default backend on this runtime (unless EOFD_BACKEND chooses)', () => {
    expect(wasmAvailable()).toBe(true);
    expect(backend()).toBe(process.env.EOFD_BACKEND || 'wasm');
  });

  it('hands out zeroed, disjoint, 16-byte aligned arrays that survive the memory growing', () => {
    const workspace = new Workspace(64, 'wasm');
    const first = workspace.float64(3);
    first.set([1, 2, 3]);
    const big = workspace.float64(100_000); // grows the memory
    const third = workspace.float64(5);
    expect(Array.from(first)).toEqual([1, 2, 3]);
    expect(big.every((v) => v === 0) && third.every((v) => v === 0)).toBe(true);
    for (const a of [first, big, third]) expect(a.byteOffset % 16).toBe(0);
    expect(big.byteOffset).toBeGreaterThanOrEqual(first.byteOffset + 24);
    expect(third.byteOffset).toBeGreaterThanOrEqual(big.byteOffset + 800_000);
    expect(homeOf(first)).toBeInstanceOf(Home);
    expect(homeOf(first)).toBe(homeOf(third));
  });

  it('the js backend gives plain arrays, and withBackend restores the previous choice', () => {
    const before = backend();
    const js = withBackend('js', () => new Workspace(64));
    expect(js.home).toBeNull();
    expect(homeOf(js.float64(4))).toBeUndefined();
    const wasm = withBackend('wasm', () => new Workspace(64));
    expect(homeOf(wasm.float64(4))).toBeInstanceOf(Home);
    expect(backend()).toBe(before);
  });
});

describe('simd: every kernel gives the TypeScript kernel’s bits', () => {
  const random = mulberry32(20261201);

  it('dot, axpy (inputs in the workspace or staged)', () => {
    for (const n of [...SIZES, 64, 65, 66, 67, 200, 785]) {
      for (const foreign of [false, true]) {
        const d = bothBackends([n + 3, n + 2], ([x, y]) => dot(n, x!, 3, y!, 2), [foreign, false], random);
        expect(Object.is(d.jsResult, d.wasmResult), `dot n=${n}`).toBe(true);
        const alpha = values(random, 1)[0]! || 0.5;
        const a = bothBackends([n + 1, n + 4], ([x, y]) => axpy(n, alpha, x!, 1, y!, 4), [foreign, false], random);
        expect(bits(a.home[1]!), `axpy n=${n}`).toEqual(bits(a.plain[1]!));
      }
    }
  });

  it('gemv and gemvT with offsets and leading dimensions', () => {
    for (const m of SIZES) {
      for (const n of [...SIZES, 17, 64]) {
        const lda = n + 3;
        const size = Math.max(1, m * lda + 2);
        const r = bothBackends([size, n + 1, m + 2], ([a, x, y]) => gemv(m, n, a!, 2, lda, x!, 1, y!, 2), [false, true, false], random);
        expect(bits(r.home[2]!), `gemv ${m}×${n}`).toEqual(bits(r.plain[2]!));
        const t = bothBackends([size, m + 1, n + 2], ([a, x, y]) => gemvT(m, n, a!, 2, lda, x!, 1, y!, 2), [false, false, false], random);
        expect(bits(t.home[2]!), `gemvT ${m}×${n}`).toEqual(bits(t.plain[2]!));
      }
    }
  });

  it('ger, with zero coefficients skipped as axpy skips them', () => {
    for (const m of SIZES) {
      for (const n of [...SIZES, 31]) {
        const lda = n + 1;
        const r = bothBackends([2 * m + 1, n, Math.max(1, m * lda)], ([x, y, a]) => ger(m, n, -1.5, x!, 1, 2, y!, 0, a!, 0, lda), [true, false, false], random);
        expect(bits(r.home[2]!), `ger ${m}×${n}`).toEqual(bits(r.plain[2]!));
      }
    }
  });

  it('gemmNT over every tile shape, with and without accumulation across k panels', () => {
    for (const m of SIZES) {
      for (const n of SIZES) {
        for (const k of [0, 1, 3, 4, 9, 70]) {
          const lda = k + 1;
          const ldb = k + 2;
          const ldc = n + 3;
          const r = bothBackends(
            [m * lda + 1, n * ldb + 2, m * ldc + 1],
            ([a, b, c]) => gemmNT(m, n, k, a!, 1, lda, b!, 2, ldb, c!, 1, ldc),
            [m % 2 === 1, false, false],
            random,
          );
          expect(bits(r.home[2]!), `gemmNT ${m}×${n}×${k}`).toEqual(bits(r.plain[2]!));
        }
      }
    }
    // k beyond one panel (1024): panels accumulate into C.
    for (const [m, n] of [[5, 6], [1, 3], [4, 4]] as const) {
      const k = 2100;
      const r = bothBackends([m * k, n * k, m * n], ([a, b, c]) => gemmNT(m, n, k, a!, 0, k, b!, 0, k, c!, 0, n), [false, false, false], random);
      expect(bits(r.home[2]!), `gemmNT ${m}×${n}×${k}`).toEqual(bits(r.plain[2]!));
    }
  });

  it('gemmNNUpdate and gemmNN over every row and k remainder', () => {
    for (const m of SIZES) {
      for (const n of SIZES) {
        for (const k of [0, 1, 3, 4, 5, 8, 11, 67]) {
          const lda = k + 2;
          const ldb = n + 1;
          const ldc = n + 2;
          const r = bothBackends(
            [m * lda + 1, k * ldb + 1, m * ldc + 3],
            ([a, b, c]) => gemmNNUpdate(m, n, k, -0.75, a!, 1, lda, b!, 1, ldb, c!, 3, ldc),
            [false, k % 2 === 1, false],
            random,
          );
          expect(bits(r.home[2]!), `gemmNNUpdate ${m}×${n}×${k}`).toEqual(bits(r.plain[2]!));
          const s = bothBackends([m * lda + 1, k * ldb + 1, m * ldc + 3], ([a, b, c]) => gemmNN(m, n, k, a!, 1, lda, b!, 1, ldb, c!, 3, ldc), [false, false, false], random);
          expect(bits(s.home[2]!), `gemmNN ${m}×${n}×${k}`).toEqual(bits(s.plain[2]!));
        }
      }
    }
  });

  it('gemmNT and gemmNTUpdate across packed blocks of B, sub-panels of the sum, row blocks, odd m, partial last tiles', () => {
    // Sums of 256 terms pack B by 128 columns; k = 1100 splits into two panels, each into sub-panels of
    // 256 terms: several blocks, a partial last block and tile, the last row's dot-summed columns in the
    // last block; m beyond 256 rows (row blocks of 256, the last with m's parity); n ≤ 8, A read in place.
    for (const [m, n, k] of [[7, 45, 1100], [5, 170, 600], [6, 299, 600], [1, 50, 1100], [259, 9, 300], [300, 13, 40], [261, 7, 600], [5, 8, 1100]] as const) {
      const lda = k + 1;
      const ldb = k + 2;
      const ldc = n + 3;
      for (const update of [false, true]) {
        const r = bothBackends(
          [m * lda + 1, n * ldb + 2, m * ldc + 1],
          ([a, b, c]) => (update ? gemmNTUpdate : gemmNT)(m, n, k, a!, 1, lda, b!, 2, ldb, c!, 1, ldc),
          [false, false, false],
          random,
        );
        expect(bits(r.home[2]!), `${update ? 'gemmNTUpdate' : 'gemmNT'} ${m}×${n}×${k}`).toEqual(bits(r.plain[2]!));
      }
    }
  });

  it('the QL eigensolver’s row rotations: the same eigenpairs, bit for bit, with W in a workspace', () => {
    for (const n of [2, 3, 7, 8, 44, 45, 95]) {
      const data = values(random, n * n);
      const a = Float64Array.from(data);
      for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) a[j * n + i] = a[i * n + j];
      const plain = new SymmetricEigen(n);
      const simd = new SymmetricEigen(n, new Workspace(1024, 'wasm'));
      const out = [plain, simd].map((solver) => {
        const v = new Float64Array(n);
        const z = new Float64Array(n * n);
        solver.decompose(n, a, 0, n, v, z);
        return { v, z };
      });
      expect(bits(out[1]!.v), `eigenvalues n=${n}`).toEqual(bits(out[0]!.v));
      expect(bits(out[1]!.z), `eigenvectors n=${n}`).toEqual(bits(out[0]!.z));
    }
  });

  it('gemmNNUpdate over more columns (1024) or terms (256) than one panel: every panel gives the same bits', () => {
    // Several packed blocks of B (nc columns), more row tiles than one, partial last tiles.
    for (const [m, n, k] of [[3, 2500, 6], [5, 1025, 9], [1, 3000, 4], [5, 1030, 301], [2, 7, 129], [63, 37, 130], [64, 37, 130], [70, 1030, 9], [67, 6, 3], [66, 40, 517]] as const) {
      const r = bothBackends([m * k, k * (n + 1), m * (n + 2)], ([a, b, c]) => gemmNNUpdate(m, n, k, 1.25, a!, 0, k, b!, 0, n + 1, c!, 0, n + 2), [false, false, false], random);
      expect(bits(r.home[2]!), `gemmNNUpdate ${m}×${n}×${k}`).toEqual(bits(r.plain[2]!));
    }
  });

  it('a product reading an array of another workspace stages a copy and leaves the source alone', () => {
    const other = new Workspace(1024, 'wasm');
    const a = other.float64(40);
    a.set(values(random, 40));
    const before = bits(a);
    const workspace = new Workspace(1024, 'wasm');
    const c = workspace.float64(16);
    const b = workspace.float64(40);
    b.set(values(random, 40));
    const plainC = new Float64Array(16);
    gemmNT(4, 4, 10, Float64Array.from(a), 0, 10, Float64Array.from(b), 0, 10, plainC, 0, 4);
    gemmNT(4, 4, 10, a, 0, 10, b, 0, 10, c, 0, 4);
    expect(bits(c)).toEqual(bits(plainC));
    expect(bits(a)).toEqual(before);
  });

  it('symvLower (lower triangle only) with offsets and leading dimensions, the input staged or not', () => {
    for (const m of [...SIZES, 6, 10, 11, 12, 31, 64, 65, 66, 67, 130, 131]) {
      const lda = m + 2;
      const size = Math.max(1, m * lda + 3);
      for (const foreign of [false, true]) {
        const r = bothBackends([size, m + 1, m + 2], ([a, x, y]) => symvLower(m, a!, 3, lda, x!, 1, y!, 2), [foreign, !foreign, false], random);
        expect(bits(r.home[2]!), `symvLower m=${m}`).toEqual(bits(r.plain[2]!));
        // Against the dense product with the lower triangle mirrored (the upper one holds other numbers).
        const [a, x, y] = r.plain as [Float64Array, Float64Array, Float64Array];
        for (let i = 0; i < m; i++) {
          let s = 0;
          let scale = 0;
          for (let k = 0; k < m; k++) {
            const term = (k <= i ? a[3 + i * lda + k]! : a[3 + k * lda + i]!) * x[1 + k]!;
            s += term;
            scale += Math.abs(term);
          }
          expect(Math.abs(y[2 + i]! - s), `symvLower m=${m} row ${i}`).toBeLessThanOrEqual(4 * m * 2 ** -52 * scale);
        }
      }
    }
  });

  it('the symvLower kernel itself, below the size where blas.ts calls it too, for m = 0…70 (every m mod 4)', () => {
    const workspace = new Workspace(1 << 16, 'wasm');
    for (let m = 0; m <= 70; m++) {
      const lda = m + 1 + (m % 3);
      const plain = [Float64Array.from(values(random, 2 + m * lda)), Float64Array.from(values(random, m + 1)), Float64Array.from(values(random, m + 1))];
      const [a, x, y] = plain.map((p) => {
        const copy = workspace.float64(p.length);
        copy.set(p);
        return copy;
      }) as [Float64Array, Float64Array, Float64Array];
      symvLower(m, plain[0]!, 1, lda, plain[1]!, 1, plain[2]!, 1); // TypeScript (plain arrays)
      const home = homeOf(y)!;
      home.kernels.symvLower(m, home.address(a, 1), lda, home.address(x, 1), home.address(y, 1));
      expect(bits(y), `m=${m}`).toEqual(bits(plain[2]!));
    }
  });

  it('gemmNTUpdate: C += A Bᵀ over every tile shape and across k panels (against a dense sum too)', () => {
    for (const [m, n, k] of [[0, 3, 4], [1, 1, 0], [4, 4, 9], [5, 7, 64], [9, 6, 3], [3, 5, 2100]] as const) {
      const lda = k + 1;
      const ldb = k + 2;
      const ldc = n + 3;
      const r = bothBackends([m * lda + 1, n * ldb + 2, m * ldc + 1], ([a, b, c]) => gemmNTUpdate(m, n, k, a!, 1, lda, b!, 2, ldb, c!, 1, ldc), [m % 2 === 1, false, false], random);
      expect(bits(r.home[2]!), `gemmNTUpdate ${m}×${n}×${k}`).toEqual(bits(r.plain[2]!));
      const a = Float64Array.from(values(random, m * lda + 1));
      const b = Float64Array.from(values(random, n * ldb + 2));
      const c = Float64Array.from(values(random, m * ldc + 1));
      const c0 = c.slice();
      gemmNTUpdate(m, n, k, a, 1, lda, b, 2, ldb, c, 1, ldc);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let s = c0[1 + i * ldc + j]!;
          let scale = Math.abs(s);
          for (let p = 0; p < k; p++) {
            const term = a[1 + i * lda + p]! * b[2 + j * ldb + p]!;
            s += term;
            scale += Math.abs(term);
          }
          expect(Math.abs(c[1 + i * ldc + j]! - s), `gemmNTUpdate ${m}×${n}×${k} (${i}, ${j})`).toBeLessThanOrEqual(2 * (k + 1) * 2 ** -52 * scale);
        }
      }
    }
  });
});
