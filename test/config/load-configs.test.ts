import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfig, loadConfigs } from '../../src/config/load.js';
import { resolveExperiment } from '../../src/experiment/setup.js';

let dir: string;
let counter = 0;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'eofd-configs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function doc(name: string, extra = ''): string {
  return `name: ${name}
environment: {type: synthetic, d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}
horizon: 30
trials: 2
policies: [EOFD-MLogB, Random]
${extra}`;
}

function write(content: string): string {
  const file = path.join(dir, `multi-${counter++}.yaml`);
  writeFileSync(file, content);
  return file;
}

function failure(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).not.toContain('\n');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfigs: bad arguments and malformed multi-document files', () => {
  it('names the line and column inside the second document', () => {
    const file = write(`${doc('a')}---\n${doc('b').replace('horizon: 30', 'horizon: -5')}`);
    const error = failure(() => loadConfigs(file));
    // Document a has 5 lines, then '---' on line 6; document b's horizon is its third line: line 9.
    expect({ line: error.line, column: error.column, field: error.field }).toEqual({ line: 9, column: 10, field: 'horizon' });
    expect(error.message).toBe(`${file}:9:10: horizon: expected an integer in [1, 100000000], got -5`);
  });

  it('reports YAML syntax errors and duplicate keys in a later document at their line', () => {
    const file = write(`${doc('a')}---\n${doc('b')}trials: 3\n`);
    const error = failure(() => loadConfigs(file));
    expect(error.line).toBe(12);
    expect(error.detail).toMatch(/duplicate key/);
  });

  it('rejects two experiments with the same name, at the second name', () => {
    const file = write(`${doc('same')}---\n${doc('same')}`);
    const error = failure(() => loadConfigs(file));
    expect({ line: error.line, column: error.column, field: error.field }).toEqual({ line: 7, column: 7, field: 'name' });
    expect(error.detail).toMatch(/already the name of the experiment at line 1/);
  });

  it('blames an override that makes two names equal', () => {
    const file = write(`${doc('a')}---\n${doc('b')}`);
    const error = failure(() => loadConfigs(file, ['name=x']));
    expect(error.message).toMatch(/^--set name=x: name: "x" is already the name/);
  });

  it('reports an empty file like an empty document', () => {
    const error = failure(() => loadConfigs(write('')));
    expect(error.detail).toMatch(/got null$/);
  });

  it('loadConfig still refuses a file with several documents', () => {
    const file = write(`${doc('a')}---\n${doc('b')}`);
    expect(failure(() => loadConfig(file)).detail).toMatch(/multiple documents/);
  });
});

describe('loadConfigs', () => {
  it('returns one config per document, in file order, skipping empty documents', () => {
    const file = write(`---\n${doc('a')}---\n${doc('b')}---\n# nothing here\n`);
    const configs = loadConfigs(file);
    expect(configs.map((c) => c.name)).toEqual(['a', 'b']);
    expect(configs[0]?.source).toBe(path.resolve(file));
  });

  it('applies every override to every document', () => {
    const file = write(`${doc('a')}---\n${doc('b')}`);
    const configs = loadConfigs(file, ['horizon=7', 'policies=[EOFD-MLogB]', 'params.m=2']);
    for (const config of configs) {
      expect(config.horizon).toBe(7);
      expect(config.policies.map((p) => p.label)).toEqual(['EOFD-MLogB']);
      expect(config.params.m).toBe(2);
    }
  });

  it('reads a single-document file (and JSON) as a list of one', () => {
    expect(loadConfigs(write(doc('solo'))).map((c) => c.name)).toEqual(['solo']);
    const json = path.join(dir, 'one.json');
    writeFileSync(json, JSON.stringify({ name: 'j', environment: { type: 'mnist' }, horizon: 5, trials: 1, policies: ['Random'] }));
    expect(loadConfigs(json)[0]?.environment).toEqual({ type: 'mnist', target: 1, normalize: 'per-image' });
  });

  it('reads configs/mnist.json exactly as configs/mnist.yaml (the $schema link is not part of the experiment)', () => {
    const [json] = loadConfigs(path.resolve('configs/mnist.json'));
    const [yaml] = loadConfigs(path.resolve('configs/mnist.yaml'));
    expect(json?.source).toBe(path.resolve('configs/mnist.json'));
    expect({ ...json, source: '' }).toEqual({ ...yaml, source: '' });
    expect(JSON.parse(readFileSync('configs/mnist.json', 'utf8')).$schema).toBe('./eofd.schema.json');
  });

  it('reads the shipped quick.yaml: the three paper settings at reduced size', () => {
    const configs = loadConfigs(path.resolve('configs/quick.yaml'));
    expect(configs.map((c) => [c.environment.type, c.horizon, c.trials, c.policies.map((p) => p.label)])).toEqual([
      ['mnist', 200, 2, ['EOFD-MLogB', 'OFUL-MLogB', 'Random']],
      ['synthetic', 500, 2, ['EOFD-MLogB', 'OFUL-MLogB', 'Random']],
      ['synthetic', 500, 2, ['EOFD-MLogB', 'OFUL-MLogB', 'Random']],
    ]);
    const full = ['mnist', 'synthetic-k4', 'synthetic-binary'].map((n) => loadConfigs(path.resolve(`configs/${n}.yaml`))[0]);
    configs.forEach((config, i) => {
      expect(config.params).toEqual(full[i]?.params);
      expect(config.environment).toEqual(full[i]?.environment);
    });
  });

  it("reads the shipped paper.yaml (eofd reproduce's default): the three settings exactly as their own configs give them, plus OFUL-textbook; MNIST tuned on synthetic-binary's grid", () => {
    const configs = loadConfigs(path.resolve('configs/paper.yaml'));
    const own = ['mnist', 'synthetic-k4', 'synthetic-binary'].map((n) => loadConfigs(path.resolve(`configs/${n}.yaml`))[0]!);
    expect(configs).toHaveLength(3);
    // The grid runs "on synthetic validation runs" (Section 4): MNIST borrows the other K = 1 setting's choice.
    expect(configs.map((c) => c.tune_from)).toEqual(['synthetic-binary', undefined, undefined]);
    const comparable = (c: (typeof configs)[number]) => ({ ...c, source: '', document: undefined, tune_from: undefined, policies: c.policies.filter((e) => e.label !== 'OFUL-textbook') });
    configs.forEach((config, i) => {
      expect(comparable(config)).toEqual(comparable(own[i]!));
      expect(config.policies.map((e) => e.label)).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'OFUL-textbook', 'Random']);
      expect(config.policies[2]).toEqual({ label: 'OFUL-textbook', policy: 'OFUL-MLogB', params: { oful_solver: 'textbook' } });
    });
  });
});

describe('configs/baselines-added.yaml', () => {
  it("plays the trials of configs/baselines.yaml: the same experiments but for their policies, every policy at a K it plays", () => {
    const added = loadConfigs(path.resolve('configs/baselines-added.yaml'));
    const published = new Map(loadConfigs(path.resolve('configs/baselines.yaml')).map((c) => [c.name, c]));
    const comparable = (c: (typeof added)[number]) => ({ ...c, source: '', document: undefined, policies: [] });
    expect(added.map((c) => c.name)).toEqual(['baselines-mnist', 'baselines-synthetic-k4', 'baselines-synthetic-binary']);
    for (const config of added) {
      expect(comparable(config)).toEqual(comparable(published.get(config.name)!));
      // Refuses a policy that does not play the setting's K, or a key it does not read.
      const labels = Object.keys(resolveExperiment(config).derived.policies);
      expect(labels[0]).toBe('EOFD-MLogB');
      expect(labels.at(-1)).toBe('Random');
    }
  });
});
