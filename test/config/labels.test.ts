/** Labels name policy folders and key best.json and the manifest: the names they may not take. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { parseConfigs } from '../../src/config/load.js';
import { labelReason } from '../../src/config/schema.js';
import { REPRODUCE_FILE } from '../../src/experiment/reproduce.js';
import { BASELINE_FILE } from '../../src/report/check.js';
import { REPORT_FILES } from '../../src/report/index.js';
import { BEST_FILE, GRID_FILE, MANIFEST_FILE, REPORT_FOLDER, RESERVED_ENTRY_NAMES, SUMMARY_FILE, SWEEP_FILE, SWEEP_SHARD_FILE } from '../../src/results/layout.js';
import { thrownBy } from '../helpers/errors.js';

const config = (policies: string, params = 'params: {S: 2}'): string =>
  ['name: t', 'environment: {type: synthetic, d: 4, K: 1, reward: [0, 1], actions: [3, 5]}', 'horizon: 5', 'trials: 1', `policies: ${policies}`, params, ''].join('\n');

describe('labels', () => {
  it('reliability: a label that names a file or folder eofd writes beside policy folders, or a prototype key, is refused naming the file, the field and the name (labels checked against layout.ts)', () => {
    for (const label of ['summary.csv', 'manifest.json', 'Manifest.JSON', 'report', 'report.json', 'grid.csv', 'best.json', '__proto__', 'constructor', 'prototype', 'toString']) {
      const error = thrownBy(ConfigError, () => parseConfigs(config(`[{policy: Random, label: ${label}}]`), 'c.yaml'));
      expect((error as Error).message, label).toMatch(/^c\.yaml:\d+:\d+: policies\.0\.label: .*reserved/);
      expect((error as Error).message, label).toContain(JSON.stringify(label));
    }
    expect(parseConfigs(config('[{policy: Random, label: summary}, {policy: Random, label: report-2}]'), 'c.yaml')[0]?.policies.map((p) => p.label)).toEqual(['summary', 'report-2']);
  });

  it('reliability: the reserved list holds every name eofd writes beside policy folders (one list)', () => {
    for (const name of [MANIFEST_FILE, SUMMARY_FILE, REPORT_FOLDER, GRID_FILE, BEST_FILE, SWEEP_FILE, SWEEP_SHARD_FILE, REPRODUCE_FILE, BASELINE_FILE, ...REPORT_FILES]) {
      expect(RESERVED_ENTRY_NAMES, name).toContain(name);
      expect(labelReason(name), name).not.toBeNull();
    }
    expect(labelReason('EOFD-m2')).toBeNull();
  });
});

describe('config arguments', () => {
  it('reliability: a best.json given as a config (the shell expanding --params <glob>) is refused naming the likely cause', () => {
    const best = JSON.stringify({ format: 'eofd-best/1', experiment: 'a', policies: { 'EOFD-MLogB': { values: { 'params.l': 0 } } } });
    const error = thrownBy(ConfigError, () => parseConfigs(best, 'b/best.json'));
    expect((error as Error).message).toMatch(/^b\/best\.json: format: this is a best\.json .*give it after --params, one --params per file/);
  });
});

describe('--set key=null', () => {
  it('reliability: --set params.S=null on a config without a params mapping removes nothing and loads (null removes a key; an absent one is a no-op)', () => {
    const without = config('[Random]', '');
    const [plain] = parseConfigs(without, 'c.yaml');
    const [set] = parseConfigs(without, 'c.yaml', ['params.S=null']);
    expect(set?.params).toEqual(plain?.params);
    // A scalar in the way is still refused with the project's one-line error.
    const blocked = thrownBy(ConfigError, () => parseConfigs(config('[Random]', 'params: {S: 2}'), 'c.yaml', ['params.S.x=null']));
    expect((blocked as Error).message).toMatch(/^--set params\.S\.x=null: params\.S\.x: cannot set this key: params\.S is not a mapping or list/);
  });
});
