import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, RunError } from '../../src/base/errors.js';
import { parseConfigs } from '../../src/config/load.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { resolveExperiment } from '../../src/experiment/setup.js';
import { machineMemory, sizeRun, UNIT_OVERHEAD_BYTES, unitNeeds } from '../../src/experiment/sizing.js';
import { tempDir } from './fixtures.js';

const GB = 1e9;

function config(environment: string, policies: string, params = '{S: 5}', trials = 1, horizon = 20): string {
  return `name: big\nenvironment: ${environment}\nhorizon: ${horizon}\ntrials: ${trials}\nseed: 0\npolicies: ${policies}\nparams: ${params}\n`;
}

const resolved = (text: string) => parseConfigs(text, 'big.yaml').map((c) => resolveExperiment(c));
const k64 = `{type: synthetic, d: 100000, K: 64, reward: [${Array.from({ length: 65 }, (_, i) => i / 64).join(', ')}], actions: [5, 5]}`;

describe('sizing: configs refused before any work', () => {
  it('MNL-UCB with S = 1e-30 (λ ≈ 1e-29, its round 1 failed, and --resume again): refused with the reason when resolved', async () => {
    const text = config('{type: synthetic, d: 3, K: 2, reward: [0, 0.5, 1], actions: [5, 5]}', '[MNL-UCB, Random]', '{S: 1e-30}');
    expect(() => resolved(text)).toThrow(/^big\.yaml: params\.lambda: MNL-UCB: MNL-UCB needs λ ≥ 1\.0e-12 .*got λ = 1\.295e-29.*raise params\.S/);
    const out = tempDir('eofd-sizing-');
    const error = await runExperiments(parseConfigs(text, 'big.yaml'), { out, jobs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ exitCode: 2 });
    expect(fs.existsSync(path.join(out, 'big', 'manifest.json'))).toBe(false);
  });

  it('d = 100,000 with K = 64: refused with the number and the fix (it was accepted and failed later)', async () => {
    const text = config(k64, '[EOFD-MLogB, Random]', '{S: 5, m: auto}');
    const { refusal } = sizeRun(resolved(text), 1, { bytes: 64 * GB, source: 'available memory' });
    expect(refusal).toMatch(/^big: EOFD-MLogB needs about \d+\.\d GB a unit, with the other units of its trial \(lock-step\): .* more than the 64\.0 GB of available memory; use a smaller d \(now 100000\), or a smaller m or a lighter policy$/);
    const out = tempDir('eofd-sizing-');
    await expect(runExperiments(parseConfigs(text, 'big.yaml'), { out, jobs: 1 })).rejects.toThrow(/EOFD-MLogB needs about/);
    expect(fs.readdirSync(path.join(out)).filter((f) => !f.startsWith('.'))).toEqual([]);
  });

  it('d = 10⁶ with 1,000 actions: 8 GB per environment copy, one per running unit; --jobs that fit are named', () => {
    const text = config('{type: synthetic, d: 1000000, K: 1, reward: [0, 1], actions: [1000, 1000]}', '[Random]', '{}', 8);
    const experiments = resolved(text);
    expect(unitNeeds(experiments[0]!)[0]!.environmentBytes).toBe(8 * GB);
    const machine = { bytes: 32 * GB, source: 'available memory' };
    const { refusal } = sizeRun(experiments, 8, machine);
    expect(refusal).toMatch(/^big: Random needs about 8\.\d\d GB a unit \(its environment copy 8\.00 GB\), 8 at once: 6\d\.\d GB, more than the 32\.0 GB of available memory; use --jobs 3, or a smaller d \(now 1000000\), or fewer actions a round/);
    expect(sizeRun(experiments, 3, machine).refusal).toBeNull();
    expect(sizeRun(experiments, 8, { bytes: 5 * GB, source: 'the address-space limit (ulimit -v)' }).refusal).toMatch(/use a smaller d/);
  });
});

describe('sizing: a trial in lock-step holds all its units', () => {
  it('in this thread (jobs 1) the units of a trial count together, one Node overhead among them', () => {
    const text = config('{type: synthetic, d: 1000000, K: 1, reward: [0, 1], actions: [1000, 1000]}', '[Random, {policy: Random, label: Random-2}]', '{}', 4);
    const experiments = resolved(text);
    const [a, b] = unitNeeds(experiments[0]!);
    const together = a!.bytes + b!.bytes - UNIT_OVERHEAD_BYTES;
    expect(sizeRun(experiments, 1, { bytes: together, source: 'available memory' }).refusal).toBeNull();
    const { refusal } = sizeRun(experiments, 1, { bytes: together - 1, source: 'available memory' });
    expect(refusal).toMatch(/^big: Random needs about 8\.\d\d GB a unit \(its environment copy 8\.00 GB\), with the other units of its trial \(lock-step\): 16\.\d GB, more than/);
    // On two worker threads, one unit each: the same two at once.
    expect(sizeRun(experiments, 2, { bytes: 2 * a!.bytes, source: 'available memory' }).refusal).toBeNull();
  });
});

describe('sizing: what fits', () => {
  it('the shipped quick settings fit this machine, without warnings', () => {
    const text = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'configs', 'quick.yaml'), 'utf8');
    expect(sizeRun(resolved(text), 4)).toEqual({ refusal: null, warnings: [] });
    expect(machineMemory().bytes).toBeGreaterThan(0);
  });

  it('a round of more than 1e11 estimated operations is a warning', () => {
    const text = config('{type: synthetic, d: 3000, K: 1, reward: [0, 1], actions: [10, 10]}', '[MNL-UCB]', '{S: 5}', 1, 100_000);
    const { refusal, warnings } = sizeRun(resolved(text), 1, { bytes: 1e15, source: 'available memory' });
    expect(refusal).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/^big: MNL-UCB: about \d\.\de\+\d+ operations a round by the end/)]);
  });
});
