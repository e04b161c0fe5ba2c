/**
 * `eofd bench --backend` from the command line: a bad value is exit 2 with one line naming the option
 * and the allowed values; `--backend js,wasm` through the compiled CLI, each point in its own child
 * process (the backend crosses the IPC), writes a js row and a wasm row per point with the same
 * decisions; `--linalg --n 32,64` writes linalg.csv, with numpy's ratios where python3 has numpy and
 * scipy. Nothing asserts a time.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, REPO, runCli, spawnCli, tempDir } from '../experiment/fixtures.js';

const root = tempDir('eofd-bench-cli-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('eofd bench --backend: bad values', () => {
  for (const value of ['native', 'js,gpu', 'Wasm', '']) {
    it(`--backend "${value}" is exit 2, one line naming --backend and js, wasm`, async () => {
      const { code, stderr } = await runCli(['bench', '--backend', value, '--out', path.join(root, 'never')]);
      expect(code).toBe(2);
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("'--backend <list>'");
      expect(lines[0]).toContain('expected backends from js, wasm');
      expect(fs.existsSync(path.join(root, 'never'))).toBe(false);
    });
  }
});

describe('eofd bench --backend js,wasm', () => {
  it('two rows per point, js and wasm, measured in child processes, with the same decisions', async () => {
    const out = path.join(root, 'both');
    const args = ['bench', '--d', '20', '--K', '1', '--m', 'auto', '--policy', 'EOFD-MLogB', '--rounds', '2', '--warmup', '2', '--backend', 'js,wasm', '--no-dgemm', '--out', out];
    const child = spawnCli(args, REPO);
    const { code } = await exitOf(child);
    expect(code, child.output.stderr).toBe(0);
    const rows = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.policy, r.backend, r.d, r.K, r.m, r.rss_scope, r.note])).toEqual([
      ['EOFD-MLogB', 'js', '20', '1', '2', 'child', ''],
      ['EOFD-MLogB', 'wasm', '20', '1', '2', 'child', ''],
    ]);
    expect(rows[1].decisions).toBe(rows[0].decisions);
    expect(rows.map((r) => r.dgemm_gflop_per_s)).toEqual(['', '']);
    expect(child.output.stderr).toContain('EOFD-MLogB d=20 K=1 m=2 [js]: ');
    expect(child.output.stderr).toContain('EOFD-MLogB d=20 K=1 m=2 [wasm]: ');
  });
});

describe('eofd bench --linalg', () => {
  const scipy = spawnSync('python3', ['-c', 'import numpy, scipy'], { stdio: 'ignore' }).status === 0;
  it(`--n 32,64: linalg.csv, a row per operation and n; numpy's ratios ${scipy ? 'present' : 'absent with the reason (no python3 with numpy and scipy here)'}`, async () => {
    const out = path.join(root, 'linalg');
    const child = spawnCli(['bench', '--linalg', '--n', '32,64', '--repeats', '2', '--out', out], REPO);
    const { code } = await exitOf(child);
    expect(code, child.output.stderr).toBe(0);
    expect(fs.readdirSync(out).sort()).toEqual(['linalg.csv', 'linalg.svg']);
    const rows = parse(fs.readFileSync(path.join(out, 'linalg.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual([
      'n',
      'operation',
      'backend',
      'eofd_function',
      'numpy_function',
      'repeats',
      'eofd_best_ms',
      'numpy_best_ms',
      'eofd_over_numpy',
      'eigenvalue_rel_difference',
      'numpy',
      'scipy',
      'blas',
      'note',
    ]);
    const operations = ['cholesky', 'spdInverse', 'tridiagonalize', 'decomposeFactored', 'decompose', 'gemm'];
    expect(rows.map((r) => [r.n, r.operation, r.backend])).toEqual([32, 64].flatMap((n) => operations.map((o) => [String(n), o, 'wasm'])));
    for (const r of rows) {
      expect(Number(r.eofd_best_ms)).toBeGreaterThan(0);
      if (scipy) {
        // Six significant digits each (rounding ≤ 5e-6 relative): the written ratio within 3 × 5e-6 (and second-order terms) of the ratio of the written times.
        expect(Math.abs(Number(r.eofd_over_numpy) / (Number(r.eofd_best_ms) / Number(r.numpy_best_ms)) - 1)).toBeLessThan(1.6e-5);
        expect(Number(r.eigenvalue_rel_difference)).toBeLessThan(1e-9);
        expect(r.note).toBe('');
      } else {
        expect(r.eofd_over_numpy).toBe('');
        expect(r.note).toMatch(/^no numpy time: /);
      }
    }
    expect(child.output.stderr).toContain('eofd ÷ numpy');
  });
});
