/**
 * `eofd bench --linalg`: the SPD matrix and its file, eofd's measurement (right answers under both
 * backends), numpy's output parser (its child process: dgemm.test.ts, an e2e file), the ratios, the policy rows' operation-equivalents, linalg.csv and the tables, and a tiny run with a
 * stand-in numpy. Nothing asserts how long anything takes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { afterAll, describe, expect, it } from 'vitest';
import {
  eigenvalueDifference,
  EIGENVALUE_AGREEMENT,
  LINALG_OPERATIONS,
  linalgRatio,
  linalgRows,
  measureEofdLinalg,
  numpyTargets,
  spdMatrix,
  writeMatrixFile,
  type EofdLinalg,
} from '../../src/bench/linalg.js';
import type { BenchPoint, PointMeasurement } from '../../src/bench/measure.js';
import { NUMPY_OPERATION_NAMES, numpyTotalMs, parseLinalgOutput, type NumpyLinalg, type NumpyOperation } from '../../src/bench/numpy.js';
import { BENCH_COLUMNS, benchCsv, LINALG_COLUMNS, linalgCsv, linalgTable, numpyComparisons, numpyComparisonTable, type BenchRow } from '../../src/bench/output.js';
import { DEFAULT_BENCH_OPTIONS, runBench, type NumpyMeasure } from '../../src/bench/index.js';
import { Mulberry32Stream } from '../../src/random/stream.js';
import { descendants, parseXml } from '../report/xml.js';
import { wasmAvailable } from '../../src/linalg/simd.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-linalg-test-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** numpy's answer at n with every operation taking `ms` (and eigenvalues n, n−1, …, 1). */
function numpyAt(n: number, ms: Partial<Record<NumpyOperation, number | null>>, scipy: string | null = '1.17.1'): NumpyLinalg {
  return { ok: true, n, repeats: 5, numpy: '2.4.6', scipy, blas: 'openblas', ms, eigenvalues: Float64Array.from({ length: n }, (_, i) => n - i) };
}

describe('bad arguments', () => {
  it('a matrix that is not positive definite is an error naming the operation', () => {
    const a = new Float64Array([1, 2, 2, 1]);
    expect(() => measureEofdLinalg(a, 2, 'js', 1, { warmupSeconds: 0, timedSeconds: 0 })).toThrow('cholesky: the bench matrix is not positive definite');
  });

  it('spectra of different lengths are not compared', () => {
    expect(() => eigenvalueDifference(Float64Array.from([2, 1]), Float64Array.from([1]))).toThrow('eigenvalueDifference: 2 against 1 eigenvalues');
  });
});

describe('the bench matrix A = XXᵀ/n + I', () => {
  it('is XXᵀ/n + I of mulberry32(seed) entries, exactly symmetric, positive definite and the same every time', () => {
    const n = 7;
    const a = spdMatrix(n, 3);
    // Independent reference: the same draws, the sums written out.
    const stream = new Mulberry32Stream(3);
    const x = Array.from({ length: n * n }, () => Math.sqrt(3) * (2 * stream.uniform() - 1));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += x[i * n + k] * x[j * n + k];
        expect(a[i * n + j]).toBeCloseTo(s / n + (i === j ? 1 : 0), 12);
        expect(a[i * n + j]).toBe(a[j * n + i]);
      }
    }
    expect(spdMatrix(n, 3)).toEqual(a);
    expect(spdMatrix(n, 4)).not.toEqual(a);
    const values = new EigenvalueDecomposition(new Matrix(Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n))))).realEigenvalues;
    expect(Math.min(...values)).toBeGreaterThanOrEqual(1 - 1e-12);
  });

  it('reaches numpy as little-endian float64, row-major: the file holds its bytes', () => {
    const a = spdMatrix(5, 1);
    const { file, remove } = writeMatrixFile(a);
    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBe(25 * 8);
    for (let i = 0; i < 25; i++) expect(bytes.readDoubleLE(8 * i)).toBe(a[i]);
    remove();
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });
});

describe("eofd's measurement", () => {
  const backends = wasmAvailable() ? (['js', 'wasm'] as const) : (['js'] as const);
  // n = 100: the eigensolver's divide-and-conquer path (n ≥ 96); n = 12: its QL path.
  for (const n of [12, 100]) {
    for (const backend of backends) {
      it(`n = ${n} [${backend}]: every operation timed, the eigenvalues those of A (ml-matrix)`, () => {
        const a = spdMatrix(n, 1);
        const result = measureEofdLinalg(a, n, backend, 2, { warmupSeconds: 0, timedSeconds: 0 });
        expect(Object.keys(result.ms).sort()).toEqual(LINALG_OPERATIONS.map((o) => o.name).sort());
        for (const ms of Object.values(result.ms)) expect(ms).toBeGreaterThan(0);
        const reference = new EigenvalueDecomposition(new Matrix(Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n))))).realEigenvalues.sort((p, q) => q - p);
        expect(eigenvalueDifference(result.eigenvalues, Float64Array.from(reference))).toBeLessThan(1e-13);
      });
    }
  }
});

describe("numpy's output", () => {
  const good = { n: 3, repeats: 5, numpy: '2.4.6', scipy: '1.17.1', blas: 'openblas', seconds: { eigh: 0.002, dot: 0.001 }, eigenvalues: [3, 2, 1] };
  for (const [stdout, message] of [
    ['', /^expected a JSON line/],
    [JSON.stringify({ ...good, n: 4 }), /^expected n = 3, got 4$/],
    [JSON.stringify({ ...good, repeats: 0 }), /^expected repeats/],
    [JSON.stringify({ ...good, seconds: null }), /^expected seconds, an object/],
    [JSON.stringify({ ...good, seconds: { eigh: 0 } }), /^expected seconds.eigh > 0, got 0$/],
    [JSON.stringify({ ...good, seconds: { eigh: 0.1 } }), /^expected seconds.dot > 0, got undefined$/],
    [JSON.stringify({ ...good, seconds: { eigh: 0.1, dot: null } }), /^expected seconds.dot > 0, got null$/],
    [JSON.stringify({ ...good, eigenvalues: [3, 2] }), /^expected eigenvalues, 3 numbers$/],
  ] as const) {
    it(`rejects ${stdout.slice(0, 60) || '""'}`, () => {
      expect(() => parseLinalgOutput(stdout, 3, ['eigh', 'dot'])).toThrow(message);
    });
  }

  it('reads seconds as ms; a scipy operation is null only when scipy is absent', () => {
    const read = parseLinalgOutput(`noise\n${JSON.stringify(good)}\n`, 3, ['eigh', 'dot']);
    expect(read).toEqual({ ok: true, n: 3, repeats: 5, numpy: '2.4.6', scipy: '1.17.1', blas: 'openblas', ms: { eigh: 2, dot: 1 }, eigenvalues: Float64Array.from([3, 2, 1]) });
    const noScipy = JSON.stringify({ ...good, scipy: null, seconds: { potrf: null, eigh: 0.002 } });
    expect(parseLinalgOutput(noScipy, 3, ['potrf', 'eigh']).ms).toEqual({ potrf: null, eigh: 2 });
    const withScipy = JSON.stringify({ ...good, seconds: { potrf: null } });
    expect(() => parseLinalgOutput(withScipy, 3, ['potrf'])).toThrow('expected seconds.potrf > 0 (or null without scipy), got null');
  });

});

describe('ratios and rows', () => {
  const eofd: EofdLinalg = {
    ms: { cholesky: 4, spdInverse: 9, tridiagonalize: 6, decomposeFactored: 10, decompose: 30, gemm: 2 },
    eigenvalues: Float64Array.from([3, 2, 1]),
  };

  it('eofd ÷ numpy, absent with either; the eigenvalue difference is relative to the largest', () => {
    expect(linalgRatio(7, 2)).toBe(3.5);
    expect([linalgRatio(null, 2), linalgRatio(7, null), linalgRatio(7, 0)]).toEqual([null, null, null]);
    expect(eigenvalueDifference(Float64Array.from([4, 2]), Float64Array.from([4, 1.5]))).toBe(0.125);
  });

  it('rows pair each operation with its numpy call; absent numpy times say why', () => {
    const numpy = numpyAt(3, { potrf: 2, 'potrf+potri': 3, sytrd: 3, eigvalsh: 4, eigh: 12, dot: 1 });
    const rows = linalgRows(3, 'wasm', 5, eofd, numpy);
    expect(rows.map((r) => [r.operation.name, r.operation.numpy, r.eofdMs, r.numpyMs, linalgRatio(r.eofdMs, r.numpyMs), r.note])).toEqual([
      ['cholesky', 'potrf', 4, 2, 2, ''],
      ['spdInverse', 'potrf+potri', 9, 3, 3, ''],
      ['tridiagonalize', 'sytrd', 6, 3, 2, ''],
      ['decomposeFactored', 'eigvalsh', 10, 4, 2.5, ''],
      ['decompose', 'eigh', 30, 12, 2.5, ''],
      ['gemm', 'dot', 2, 1, 2, ''],
    ]);
    expect(rows[0].eigenvalueDifference).toBe(0);

    const noScipy = linalgRows(3, 'js', 5, eofd, numpyAt(3, { potrf: null, eigh: 12 }, null));
    expect(noScipy[0].note).toBe('no numpy time: no scipy');
    expect(noScipy[4].note).toBe('');
    const none = linalgRows(3, 'js', 5, eofd, { ok: false, reason: 'python3 not found' });
    expect(none.every((r) => r.numpyMs === null && r.note === 'no numpy time: python3 not found' && r.numpy === null)).toBe(true);
    const failed = linalgRows(3, 'js', 5, { error: 'boom' }, numpy);
    expect(failed[0]).toMatchObject({ eofdMs: null, numpyMs: 2, note: 'eofd failed: boom' });
    const other = linalgRows(3, 'js', 5, { ...eofd, eigenvalues: Float64Array.from([3, 2, 1 + 1e-6]) }, numpy);
    expect(other[0].note).toMatch(/^eigenvalues differ from numpy's by 3\.3e-7 \(relative\): not the same matrix\?$/);
    expect(EIGENVALUE_AGREEMENT).toBeLessThan(3.3e-7);
  });

  it('linalg.csv: its columns, the ratio and the versions; the table shows the ratio and the numpy calls', () => {
    const rows = [
      ...linalgRows(3, 'wasm', 5, eofd, numpyAt(3, { potrf: 2, 'potrf+potri': 3, sytrd: 3, eigvalsh: 4, eigh: 12, dot: 1 })),
      ...linalgRows(4, 'wasm', 5, { error: 'boom' }, { ok: false, reason: 'python3 not found' }),
    ];
    const csv = parse(linalgCsv(rows), { columns: true }) as Record<string, string>[];
    expect(Object.keys(csv[0])).toEqual([...LINALG_COLUMNS]);
    expect(csv[1]).toMatchObject({ n: '3', operation: 'spdInverse', backend: 'wasm', eofd_function: 'spdInverse', numpy_function: 'potrf+potri', eofd_best_ms: '9', numpy_best_ms: '3', eofd_over_numpy: '3', numpy: '2.4.6', scipy: '1.17.1', blas: 'openblas', note: '' });
    expect(csv[6]).toMatchObject({ n: '4', eofd_best_ms: '', numpy_best_ms: '', eofd_over_numpy: '', eigenvalue_rel_difference: '', note: 'eofd failed: boom; no numpy time: python3 not found' });
    const table = linalgTable(rows);
    expect(table).toMatch(/\n\s*3\s+spdInverse\s+wasm\s+9\.000\s+potrf\+potri\s+3\.000\s+3×/);
    expect(table).toContain('eigh: numpy.linalg.eigh');
  });
});

describe("policy rows against numpy's operation-equivalents at n = Kd", () => {
  const point = (policy: string, ofulSolver?: 'textbook'): BenchPoint => ({
    policy,
    backend: 'wasm',
    d: 10,
    K: 2,
    sketchSize: 20,
    sketchRequest: 'exact',
    ...(ofulSolver === undefined ? {} : { ofulSolver }),
    actions: 20,
    warmup: 10,
    warmupRequest: 'auto',
    rounds: 5,
    seed: 1,
  });
  /** One process's measurement: `round` ms a round, `probe` ms a projecting update (or none). */
  const measurement = (round: number, probe: number | null): PointMeasurement => ({
    select: { median: 0, p90: 0 },
    update: { median: round, p90: round },
    round: { median: round, p90: round },
    projectionRounds: 0,
    projectionUpdate: { median: NaN, p90: NaN },
    plainRound: { median: round, p90: round },
    probeUpdate: probe === null ? null : { median: probe, p90: probe },
    stateBytes: 0,
    sketchSizeStart: null,
    sketchSize: null,
    gcDuringTimed: 0,
    wallSeconds: 1,
    decisions: '',
  });
  /** A row measured by one process per pair, numpy timed after each. */
  const row = (p: BenchPoint, pairs: [round: number, probe: number | null, numpy: NumpyLinalg][]): BenchRow => ({
    plan: { point: p, skip: null, probe: pairs.some(([, probe]) => probe !== null) },
    measurement: pairs.length > 0 ? measurement(Math.min(...pairs.map(([round]) => round)), pairs[0]![1]) : null,
    peakRssBytes: null,
    rssScope: null,
    note: '',
    processMedians: pairs.map(([round]) => round),
    pairs: pairs.map(([round, probe, numpy]) => ({ measurement: measurement(round, probe), numpy })),
  }) as BenchRow;

  it("OFUL-MLogB textbook: round ÷ (eigvalsh + potrf+potri) and projection ÷ eigh; incremental: the projection; others: none", () => {
    expect(numpyTargets(point('OFUL-MLogB', 'textbook'))).toEqual([
      { measured: 'round', operations: ['eigvalsh', 'potrf+potri'] },
      { measured: 'projection', operations: ['eigh'] },
    ]);
    expect(numpyTargets(point('OFUL-MLogB'))).toEqual([{ measured: 'projection', operations: ['eigh'] }]);
    expect(numpyTargets(point('EOFD-MLogB'))).toEqual([]);
    expect(numpyTotalMs(numpyAt(20, { eigvalsh: 3, 'potrf+potri': null }, null), ['eigvalsh', 'potrf+potri'])).toBeNull();

    const first = numpyAt(20, { eigvalsh: 3, 'potrf+potri': 2, eigh: 4 });
    const slower = numpyAt(20, { eigvalsh: 3.3, 'potrf+potri': 2.2, eigh: 4.8 });
    const rows = [
      // Two processes, the second on a slower spell: round ratios 40/5 = 8 and 45/5.5, projection 10/4 = 12/4.8 = 2.5.
      row(point('OFUL-MLogB', 'textbook'), [[40, 10, first], [45, 12, slower]]),
      row(point('OFUL-MLogB'), [[1, 12, first]]),
      row(point('EOFD-MLogB'), [[0.5, null, first]]),
      row(point('OFUL-MLogB', 'textbook'), []),
    ];
    const [round, projection] = numpyComparisons(rows[0]!);
    // The geometric mean of the pairs' ratios and its 95% Student-t interval on the log scale (t(0.975, 1) = 12.7062).
    const logs = [Math.log(40 / 5), Math.log(45 / 5.5)];
    const mean = (logs[0]! + logs[1]!) / 2;
    const half = (12.7062 * Math.abs(logs[0]! - logs[1]!)) / Math.sqrt(2) / Math.sqrt(2);
    expect(round).toMatchObject({ pairs: 2, eofdMs: 42.5, numpyMs: 5.25 });
    expect(round!.ratio!.estimate).toBeCloseTo(Math.exp(mean), 12);
    expect(round!.ratio!.low).toBeCloseTo(Math.exp(mean - half), 3);
    expect(round!.ratio!.high).toBeCloseTo(Math.exp(mean + half), 3);
    expect(projection).toMatchObject({ pairs: 2, eofdMs: 11, numpyMs: 4.4 });
    expect([projection!.ratio!.estimate, projection!.ratio!.low, projection!.ratio!.high].map((x) => x.toFixed(12))).toEqual(['2.500000000000', '2.500000000000', '2.500000000000']);
    // One pair: a ratio without an interval; no pair: none.
    const single = numpyComparisons(rows[1]!);
    expect(single.map((c) => [c.pairs, Number.isNaN(c.ratio?.low), Number.isNaN(c.ratio?.high)])).toEqual([[1, true, true]]);
    expect(single[0]!.ratio!.estimate).toBeCloseTo(12 / 4, 12);
    expect(numpyComparisons(rows[3]!).map((c) => c.ratio)).toEqual([null, null]);

    const csv = parse(benchCsv(rows, { ok: false, reason: 'none' }), { columns: true }) as Record<string, string>[];
    expect(Object.keys(csv[0]!)).toEqual([...BENCH_COLUMNS]);
    expect(csv.map((r) => [r.numpy_round_equivalent_ms, r.round_over_numpy, r.numpy_projection_equivalent_ms, r.projection_over_numpy, r.projection_over_numpy_low, r.projection_over_numpy_high])).toEqual([
      ['5.2500', Math.exp(mean).toFixed(3), '4.4000', '2.500', '2.500', '2.500'],
      ['', '', '4.0000', '3.000', '', ''],
      ['', '', '', '', '', ''],
      ['', '', '', '', '', ''],
    ]);
    expect(Number(csv[0]!.round_over_numpy_low)).toBeCloseTo(Math.exp(mean - half), 2);
    const table = numpyComparisonTable(rows);
    expect(table).toMatch(/OFUL-MLogB \(textbook\)\s+wasm\s+10\s+2\s+20\s+round\s+42\.5\s+eigvalsh \+ potrf\+potri\s+5\.250\s+2\s+8\.09× \[\S+, \S+\]/);
    expect(table).toMatch(/OFUL-MLogB\s+wasm\s+10\s+2\s+20\s+projection\s+12\.0\s+eigh\s+4\.000\s+1\s+3×\n/);
    expect(table).toContain('numpy timed right after each process measured the point');
    expect(numpyComparisonTable([rows[2]!])).toBe('');
  });
});

describe('runBench --linalg with a stand-in numpy', () => {
  /** Every operation "takes" 0.5 ms; the eigenvalues are the real ones (so the rows agree). */
  const calls: { n: number; operations: readonly NumpyOperation[] }[] = [];
  const fakeNumpy: NumpyMeasure = async (file, n, repeats, operations) => {
    calls.push({ n, operations });
    const bytes = fs.readFileSync(file);
    const a = Float64Array.from({ length: n * n }, (_, i) => bytes.readDoubleLE(8 * i));
    const values = new EigenvalueDecomposition(new Matrix(Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n))))).realEigenvalues.sort((p, q) => q - p);
    return { ...numpyAt(n, Object.fromEntries(operations.map((o) => [o, 0.5]))), repeats, eigenvalues: Float64Array.from(values) };
  };

  it('without policies: linalg.csv and linalg.svg only, a row per operation and n, numpy timed on the same matrix', async () => {
    calls.length = 0;
    const out = path.join(root, 'linalg-only');
    let stderr = '';
    const options = { ...DEFAULT_BENCH_OPTIONS, linalg: true, n: [8], repeats: 1, policies: [], backends: ['js' as const] };
    const result = await runBench(options, out, { stderr: { write: (s: string) => (stderr += s) } }, async () => ({ ok: false, reason: 'unused' }), fakeNumpy);
    expect(fs.readdirSync(out).sort()).toEqual(['linalg.csv', 'linalg.svg']);
    expect(calls).toEqual([{ n: 8, operations: NUMPY_OPERATION_NAMES }]);
    const svg = parseXml(fs.readFileSync(path.join(out, 'linalg.svg'), 'utf8'));
    const lines = descendants(svg).filter((e) => e.name === 'path' && e.attributes.has('data-series'));
    expect(lines.map((e) => e.attributes.get('data-series'))).toEqual(LINALG_OPERATIONS.map((o) => `${o.name} ÷ ${o.numpy} [js]`));
    const csv = parse(fs.readFileSync(path.join(out, 'linalg.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(csv.map((r) => r.operation)).toEqual(LINALG_OPERATIONS.map((o) => o.name));
    for (const r of csv) {
      expect(Math.abs(Number(r.eofd_over_numpy) / (Number(r.eofd_best_ms) / 0.5) - 1)).toBeLessThan(1.6e-5);
      expect(Number(r.eigenvalue_rel_difference)).toBeLessThan(EIGENVALUE_AGREEMENT);
      expect(r.note).toBe('');
    }
    expect(result.rows).toEqual([]);
    expect(stderr).not.toContain('dgemm reference');
    expect(stderr).toContain('eofd ÷ numpy');
  });

  it('with OFUL-MLogB: numpy at each Kd for its operation-equivalents, in bench.csv', async () => {
    calls.length = 0;
    const out = path.join(root, 'with-policy');
    let stderr = '';
    const options = {
      ...DEFAULT_BENCH_OPTIONS,
      linalg: true,
      n: [6],
      repeats: 1,
      policies: ['OFUL-MLogB', 'EOFD-MLogB'],
      d: [6],
      K: [1],
      m: [2],
      ofulSolvers: ['textbook' as const],
      rounds: 2,
      warmup: [1],
      projectionRounds: 2,
      backends: ['js' as const],
      dgemm: false,
      processes: 2,
    };
    await runBench(options, out, { stderr: { write: (s: string) => (stderr += s) } }, async () => ({ ok: false, reason: 'unused' }), fakeNumpy);
    // numpy at the --n 6 for the kernels, then OFUL-MLogB's equivalents at Kd = 6 after each of its processes.
    expect(calls).toEqual([
      { n: 6, operations: NUMPY_OPERATION_NAMES },
      { n: 6, operations: ['eigvalsh', 'potrf+potri', 'eigh'] },
      { n: 6, operations: ['eigvalsh', 'potrf+potri', 'eigh'] },
    ]);
    expect(fs.readdirSync(out).sort()).toEqual(['bench.csv', 'bench.svg', 'linalg.csv', 'linalg.svg']);
    const csv = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const oful = csv.find((r) => r.policy === 'OFUL-MLogB')!;
    expect([oful.numpy_round_equivalent_ms, oful.numpy_projection_equivalent_ms]).toEqual(['1.0000', '0.5000']);
    // Two processes, each paired with its own numpy times (1 ms for the round's equivalent).
    expect(oful.processes).toBe('2');
    expect(Number(oful.round_over_numpy)).toBeGreaterThanOrEqual(Number(oful.round_median_ms) / 1 - 1e-3);
    expect(Number(oful.round_over_numpy)).toBeLessThanOrEqual(Number(oful.round_median_worst_ms) / 1 + 1e-3);
    expect(Number(oful.round_over_numpy_low)).toBeLessThanOrEqual(Number(oful.round_over_numpy));
    expect(Number(oful.round_over_numpy_high)).toBeGreaterThanOrEqual(Number(oful.round_over_numpy));
    const eofd = csv.find((r) => r.policy === 'EOFD-MLogB')!;
    expect([eofd.numpy_round_equivalent_ms, eofd.round_over_numpy]).toEqual(['', '']);
    expect(stderr).toContain('against numpy single-thread doing the same dense operations');

    calls.length = 0;
    await runBench({ ...options, n: [5], policies: ['OFUL-MLogB'], processes: 1 }, path.join(root, 'other-kd'), { stderr: { write: () => undefined } }, async () => ({ ok: false, reason: 'unused' }), fakeNumpy);
    expect(calls).toEqual([
      { n: 5, operations: NUMPY_OPERATION_NAMES },
      { n: 6, operations: ['eigvalsh', 'potrf+potri', 'eigh'] },
    ]);
  });
});
