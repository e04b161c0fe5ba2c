import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridConfigText, runCli, tempDir, writeFile } from '../experiment/fixtures.js';

const CONFIG = gridConfigText('small');

let root: string;
let config: string;
beforeAll(() => {
  root = tempDir('eofd-grid-cli-');
  config = writeFile(root, 'small.yaml', CONFIG);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function oneLine(stderr: string, pattern: RegExp, command = 'run'): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^eofd ${command}: `));
  expect(lines[0]).toMatch(pattern);
}

describe('eofd grid → eofd run --params', () => {
  it('writes the grid outputs, and run --params uses each policy its (l, e), recorded in the manifest', async () => {
    const out = path.join(root, 'grid');
    const grid = await runCli(['grid', config, '--l', '0,1', '--e', '-0.5,0.5', '--trials', '2', '--jobs', '1', '--out', out, '--quiet']);
    expect(grid.stderr).toBe('');
    expect(grid.code).toBe(0);
    const dir = path.join(out, 'small-grid');
    for (const f of ['grid.csv', 'best.json', 'heatmap-EOFD-MLogB.svg', 'heatmap-OFUL-MLogB.svg', 'l=0,e=-0.5/manifest.json', 'l=1,e=0.5/summary.csv']) {
      expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
    }
    const best = JSON.parse(fs.readFileSync(path.join(dir, 'best.json'), 'utf8'));
    // Make the two policies' choices differ, so the test sees per-policy values.
    best.policies['EOFD-MLogB'] = { ...best.policies['EOFD-MLogB'], values: { 'params.l': 0, 'params.e': -0.5 } };
    best.policies['OFUL-MLogB'] = { ...best.policies['OFUL-MLogB'], values: { 'params.l': 1, 'params.e': 0.5 } };
    const bestFile = writeFile(root, 'best.json', JSON.stringify(best));

    const runOut = path.join(root, 'run');
    const run = await runCli(['run', config, '--params', bestFile, '--jobs', '1', '--out', runOut, '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(runOut, 'small', 'manifest.json'), 'utf8'));
    expect(manifest.seeds.split).toBe('report');
    const { derived } = manifest;
    const scale = Math.sqrt(2) * 5;
    expect(Object.keys(derived.policies)).toEqual(expect.arrayContaining(['EOFD-MLogB', 'OFUL-MLogB']));
    expect(derived.policies['EOFD-MLogB'].l).toBe(0);
    expect(derived.policies['EOFD-MLogB'].e).toBe(-0.5);
    expect(derived.policies['EOFD-MLogB'].lambda).toBeCloseTo(derived.lambda0, 10);
    expect(derived.policies['EOFD-MLogB'].eta).toBeCloseTo(scale ** -0.5 * derived.eta0, 10);
    expect(derived.policies['OFUL-MLogB'].lambda).toBeCloseTo(scale * derived.lambda0, 10);
    expect(derived.policies['OFUL-MLogB'].eta).toBeCloseTo(scale ** 0.5 * derived.eta0, 10);
    expect(manifest.config.variants['OFUL-MLogB']).toEqual({ policy: 'OFUL-MLogB', params: { l: 1, e: 0.5 } });

    // Validation (grid) and report (run) trials play different instances.
    const gridSeeds = JSON.parse(fs.readFileSync(path.join(dir, 'l=0,e=-0.5', 'manifest.json'), 'utf8')).seeds.trials;
    expect(gridSeeds['0'].environment).not.toBe(manifest.seeds.trials['0'].environment);
    expect(gridSeeds['1'].environment).not.toBe(manifest.seeds.trials['1'].environment);
  });

  it.each([
    ['missing.json', null, /missing\.json: cannot read the best\.json: no such file/],
    ['notjson.json', '{', /notjson\.json:1: not valid JSON/],
    ['nopolicies.json', '{"format": "eofd-best/1"}', /nopolicies\.json: policies: expected an object/],
    ['badl.json', '{"policies": {"EOFD-MLogB": {"l": "x", "e": 0}}}', /badl\.json: policies\.EOFD-MLogB\.l: expected a finite number, got "x"/],
    ['bade.json', '{"policies": {"OFUL-MLogB": {"l": 0}}}', /bade\.json: policies\.OFUL-MLogB: expected \{values: \{key: value\}\} or both l and e/],
    ['badpolicy.json', '{"policies": {"Random": {"l": 0, "e": 0}}}', /--params.*policies\.\d+\.params\.l: Random does not read l; it reads no params/],
    ['badformat.json', '{"format": "other", "policies": {}}', /badformat\.json: format: expected "eofd-best\/1"/],
  ])('a bad best.json (%s) exits 2 with one line naming the file and field', async (name, content, pattern) => {
    const file = content === null ? path.join(root, name) : writeFile(root, name, content);
    const out = path.join(root, `bad-${name}`);
    const { code, stderr } = await runCli(['run', config, '--params', file, '--jobs', '1', '--out', out, '--quiet']);
    expect(code).toBe(2);
    oneLine(stderr, pattern);
    expect(fs.existsSync(path.join(out, 'small'))).toBe(false);
  });

  it('refuses a bad --l list (exit 2)', async () => {
    const { code, stderr } = await runCli(['grid', config, '--l', '0,abc', '--out', path.join(root, 'badl'), '--quiet']);
    expect(code).toBe(2);
    oneLine(stderr, /--l: expected a comma-separated list of numbers/, 'grid');
  });
});
