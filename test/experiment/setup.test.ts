/**
 * Every legal config either runs or is refused before any work (ConfigError, exit 2): derived values
 * that would overflow, underflow or make δ = 1 are caught when the experiment is resolved, never by a
 * unit failing at run time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import { policySpecFor, resolveExperiment } from '../../src/experiment/setup.js';
import { maxWorkerThreads, runExperiments } from '../../src/experiment/runner.js';
import { tempDir, tinyConfig, writeFile } from './fixtures.js';
import { thrownBy } from '../helpers/errors.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-setup-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function resolveWith(overrides: string[], config = tinyConfig('s')): () => unknown {
  const [loaded] = loadConfigs(writeFile(root, 's.yaml', config), overrides);
  return () => resolveExperiment(loaded!);
}

describe('resolveExperiment refuses derived values no policy can use (exit 2)', () => {
  const cases: [string[], RegExp][] = [
    [['horizon=1'], /params: EOFD-MLogB: delta must lie in \(0, 1\), got 1 \(δ = 1\/T with T = 1: give horizon ≥ 2, or params.delta in \(0, 1\)\)/],
    [['params.l=500'], /params: EOFD-MLogB: lambda must be a number in \[1e-30, 1e\+30\], got Infinity \(λ = \(√K d\)\^l λ0 with l = 500/],
    [['params.e=-400'], /params: EOFD-MLogB: eta must be a number in \[1e-30, 1e\+30\], got 0 \(η = \(√K d\)\^e η0 with e = -400/],
    [['params.S=1e200'], /params: EOFD-MLogB: S must be a number in \[1e-30, 1e\+30\], got 1e\+200/],
    [['params.lambda=1e-300'], /params: EOFD-MLogB: lambda must be a number in \[1e-30, 1e\+30\], got 1e-300$/],
    [['environment.reward=[0, 1, 1e308]'], /params: EOFD-MLogB: reward r_2 must be a number in \[0, 1000000000000\], got 1e\+308/],
  ];
  for (const [overrides, message] of cases) {
    it(overrides.join(' '), () => {
      const error = thrownBy(ConfigError, resolveWith(overrides));
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(message);
    });
  }

  it('horizon 1 with δ given runs; moderate extremes resolve', () => {
    expect(() => resolveWith(['horizon=1', 'params.delta=0.5'])()).not.toThrow();
    expect(() => resolveWith(['params.l=20', 'params.e=-20'])()).not.toThrow();
  });

  it('a refused config writes nothing: no experiment folder, no lock left', async () => {
    const [config] = loadConfigs(writeFile(root, 'r.yaml', tinyConfig('r')), ['params.l=500']);
    const out = path.join(root, 'out');
    await expect(runExperiments([config!], { out })).rejects.toThrow(/lambda must be a number/);
    expect(fs.readdirSync(out)).toEqual([]);
  });
});

describe('resources are bounded', () => {
  it('trials and horizon have upper bounds in the schema', () => {
    expect(() => loadConfigs(writeFile(root, 't.yaml', tinyConfig('t')), ['trials=10001'])).toThrow(/trials: expected an integer in \[1, 10000\]/);
    expect(() => loadConfigs(writeFile(root, 'h.yaml', tinyConfig('h')), ['horizon=100000001'])).toThrow(/horizon: expected an integer in \[1, 100000000\]/);
  });

  it('jobs is at most 4 per core', async () => {
    const [config] = loadConfigs(writeFile(root, 'j.yaml', tinyConfig('j')));
    const jobs = maxWorkerThreads() + 1;
    await expect(runExperiments([config!], { out: path.join(root, 'jobs'), jobs })).rejects.toThrow(new RegExp(`jobs must be at most ${jobs - 1} .*got ${jobs}`));
  });
});

// params.sketch (absent → 'fd') and params.beta: 0 in a policy's spec, and the seeded stream a drawing policy gets.
function resolved(params: string, policies = '[EOFD-MLogB, EOFD-TS, SOFUL, TS-MLogB]') {
  const text = tinyConfig('setup', { policies }).replace(/^params: .*$/m, '') + `params: {S: 2${params}}\n`;
  return resolveExperiment(loadConfigs(writeFile(root, 'c.yaml', text))[0]!);
}

describe('setup: bad sketch and β params', () => {
  it('rejects an unknown sketch and a negative β, naming the field', () => {
    expect(() => resolved(', sketch: fd2')).toThrow(ConfigError);
    expect(() => resolved(', sketch: fd2')).toThrow(/params\.sketch: expected 'fd' or 'rfd', got "fd2"/);
    expect(() => resolved(', beta: -0.1')).toThrow(/params\.beta: .*or a number ≥ 0 \(0: greedy\)/);
  });
});

describe('setup: params reach the policy spec', () => {
  it("params.sketch: absent is 'fd' (and stays out of the recorded params), rfd is passed on", () => {
    const plain = resolved('');
    expect(plain.config.params).not.toHaveProperty('sketch');
    expect(policySpecFor(plain, 'EOFD-MLogB', 0).sketchVariant).toBe('fd');
    const robust = resolved(', sketch: rfd');
    for (const policy of ['EOFD-MLogB', 'EOFD-TS', 'SOFUL']) expect(policySpecFor(robust, policy, 0).sketchVariant).toBe('rfd');
  });
  it("params.oful_solver: absent is 'incremental' and unrecorded; textbook reaches OFUL-MLogB's spec and its recorded params", () => {
    const plain = resolved('', '[OFUL-MLogB]');
    expect(plain.derived.policies['OFUL-MLogB']).not.toHaveProperty('oful_solver');
    expect(policySpecFor(plain, 'OFUL-MLogB', 0).options).toEqual({ oful_solver: 'incremental' });
    const textbook = resolved(', oful_solver: textbook', '[OFUL-MLogB]');
    expect(textbook.derived.policies['OFUL-MLogB']!.oful_solver).toBe('textbook');
    expect(policySpecFor(textbook, 'OFUL-MLogB', 0).options).toEqual({ oful_solver: 'textbook' });
    expect(() => resolved(', oful_solver: fast', '[OFUL-MLogB]')).toThrow(/params\.oful_solver: expected 'incremental' or 'textbook', got "fast"/);
    // An entry whose policy does not read it may not be given it.
    expect(() => resolved('', '[{policy: EOFD-MLogB, params: {oful_solver: textbook}}]')).toThrow(/EOFD-MLogB does not read oful_solver|oful_solver.*EOFD-MLogB/);
  });
  it('params.beta: 0 is a constant radius of 0', () => {
    expect(policySpecFor(resolved(', beta: 0'), 'EOFD-MLogB', 0).beta).toBe(0);
  });
  it('the Thompson-sampling policies get their own seeded stream, the same for the same trial', () => {
    const experiment = resolved('');
    for (const policy of ['TS-MLogB', 'EOFD-TS']) {
      const a = policySpecFor(experiment, policy, 1).uniform!;
      const b = policySpecFor(experiment, policy, 1).uniform!;
      const first = [a(), a(), a()];
      expect([b(), b(), b()]).toEqual(first);
      expect(first.every((u) => u >= 0 && u < 1)).toBe(true);
    }
    expect(policySpecFor(experiment, 'TS-MLogB', 1).uniform!()).not.toBe(policySpecFor(experiment, 'EOFD-TS', 1).uniform!());
    expect(policySpecFor(experiment, 'SOFUL', 1).uniform).toBeUndefined();
  });
});
