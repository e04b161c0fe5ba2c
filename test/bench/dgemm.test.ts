/**
 * The Python references (python.ts): the dgemm reference's output parser, the child it starts (a
 * stand-in command in place of python3, so these run without numpy), every way it can come back empty,
 * and the real measurement where python3 with numpy exists; the same for --linalg's numpy child
 * (numpy.ts), whose real run must find the eigenvalues eofd finds. Nothing asserts a time.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeDgemm, dgemmGflopPerS, measureDgemm, parseDgemmOutput, SINGLE_THREAD_ENV, type DgemmCommand } from '../../src/bench/dgemm.js';
import { eigenvalueDifference, measureEofdLinalg, spdMatrix, writeMatrixFile } from '../../src/bench/linalg.js';
import { measureNumpyLinalg, NUMPY_OPERATION_NAMES } from '../../src/bench/numpy.js';

/** A stand-in for python3: node running `script` (argv: n, repeats). */
function node(script: string): DgemmCommand {
  return { file: process.execPath, args: ['-e', script] };
}

describe('dgemm reference: output it cannot read', () => {
  for (const [stdout, message] of [
    ['', /^expected a JSON line, got ""$/],
    ['Traceback (most recent call last):', /^expected a JSON line/],
    ['{"n": 1024, "repeats": 5}', /^expected seconds > 0, got undefined$/],
    ['{"n": 1024, "repeats": 5, "seconds": 0}', /^expected seconds > 0, got 0$/],
    ['{"n": 1024, "repeats": 5, "seconds": "fast"}', /^expected seconds > 0, got "fast"$/],
    ['{"n": 0, "repeats": 5, "seconds": 1}', /^expected n, an integer ≥ 1, got 0$/],
    ['{"n": 1024, "repeats": 1.5, "seconds": 1}', /^expected repeats, an integer ≥ 1, got 1.5$/],
    ['null', /^expected n/],
  ] as const) {
    it(`rejects ${JSON.stringify(stdout)}`, () => {
      expect(() => parseDgemmOutput(stdout)).toThrow(message);
    });
  }

  it('a missing command, a missing numpy, a failing or garbled child: no reference, and why', async () => {
    expect(await measureDgemm({ file: 'eofd-no-such-python3', args: [] })).toEqual({ ok: false, reason: 'eofd-no-such-python3 not found' });
    const missing = await measureDgemm(node('process.exit(3)'));
    expect(missing).toEqual({ ok: false, reason: `${process.execPath} has no numpy` });
    const failed = await measureDgemm(node('console.error("first"); console.error("MemoryError"); process.exit(1)'));
    expect(failed).toEqual({ ok: false, reason: `${process.execPath} exited (code 1): MemoryError` });
    const garbled = await measureDgemm(node('console.log("hello")'));
    expect(garbled).toEqual({ ok: false, reason: `cannot read ${process.execPath}'s output: expected a JSON line, got "hello"` });
    expect(describeDgemm(missing)).toBe(`dgemm reference: none (${process.execPath} has no numpy); the dgemm columns are empty`);
  });
});

describe('dgemm reference: the measurement', () => {
  it('GFLOP/s is 2n³ over the time: n = 1000 in 0.5 s is 4 GFLOP/s', () => {
    expect(dgemmGflopPerS(1000, 0.5)).toBe(4);
    expect(parseDgemmOutput('warning: something\n{"n": 1000, "repeats": 7, "seconds": 0.25, "numpy": "2.4.6", "blas": "scipy-openblas"}\n')).toEqual({
      ok: true,
      gflopPerS: 8,
      order: 1000,
      repeats: 7,
      seconds: 0.25,
      numpy: '2.4.6',
      blas: 'scipy-openblas',
    });
  });

  it('passes n and the repeats on argv and one BLAS thread in the environment', async () => {
    const names = Object.keys(SINGLE_THREAD_ENV);
    expect(names).toEqual(expect.arrayContaining(['OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS']));
    // The stand-in reports what it was given: n and repeats from argv, the thread variables as "blas".
    const echo = node(
      `const [n, repeats] = process.argv.slice(1).map(Number);` +
        `console.log(JSON.stringify({ n, repeats, seconds: 0.0005, numpy: 'stand-in', blas: ${JSON.stringify(names)}.map((k) => k + '=' + process.env[k]).join(' ') }));`,
    );
    const reference = await measureDgemm(echo, 200, 7);
    expect(reference).toEqual({ ok: true, gflopPerS: dgemmGflopPerS(200, 0.0005), order: 200, repeats: 7, seconds: 0.0005, numpy: 'stand-in', blas: names.map((k) => `${k}=1`).join(' ') });
    expect(describeDgemm(reference)).toBe(`dgemm reference: 32.0 GFLOP/s single-thread (numpy stand-in dot, ${names.map((k) => `${k}=1`).join(' ')}, 200×200 float64, best of 7)`);
  });

  const numpy = spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!numpy)(`python3 with numpy: a 1024×1024 product, best of 5${numpy ? '' : ' (skipped: no python3 with numpy here)'}`, async () => {
    const reference = await measureDgemm();
    expect(reference.ok).toBe(true);
    if (!reference.ok) return;
    expect([reference.order, reference.repeats]).toEqual([1024, 5]);
    expect(reference.seconds).toBeGreaterThan(0);
    expect(reference.gflopPerS).toBe(dgemmGflopPerS(1024, reference.seconds));
    expect(reference.numpy).toMatch(/^\d+\.\d+/);
  });
});

describe('--linalg: the numpy child', () => {
  it('the child gets the file, n, repeats, the operations and one BLAS thread; its failures are reasons', async () => {
    const a = spdMatrix(4, 2);
    const { file, remove } = writeMatrixFile(a);
    // The stand-in reports the diagonal it read as "eigenvalues", its argv and environment in the times.
    const echo = node(
      `const fs = require('fs'); const [file, n, repeats, ops] = process.argv.slice(1); const b = fs.readFileSync(file);` +
        `const diag = Array.from({ length: +n }, (_, i) => b.readDoubleLE(8 * (i * +n + i)));` +
        `const threads = ${JSON.stringify(Object.keys(SINGLE_THREAD_ENV))}.every((k) => process.env[k] === '1');` +
        `console.log(JSON.stringify({ n: +n, repeats: +repeats, numpy: ops, scipy: null, blas: String(threads), seconds: Object.fromEntries(ops.split(',').map((o, i) => [o, (i + 1) / 1000])), eigenvalues: diag }));`,
    );
    const result = await measureNumpyLinalg(file, 4, 7, ['eigh', 'dot'], echo);
    remove();
    expect(result).toEqual({ ok: true, n: 4, repeats: 7, numpy: 'eigh,dot', scipy: null, blas: 'true', ms: { eigh: 1, dot: 2 }, eigenvalues: Float64Array.from([0, 5, 10, 15].map((i) => a[i])) });
    expect(await measureNumpyLinalg(file, 4, 7, ['eigh'], { file: 'eofd-no-such-python3', args: [] })).toEqual({ ok: false, reason: 'eofd-no-such-python3 not found' });
    expect(await measureNumpyLinalg(file, 4, 7, ['eigh'], node('process.exit(3)'))).toEqual({ ok: false, reason: `${process.execPath} has no numpy` });
    expect(await measureNumpyLinalg(file, 4, 7, ['eigh'], node('console.log("hi")'))).toEqual({ ok: false, reason: `cannot read ${process.execPath}'s output: expected a JSON line, got "hi"` });
  });

  const scipy = spawnSync('python3', ['-c', 'import numpy, scipy'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!scipy)(`python3 with numpy and scipy: every operation timed, the spectrum eofd's${scipy ? '' : ' (skipped: no python3 with numpy and scipy here)'}`, async () => {
    const n = 40;
    const a = spdMatrix(n, 1);
    const { file, remove } = writeMatrixFile(a);
    const result = await measureNumpyLinalg(file, n, 2);
    remove();
    expect(result.ok, result.ok ? '' : result.reason).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.ms)).toEqual(NUMPY_OPERATION_NAMES);
    for (const ms of Object.values(result.ms)) expect(ms).toBeGreaterThan(0);
    const ours = measureEofdLinalg(a, n, 'js', 1, { warmupSeconds: 0, timedSeconds: 0 });
    expect(eigenvalueDifference(ours.eigenvalues, result.eigenvalues)).toBeLessThan(1e-13);
  });
});
