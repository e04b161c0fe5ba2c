/** `eofd run --params`: one best.json for every experiment, or one per experiment it was tuned on. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { applyBestFiles, tunedValues } from '../../src/experiment/grid.js';
import { readBestFile } from '../../src/results/read.js';
import { loadConfigs } from '../../src/config/load.js';
import type { ExperimentConfig } from '../../src/config/schema.js';
import { tempDir, writeFile } from '../experiment/fixtures.js';

const experiment = (name: string): string =>
  [`name: ${name}`, 'environment: {type: synthetic, d: 4, K: 1, reward: [0, 1], actions: [3, 5]}', 'horizon: 5', 'trials: 1', 'policies: [EOFD-MLogB, OL2M, Random]', ''].join('\n');

let root: string;
let configs: ExperimentConfig[];
beforeAll(() => {
  root = tempDir('eofd-params-');
  configs = loadConfigs(writeFile(root, 'two.yaml', `${experiment('a')}---\n${experiment('b')}`));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const best = (name: string, experimentName: string, policies: Record<string, Record<string, unknown>>): string =>
  writeFile(root, name, JSON.stringify({ format: 'eofd-best/1', experiment: experimentName, policies: Object.fromEntries(Object.entries(policies).map(([label, values]) => [label, { values }])) }));

describe('run --params', () => {
  it('several files: each applies to the experiment it was tuned on', () => {
    const a = best('a.json', 'a', { 'EOFD-MLogB': { 'params.l': 0 }, OL2M: { 'params.beta_scale': 0.1 } });
    const b = best('b.json', 'b', { 'EOFD-MLogB': { 'params.l': 1 } });
    const notes: string[] = [];
    const [ta, tb] = applyBestFiles(configs, [b, a], (line) => notes.push(line)) as [ExperimentConfig, ExperimentConfig];
    expect(ta.policies.map((p) => p.params)).toEqual([{ l: 0 }, { beta_scale: 0.1 }, {}]);
    expect(tb.policies.map((p) => p.params)).toEqual([{ l: 1 }, {}, {}]);
    expect(notes).toEqual([]);
  });

  it('one file applies to every experiment, with a note where it was tuned on another', () => {
    const a = best('one.json', 'a', { OL2M: { 'params.l': 0.5 } });
    const notes: string[] = [];
    const tuned = applyBestFiles(configs, [a], (line) => notes.push(line));
    expect(tuned.map((c) => c.policies[1]?.params)).toEqual([{ l: 0.5 }, { l: 0.5 }]);
    expect(notes).toEqual([expect.stringMatching(/one\.json was tuned on experiment a, applied to b/)]);
  });

  it('refuses a file for an experiment not in the run, and two files for one experiment (exit 2)', () => {
    const a = best('a2.json', 'a', { OL2M: { 'params.l': 0 } });
    const c = best('c.json', 'c', { OL2M: { 'params.l': 0 } });
    const fail = (files: string[]): RunError => {
      try {
        applyBestFiles(configs, files, () => {});
      } catch (error) {
        expect(error).toBeInstanceOf(RunError);
        expect((error as RunError).exitCode).toBe(2);
        return error as RunError;
      }
      throw new Error('expected a RunError');
    };
    expect(fail([a, c]).message).toMatch(/c\.json: tuned on "c", which is not an experiment of this run \(a, b\)/);
    expect(fail([a, best('a3.json', 'a', { OL2M: { 'params.l': 1 } })]).message).toMatch(/--params: 2 best\.json tuned on a \(give exactly one per experiment/);
  });
});

describe('run --params: reliability', () => {
  const fail = (run: () => unknown): RunError => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).exitCode).toBe(2);
      return error as RunError;
    }
    throw new Error('expected a RunError');
  };
  const withPolicy = (name: string, experimentName: string, label: string, policy: string | undefined, values: Record<string, unknown>): string =>
    writeFile(root, name, JSON.stringify({ format: 'eofd-best/1', experiment: experimentName, policies: { [label]: { ...(policy === undefined ? {} : { policy }), values } } }));

  it('reliability: a best.json tuned for another algorithm under the same label is refused, naming the file, the label and both algorithms (best.json records each label\'s policy)', () => {
    const other = withPolicy('other.json', 'a', 'OL2M', 'EOFD-MLogB', { 'params.l': 0 });
    expect(fail(() => applyBestFiles(configs, [other], () => {})).message).toMatch(/--params .*other\.json: policies\.OL2M: tuned for EOFD-MLogB, but OL2M runs OL2M in experiment a/);
    // The same file with the label's own policy applies, and an older file without a policy still does.
    const same = withPolicy('same.json', 'a', 'OL2M', 'OL2M', { 'params.l': 0 });
    const old = withPolicy('old.json', 'a', 'OL2M', undefined, { 'params.l': 0 });
    for (const file of [same, old]) expect(applyBestFiles(configs, [file], () => {}).map((c) => c.policies[1]?.params)).toEqual([{ l: 0 }, { l: 0 }]);
  });

  it('reliability: --experiment with the full list of --params files picks the file tuned on that experiment (one cluster job per experiment)', () => {
    const a = best('ea.json', 'a', { 'EOFD-MLogB': { 'params.l': 0 } });
    const b = best('eb.json', 'b', { 'EOFD-MLogB': { 'params.l': 1 } });
    const [onlyB] = [configs[1] as ExperimentConfig];
    const [tb] = applyBestFiles([onlyB], [a, b], () => {}, ['a']) as [ExperimentConfig];
    expect(tb.name).toBe('b');
    expect(tb.policies[0]?.params).toEqual({ l: 1 });
    // A file tuned on an experiment in no config file is still refused.
    const c = best('ec.json', 'c', { 'EOFD-MLogB': { 'params.l': 0 } });
    expect(fail(() => applyBestFiles([onlyB], [a, b, c], () => {}, ['a'])).message).toMatch(/ec\.json: tuned on "c", which is not an experiment of this run \(b, a\)/);
  });

  it('reliability: a label that is a prototype key is read from best.json, not lost (tunedValues keys an object without a prototype)', () => {
    const file = writeFile(root, 'proto.json', '{"format": "eofd-best/1", "experiment": "a", "policies": {"OL2M": {"policy": "OL2M", "values": {"params.l": 0}}, "__proto__": {"policy": "Random", "values": {"params.l": 0}}}}');
    const tuned = tunedValues(file, readBestFile(file));
    expect(Object.keys(tuned.policies)).toEqual(['OL2M', '__proto__']);
    expect([...tuned.algorithms]).toEqual([['OL2M', 'OL2M'], ['__proto__', 'Random']]);
    // A label of the config that is no key of the file takes nothing from Object.prototype.
    expect(applyBestFiles(configs, [file], () => {}).map((c) => c.policies.map((p) => p.params))).toEqual([[{}, { l: 0 }, {}], [{}, { l: 0 }, {}]]);
  });
});
