import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { loadCommandConfigs, resumeCommand } from '../../src/cli/options.js';
import { runCli, tempDir, tinyConfig, writeFile } from '../experiment/fixtures.js';

let root: string;
let file: string;
beforeAll(() => {
  root = tempDir('eofd-options-');
  file = writeFile(root, 'three.yaml', [tinyConfig('alpha'), tinyConfig('beta', { trials: 1 }), tinyConfig('gamma')].join('---\n'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('--experiment', () => {
  it('keeps the named experiments, in the file order', () => {
    const names = (experiment?: string[]) => loadCommandConfigs([file], { out: root, experiment }).map((c) => c.name);
    expect(names()).toEqual(['alpha', 'beta', 'gamma']);
    expect(names(['beta'])).toEqual(['beta']);
    expect(names(['gamma', 'alpha'])).toEqual(['alpha', 'gamma']);
  });

  it('selects by the config name before --name renames', () => {
    const configs = loadCommandConfigs([file], { out: root, experiment: ['beta'], name: 'variant' });
    expect(configs.map((c) => [c.name, c.seedName])).toEqual([['variant', 'beta']]);
  });

  it('refuses a name no file holds, and lists the names it has (exit 2)', () => {
    let caught: unknown;
    try {
      loadCommandConfigs([file], { out: root, experiment: ['alpha', 'delta'] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RunError);
    expect((caught as RunError).exitCode).toBe(2);
    expect((caught as Error).message).toBe(`--experiment delta: no experiment of that name in ${file}; its experiments: alpha, beta, gamma`);
  });

  it('is part of the resume command', () => {
    const hint = (...words: unknown[]): string => words.map(String).join(' ');
    expect(resumeCommand(hint, 'run', [file], { out: 'o', experiment: ['beta', 'gamma'] })).toBe(`run ${file} --out o --experiment beta --experiment gamma --resume`);
  });

  it('eofd run writes only the named experiment', async () => {
    const out = path.join(root, 'out');
    const { code, stderr } = await runCli(['run', file, '--experiment', 'beta', '--out', out, '--jobs', '1', '--quiet']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(fs.readdirSync(out)).toEqual(['beta']);
    const rows = fs.readFileSync(path.join(out, 'beta', 'summary.csv'), 'utf8').trimEnd().split('\n');
    expect(rows).toHaveLength(1 + 3); // header, then three policies × one trial
  });
});
