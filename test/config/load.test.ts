import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfig, parseConfig } from '../../src/config/load.js';

let dir: string;
let counter = 0;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'eofd-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALID = `name: synthetic-k4
environment: {type: synthetic, d: 100, K: 4, reward: [0, 0.25, 0.5, 0.75, 1], actions: [10, 30], S_star: 2}
horizon: 3000
trials: 10
seed: 0
policies: [EOFD-MLogB, OFUL-MLogB]
params: {S: 1, l: 0.75, e: 0.75, m: auto, beta: theory, beta_scale: 1, delta: auto}
`;

function write(content: string | Uint8Array, extension = 'yaml'): string {
  const file = path.join(dir, `config-${counter++}.${extension}`);
  writeFileSync(file, content);
  return file;
}

/** Loads `content` expecting a ConfigError; returns it. */
function failure(content: string | Uint8Array, overrides: string[] = [], extension = 'yaml'): ConfigError {
  const file = write(content, extension);
  try {
    loadConfig(file, overrides);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.exitCode).toBe(2);
    expect(configError.message).not.toContain('\n');
    if (configError.override === undefined && configError.line !== undefined) {
      expect(configError.message.startsWith(`${file}:${configError.line}:${configError.column}: `)).toBe(true);
    }
    return configError;
  }
  throw new Error('expected a ConfigError');
}

function expectAt(error: ConfigError, line: number, column: number, field: string, detail: RegExp): void {
  expect({ line: error.line, column: error.column, field: error.field }).toEqual({ line, column, field });
  expect(error.detail).toMatch(detail);
}

describe('loadConfig: bad arguments and malformed configs', () => {
  it('reports a missing file', () => {
    const error = (() => {
      try {
        loadConfig(path.join(dir, 'nope.yaml'));
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/nope\.yaml: cannot read the config: no such file \(the package ships: .*quick.*; name one instead of a file, e\.g\. `eofd run quick`\)$/);
  });

  it('rejects an unknown top-level key, listing the allowed ones', () => {
    const error = failure(`${VALID}extra: 1\n`);
    expectAt(error, 8, 1, 'extra', /unknown key "extra" \(allowed: name, environment, horizon, trials, seed, policies, params, tune_from\)/);
  });

  it('rejects an unknown nested key', () => {
    const error = failure(VALID.replace('beta_scale: 1', 'beta_scale: 1, gamma: 2'));
    expectAt(error, 7, 72, 'params.gamma', /unknown key "gamma"/);
    const env = failure(VALID.replace('S_star: 2', 'S_star: 2, noise: 1'));
    expectAt(env, 2, 109, 'environment.noise', /unknown key "noise" \(allowed: type, d, K, reward, actions, S_star\)/);
  });

  it('rejects a wrong type', () => {
    const error = failure(VALID.replace('trials: 10', 'trials: ten'));
    expectAt(error, 4, 9, 'trials', /^expected an integer in \[1, 10000\], got "ten"$/);
  });

  it('rejects r_0 ≠ 0', () => {
    const error = failure(VALID.replace('reward: [0,', 'reward: [0.1,'));
    expectAt(error, 2, 55, 'environment.reward.0', /r_0 .* must be 0, got 0\.1/);
  });

  it('rejects a reward list whose length is not K + 1', () => {
    const error = failure(VALID.replace('0.75, 1]', '0.75]'));
    expectAt(error, 2, 54, 'environment.reward', /expected K \+ 1 = 5 entries r_0\.\.r_4, got 4/);
  });

  it('rejects a negative reward', () => {
    const error = failure(VALID.replace('0.25, 0.5', '-0.25, 0.5'));
    expectAt(error, 2, 58, 'environment.reward.1', /expected a finite number ≥ 0, got -0\.25/);
  });

  it('rejects a negative horizon', () => {
    const error = failure(VALID.replace('horizon: 3000', 'horizon: -5'));
    expectAt(error, 3, 10, 'horizon', /^expected an integer in \[1, 100000000\], got -5$/);
  });

  it('rejects duplicate YAML keys', () => {
    const error = failure(VALID.replace('params: {S: 1,', 'params: {S: 1, S: 2,'));
    expectAt(error, 7, 16, 'params.S', /duplicate key/);
  });

  it('rejects duplicate JSON keys', () => {
    const error = failure('{\n  "name": "a",\n  "name": "b"\n}\n', [], 'json');
    expectAt(error, 3, 3, 'name', /duplicate key/);
  });

  it('rejects truncated JSON', () => {
    const error = failure('{\n  "name": "x",\n  "horizon": 3', [], 'json');
    expect(error.line).toBe(3);
    expect(error.detail).toMatch(/Flow map must end with a \}/);
  });

  it('rejects non-UTF-8 bytes with their position', () => {
    const bytes = Buffer.concat([Buffer.from('name: caf'), Buffer.from([0xe9]), Buffer.from('\nhorizon: 1\n')]);
    const error = failure(bytes);
    expect({ line: error.line, column: error.column }).toEqual({ line: 1, column: 10 });
    expect(error.detail).toMatch(/not valid UTF-8 \(byte 0xe9 at offset 9\); save the config as UTF-8/);
    // Which bytes are invalid, and their line and column: test/base/utf8.test.ts.
  });

  it('rejects an unknown policy, listing the allowed ones', () => {
    const error = failure(VALID.replace('OFUL-MLogB]', 'UCB]'));
    expectAt(error, 6, 24, 'policies.1', /^expected a policy name \('EOFD-MLogB', 'OFUL-MLogB', 'Random', .* or '[^']+'\), a mapping \{policy, label, params\}, \{command, label, params, timeout\} \(a policy in another process\) or \{module, label, params\} \(a policy from a JavaScript module\), got "UCB"$/);
  });

  it('rejects a repeated policy and an empty list', () => {
    expectAt(failure(VALID.replace('OFUL-MLogB]', 'EOFD-MLogB]')), 6, 24, 'policies.1', /the label "EOFD-MLogB" is used twice/);
    expectAt(failure(VALID.replace('[EOFD-MLogB, OFUL-MLogB]', '[]')), 6, 11, 'policies', /non-empty list/);
  });

  it('rejects a bad beta, naming the allowed values', () => {
    const error = failure(VALID.replace('beta: theory', 'beta: thoery'));
    expect(error.message).toBe(
      `${error.file}:7:49: params.beta: expected 'theory', 'order' or a number ≥ 0 (0: greedy), got "thoery"`,
    );
    expectAt(failure(VALID.replace('beta: theory', 'beta: -1')), 7, 49, 'params.beta', /got -1$/);
  });

  it('rejects K = 0 and K > 64', () => {
    expectAt(failure(VALID.replace('K: 4', 'K: 0')), 2, 43, 'environment.K', /^expected an integer in \[1, 64\], got 0$/);
    expectAt(failure(VALID.replace('K: 4', 'K: 65')), 2, 43, 'environment.K', /got 65$/);
  });

  it('rejects a huge d', () => {
    const error = failure(VALID.replace('d: 100', 'd: 1e12'));
    expectAt(error, 2, 35, 'environment.d', /^expected an integer in \[1, 1000000\], got 1000000000000$/);
  });

  it('rejects bad action ranges', () => {
    expectAt(failure(VALID.replace('[10, 30]', '[30, 10]')), 2, 88, 'environment.actions', /1 ≤ min ≤ max ≤ 10000, got \[30, 10\]/);
    expectAt(failure(VALID.replace('[10, 30]', '[10]')), 2, 88, 'environment.actions', /got \[10\]/);
    expectAt(failure(VALID.replace('[10, 30]', '[0, 30]')), 2, 89, 'environment.actions.0', /got 0/);
  });

  it('rejects an unknown environment type and a missing one', () => {
    expectAt(failure(VALID.replace('type: synthetic', 'type: synth')), 2, 21, 'environment.type', /^expected 'synthetic', 'mnist', 'classification', 'trace' or 'module', got "synth"$/);
    expectAt(failure(VALID.replace('type: synthetic, ', '')), 2, 14, 'environment.type', /^missing; expected 'synthetic'/);
  });

  it('rejects a missing required key at its mapping', () => {
    expectAt(failure(VALID.replace('horizon: 3000\n', '')), 1, 1, 'horizon', /^missing; expected an integer in \[1, 100000000\]$/);
  });

  it('rejects bad m, delta, S, name and mnist target', () => {
    expectAt(failure(VALID.replace('m: auto', 'm: 0')), 7, 37, 'params.m', /'auto' .* or an integer ≥ 1, got 0/);
    expectAt(failure(VALID.replace('delta: auto', 'delta: 1')), 7, 79, 'params.delta', /number in \(0, 1\), got 1/);
    expectAt(failure(VALID.replace('S: 1,', 'S: 0,')), 7, 13, 'params.S', /positive number, got 0/);
    expectAt(failure(VALID.replace('name: synthetic-k4', 'name: ../up')), 1, 7, 'name', /folder name/);
    expectAt(failure(VALID.replace('name: synthetic-k4', 'name: ".."')), 1, 7, 'name', /folder name/);
    const mnist = VALID.replace(/environment: .*\n/, 'environment: {type: mnist, target: 12}\n');
    expectAt(failure(mnist), 2, 36, 'environment.target', /integer in \[0, 9\], got 12/);
  });

  it('rejects a non-mapping document, an empty one and multiple documents', () => {
    expectAt(failure('- a\n- b\n'), 1, 1, '', /^expected a mapping with keys name, .*got \["a","b"\]$/);
    expectAt(failure(''), 1, 1, '', /got null$/);
    expect(failure(`${VALID}---\nname: b\n`).detail).toMatch(/multiple documents/);
  });

  it('rejects a trace file that does not exist, at the file field', () => {
    const error = failure(VALID.replace(/environment: .*\n/, 'environment: {type: trace, file: missing.json}\n'));
    expectAt(error, 2, 34, 'environment.file', /no such file: .*missing\.json/);
  });
});

describe('loadConfig', () => {
  it('returns the typed config with defaults resolved and the source recorded', () => {
    const file = write(VALID);
    const { document, ...config } = loadConfig(file);
    // The document is the file's data as validated (what a sweep varies).
    expect(document).toMatchObject({ name: 'synthetic-k4', horizon: 3000, params: { beta: 'theory' } });
    expect(config).toEqual({
      name: 'synthetic-k4',
      environment: { type: 'synthetic', d: 100, K: 4, reward: [0, 0.25, 0.5, 0.75, 1], actions: [10, 30], S_star: 2 },
      horizon: 3000,
      trials: 10,
      seed: 0,
      policies: [
        { label: 'EOFD-MLogB', policy: 'EOFD-MLogB', params: {} },
        { label: 'OFUL-MLogB', policy: 'OFUL-MLogB', params: {} },
      ],
      params: { S: 1, l: 0.75, e: 0.75, m: 'auto', beta: 'theory', beta_scale: 1, beta_rank: 'sketch', delta: 'auto' },
      source: path.resolve(file),
    });
  });

  it('fills params and seed defaults and S_star = params.S', () => {
    const config = parseConfig(
      'name: b\nenvironment: {type: synthetic, d: 400, K: 1, reward: [0, 1], actions: [10, 30]}\nhorizon: 5\ntrials: 1\npolicies: [Random]\n',
      path.join(dir, 'b.yaml'),
    );
    expect(config.seed).toBe(0);
    expect(config.params).toEqual({ S: 1, l: 0.75, e: 0.75, m: 'auto', beta: 'order', beta_scale: 1, beta_rank: 'sketch', delta: 'auto' });
    expect(config.environment).toMatchObject({ S_star: 1 });
    const withS = parseConfig(
      'name: b\nenvironment: {type: synthetic, d: 4, K: 1, reward: [0, 1], actions: [1, 1]}\nhorizon: 5\ntrials: 1\npolicies: [EOFD-MLogB]\nparams: {S: 5, lambda: 2, eta: 0.5, beta: 3, m: 7, delta: 0.01}\n',
      path.join(dir, 'c.yaml'),
    );
    expect(withS.environment).toMatchObject({ S_star: 5 });
    expect(withS.params).toMatchObject({ S: 5, lambda: 2, eta: 0.5, beta: 3, m: 7, delta: 0.01 });
  });

  it('reads JSON configs and mnist defaults', () => {
    const json = JSON.stringify({ name: 'mnist', environment: { type: 'mnist' }, horizon: 2000, trials: 10, policies: ['EOFD-MLogB'] }, null, '\t');
    const config = loadConfig(write(json, 'json'));
    expect(config.environment).toEqual({ type: 'mnist', target: 1, normalize: 'per-image' });
  });

  it('resolves a trace path against the config file folder', () => {
    const traceFile = path.join(dir, 'instance.json');
    writeFileSync(traceFile, '{}');
    const config = loadConfig(write(VALID.replace(/environment: .*\n/, 'environment: {type: trace, file: instance.json}\n')));
    expect(config.environment).toEqual({ type: 'trace', file: traceFile });
  });

  it('applies overrides before validation', () => {
    const config = loadConfig(write(VALID), ['params.m=400', 'horizon=200', 'policies=[EOFD-MLogB, Random]', 'environment.d=50']);
    expect(config.params.m).toBe(400);
    expect(config.horizon).toBe(200);
    expect(config.policies.map((p) => p.label)).toEqual(['EOFD-MLogB', 'Random']);
    expect(config.environment).toMatchObject({ d: 50 });
  });

  it('names the override in errors that come from it', () => {
    const error = failure(VALID, ['params.m=abc']);
    expect(error.message).toBe(`--set params.m=abc: params.m: expected 'auto' (⌊Kd/10⌋), 'adaptive' (grown to keep Δ_t ≤ 1 + delta_max) or an integer ≥ 1, got "abc"`);
    expect(error.override).toBe('params.m=abc');
    expect(failure(VALID, ['params.extra=1']).message).toMatch(/^--set params\.extra=1: params\.extra: unknown key "extra"/);
    expect(failure(VALID, ['environment={type: mnist, target: 11}']).message).toMatch(
      /^--set environment=\{type: mnist, target: 11\}: environment\.target: expected an integer in \[0, 9\], got 11$/,
    );
  });
});
