import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, RunError } from '../../src/base/errors.js';
import { parseConfigs } from '../../src/config/load.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { resolveExperiment } from '../../src/experiment/setup.js';
import { machineMemory, PaceWatch, PROJECT_AFTER_SECONDS, projectedSeconds, sizeRun, sumOverRounds, UNIT_OVERHEAD_BYTES, unitNeeds, WARN_FLOPS } from '../../src/experiment/sizing.js';
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
    // The action set (1,000 × 10⁶ doubles), W* (10⁶) and the instance's K + 3 numbers per action.
    expect(unitNeeds(experiments[0]!)[0]!.environmentBytes).toBe(8 * (1000 * (1e6 + 4) + 1e6));
    const machine = { bytes: 32 * GB, source: 'available memory' };
    const { refusal } = sizeRun(experiments, 8, machine);
    expect(refusal).toMatch(/^big: Random needs about 8\.\d\d GB a unit \(its environment copy 8\.01 GB\), 8 at once: 6\d\.\d GB, more than the 32\.0 GB of available memory; use --jobs 3, or a smaller d \(now 1000000\), or fewer actions a round/);
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
    expect(refusal).toMatch(/^big: Random needs about 8\.\d\d GB a unit \(its environment copy 8\.01 GB\), with the other units of its trial \(lock-step\): 16\.\d GB, more than/);
    // On two worker threads, one unit each: the same two at once.
    expect(sizeRun(experiments, 2, { bytes: 2 * a!.bytes, source: 'available memory' }).refusal).toBeNull();
  });
});

describe('sizing: environments and whole units, before they start', () => {
  const huge = '{type: synthetic, d: 1000000, K: 1, reward: [0, 1], actions: [1000, 1000]}';

  it('reliability: an environment copy larger than the machine is refused with its estimate and the limit before it is built (environment memory sized like the policies)', async () => {
    const [parsed] = parseConfigs(config(huge, '[Random]', '{}'), 'huge.yaml');
    const machine = { bytes: 4 * GB, source: 'the address-space limit (ulimit -v)' };
    expect(() => resolveExperiment(parsed!, { configFile: 'huge.yaml', machine })).toThrow(
      /^huge\.yaml: environment: one copy of this environment needs about 8\.01 GB \(every unit plays its own\), more than the 4\.00 GB of the address-space limit \(ulimit -v\); use fewer actions a round or a smaller d$/,
    );
    // A machine that holds it resolves it (the copy is then counted per unit by sizeRun).
    expect(() => resolveExperiment(parsed!, { configFile: 'huge.yaml', machine: { bytes: 9 * GB, source: 'available memory' } })).not.toThrow();
  });

  it('sumOverRounds: the exact sum for T ≤ 64, and within cost″·T/24 of it for a cubic cost over 10⁶ rounds', () => {
    const cubic = (t: number): number => 3 + 2 * t + 0.5 * t * t + 1e-3 * t ** 3;
    let exact = 0;
    for (let t = 1; t <= 40; t++) exact += cubic(t);
    expect(sumOverRounds(cubic, 40)).toBe(exact);
    const T = 1_000_000;
    exact = 0;
    for (let t = 1; t <= T; t++) exact += cubic(t);
    expect(Math.abs(sumOverRounds(cubic, T) - exact)).toBeLessThanOrEqual((1 + 6e-3 * T) * T / 24 + 1e-12 * exact);
  });

  it('reliability: a unit whose rounds grow with t (OFULog-r, d = 5, T = 2·10⁶) is warned about from its total work over the horizon before it starts (expected total work estimated)', () => {
    const text = config('{type: synthetic, d: 5, K: 1, reward: [0, 1], actions: [10, 30]}', '[OFULog-r]', '{S: 5}', 1, 2_000_000);
    const [need] = unitNeeds(resolved(text)[0]!);
    // Its last round alone is below the per-round guard; the unit, Σ_t (8|A| + 3)(t·d² + 4td + d³/3), is not.
    expect(need!.flops).toBeLessThan(WARN_FLOPS);
    const exact = (8 * 30 + 3) * ((25 + 20) * (2e6 * (2e6 + 1)) / 2 + 2e6 * (125 / 3));
    expect(need!.totalFlops).toBeCloseTo(exact, -Math.floor(Math.log10(exact)) + 9);
    const { refusal, warnings } = sizeRun(resolved(text), 1, { bytes: 1e15, source: 'available memory' });
    expect(refusal).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/^big: OFULog-r: about 2\.2e\+16 operations a unit over its horizon \(at least 25 days a unit at 10 Gflop\/s, its rounds growing with t\): a shorter horizon/)]);
    // T = 2·10⁴: a hundredth of a day's work, no warning.
    expect(sizeRun(resolved(text.replace('horizon: 2000000', 'horizon: 20000')), 1, { bytes: 1e15, source: 'available memory' }).warnings).toEqual([]);
  });
});

describe('sizing: the pace of a running unit', () => {
  it('projectedSeconds: the measured time scaled by the sums of the cost model (constant and linear costs, exactly)', () => {
    expect(projectedSeconds(2, 100, 10_000, () => 7)).toBeCloseTo(200, 9);
    // Σ_{t≤T} t / Σ_{t≤r} t = T(T+1) / (r(r+1)).
    expect(projectedSeconds(5, 1000, 2_000_000, (t) => t) / (5 * (2e6 * 2000001) / (1000 * 1001))).toBeCloseTo(1, 12);
    expect(projectedSeconds(5, 0, 10, () => 1)).toBe(Infinity);
  });

  it('reliability: a unit whose first seconds project past a day is warned about while it runs, once per experiment (measured pace, extrapolated with the growth of the cost model)', () => {
    const text = config('{type: synthetic, d: 5, K: 1, reward: [0, 1], actions: [10, 30]}', '[OFULog-r, Random]', '{S: 5}', 2, 2_000_000);
    const [experiment] = resolved(text);
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const lines: string[] = [];
      const watch = new PaceWatch((line) => lines.push(line));
      watch.start('trial-0', experiment!, 'OFULog-r');
      watch.start('trial-0', experiment!, 'Random');
      now = 1000 * (PROJECT_AFTER_SECONDS - 1);
      watch.progress('trial-0', 'big', 'trial 0', 1000);
      expect(lines).toEqual([]);
      now = 1000 * (PROJECT_AFTER_SECONDS + 1);
      watch.progress('trial-0', 'big', 'trial 0', 2000);
      expect(lines).toEqual([expect.stringMatching(/^big: trial 0: 2000 of 2000000 rounds in 6 s; at this pace, its rounds growing with t, it takes about [\d,]+ days: stop it/)]);
      // A second trial of the same experiment: no second warning.
      watch.start('trial-1', experiment!, 'OFULog-r');
      now += 1000 * (PROJECT_AFTER_SECONDS + 1);
      watch.progress('trial-1', 'big', 'trial 1', 2000);
      expect(lines).toHaveLength(1);
      // A pace that finishes within the day: no warning.
      const other = new PaceWatch((line) => lines.push(line));
      other.start('fast', experiment!, 'Random');
      now += 1000 * (PROJECT_AFTER_SECONDS + 1);
      other.progress('fast', 'other', 'trial 0', 1_000_000);
      expect(lines).toHaveLength(1);
    } finally {
      clock.mockRestore();
    }
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
