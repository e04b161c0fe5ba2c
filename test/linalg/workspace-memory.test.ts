import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { maximumPages, WASM_MEMORY_LIMIT, workspacePlan } from '../../src/linalg/simd.js';
import { BIN, tempDir, tinyConfig, writeFile } from '../experiment/fixtures.js';

const GIB = 1024 ** 3;

describe('workspace memory: bad arguments', () => {
  it('a wasm need over 4 GiB runs as TypeScript, decided before anything is allocated', () => {
    // OFUL-MLogB at d = 14,000, K = 1: 8·(3n² + 7n) bytes, n = 14,000 (src/policies/oful-mlogb.ts).
    const n = 14_000;
    const plan = workspacePlan(8 * (3 * n * n + 7 * n) + 65536, 'wasm');
    expect(plan.backend).toBe('js');
    expect(plan.note).toMatch(/needs 4\.4 GiB, more than a WebAssembly memory holds \(4 GiB\).*TypeScript/);
    expect(workspacePlan(WASM_MEMORY_LIMIT, 'wasm')).toEqual({ backend: 'wasm', note: null });
    expect(workspacePlan(5 * GIB, 'js')).toEqual({ backend: 'js', note: null });
  });
});

describe('workspace memory: reserved for what the policy needs', () => {
  it('a memory may grow to its size ×4 (at least 64 MiB more), never past 4 GiB', () => {
    expect(maximumPages(100)).toEqual({ initial: 1, maximum: 1025 });
    expect(maximumPages(GIB)).toEqual({ initial: 16384, maximum: 65536 });
    expect(maximumPages(4 * GIB)).toEqual({ initial: 65536, maximum: 65536 });
  });

  it('a run under ulimit -v 4G finishes every unit, its policies on TypeScript kernels, with one note', () => {
    // Under Node's WebAssembly trap handler every memory reserves ~10 GiB of address space: before the
    // fallback, every learner's unit failed here with "could not allocate memory".
    const dir = tempDir('eofd-ulimit-');
    const config = writeFile(dir, 'tiny.yaml', tinyConfig('tiny', { horizon: 20, trials: 1, policies: '[EOFD-MLogB, OFUL-MLogB, MNL-UCB]' }));
    const out = path.join(dir, 'out');
    const command = `ulimit -v ${4 * 1024 * 1024} && exec "$0" "$1" run "$2" --out "$3" --jobs 1 --quiet`;
    const env = { ...process.env, EOFD_BACKEND: 'wasm' };
    const result = spawnSync('bash', ['-c', command, process.execPath, BIN, config, out], { env, encoding: 'utf8' });
    expect(result.stderr).toMatch(/eofd: note: no WebAssembly memory could be reserved/);
    expect(result.stderr.match(/eofd: note:/g)).toHaveLength(1);
    expect(result.status).toBe(0);
    expect(fs.existsSync(path.join(out, 'tiny', 'summary.csv'))).toBe(true);
  });
});
