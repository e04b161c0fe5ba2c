/**
 * `eofd merge` writes only directly inside --out: a folder name taken from an input (a manifest's
 * `name`, a sweep point's manifest) that is not a legal experiment name is refused before anything is
 * written, and legal names starting with '.' are merged, not dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import { runGrid } from '../../src/experiment/grid.js';
import { mergeShards } from '../../src/experiment/merge.js';
import { listFiles, runCli, tempDir, tinyConfig, writeFile } from './fixtures.js';
import { thrownBy } from '../helpers/errors.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-merge-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Every path under `dir` (files and folders), relative. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('eofd merge: names from the inputs', () => {
  let single: string;
  beforeAll(async () => {
    const config = writeFile(root, 'a.yaml', tinyConfig('a', { horizon: 8, trials: 1, policies: '[EOFD-MLogB]' }));
    expect((await runCli(['run', config, '--out', path.join(root, 'run'), '--quiet'])).code).toBe(0);
    single = path.join(root, 'run', 'a');
  });

  for (const name of ['..', '../escaped', 'a/../../b', '', '.']) {
    it(`a manifest naming ${JSON.stringify(name)} is refused (exit 2) and nothing is written or deleted`, () => {
      const parent = fs.mkdtempSync(path.join(root, 'crafted-'));
      const input = path.join(parent, 'input');
      fs.cpSync(single, input, { recursive: true });
      const manifestFile = path.join(input, 'manifest.json');
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { name: string };
      manifest.name = name;
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
      const out = path.join(parent, 'out');
      fs.mkdirSync(out);
      fs.writeFileSync(path.join(parent, 'keep.txt'), 'not eofd');
      const before = tree(parent);
      const error = thrownBy(RunError, () => mergeShards([input], { out, force: true }));
      expect(error.exitCode).toBe(2);
      // (The manifest reader already refuses an empty name; the others pass it and meet the name rule.)
      expect(error.message).toMatch(name === '' ? /name/ : /is not a legal experiment name/);
      expect(tree(parent)).toEqual(before);
    });
  }

  it('an experiment whose name starts with a dot is merged like any other', async () => {
    const config = writeFile(root, 'dot.yaml', tinyConfig('.hidden', { horizon: 8, trials: 2, policies: '[EOFD-MLogB]' }));
    const shards = path.join(root, 'dot-shards');
    for (const shard of ['0/2', '1/2']) expect((await runCli(['run', config, '--out', shards, '--shard', shard, '--quiet'])).code).toBe(0);
    const out = path.join(root, 'dot-merged');
    const result = mergeShards([path.join(shards, 'shard-0-of-2'), path.join(shards, 'shard-1-of-2')], { out });
    expect(result.folders.map((f) => f.name)).toEqual(['.hidden']);
    expect(listFiles(path.join(out, '.hidden'))).toContain(path.join('EOFD-MLogB', 'trial-1.csv'));
  });
});

describe('eofd grid --force clears the previous grid first', () => {
  it('a new grid that stops before finishing leaves no best.json, grid.csv or heatmap of the old one', async () => {
    const out = fs.mkdtempSync(path.join(root, 'grid-'));
    const file = writeFile(root, 'g.yaml', tinyConfig('g', { horizon: 6, trials: 1, policies: '[EOFD-MLogB]' }));
    const [config] = loadConfigs(file);
    const first = await runGrid(config!, { out, l: [0, 0.5], e: [0] });
    expect(first.best).not.toBeNull();
    const dir = path.join(out, 'g-grid');
    expect(fs.readdirSync(dir)).toEqual(expect.arrayContaining(['best.json', 'grid.csv', 'heatmap-EOFD-MLogB.svg', 'l=0.5,e=0']));
    // The second grid is stopped before its first unit (as by Ctrl-C): it cannot write outputs of its own.
    const stopped = new AbortController();
    stopped.abort();
    const second = await runGrid(config!, { out, l: [0, 0.25], e: [0], force: true, signal: stopped.signal });
    expect(second.run.interrupted).toBe(true);
    const left = fs.readdirSync(dir);
    expect(left.filter((f) => /^(best\.json|grid\.csv|heatmap-.*\.svg)$/.test(f))).toEqual([]);
    // The old grid's point l=0.5 is gone too.
    expect(left.filter((f) => f.startsWith('l=0.5'))).toEqual([]);
  });

  it('without --force an existing grid is refused and kept whole', async () => {
    const out = fs.mkdtempSync(path.join(root, 'grid-kept-'));
    const [config] = loadConfigs(writeFile(root, 'k.yaml', tinyConfig('k', { horizon: 6, trials: 1, policies: '[EOFD-MLogB]' })));
    await runGrid(config!, { out, l: [0], e: [0] });
    const before = tree(path.join(out, 'k-grid'));
    await expect(runGrid(config!, { out, l: [0], e: [0] })).rejects.toThrow(/already holds results/);
    expect(tree(path.join(out, 'k-grid'))).toEqual(before);
  });
});
