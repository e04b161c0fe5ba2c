/**
 * Experiment folders before a run: --force replaces only what eofd wrote, a symbolic link is never
 * followed, leftovers of killed writers are removed, and an empty --out is a usage error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigs } from '../../src/config/load.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { runCli, tempDir, tinyConfig, writeFile } from './fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-folders-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('--force deletes only folders eofd wrote', () => {
  it('an experiment folder without a manifest is refused (exit 2) and left as it is', async () => {
    const out = fs.mkdtempSync(path.join(root, 'force-'));
    const foreign = path.join(out, 'a');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'thesis.tex'), 'precious');
    const config = writeFile(root, 'force.yaml', tinyConfig('a', { horizon: 5, trials: 1, policies: '[Random]' }));
    const result = await runCli(['run', config, '--out', out, '--force']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/holds files but no manifest\.json: eofd did not write it, so --force will not delete it/);
    expect(fs.readFileSync(path.join(foreign, 'thesis.tex'), 'utf8')).toBe('precious');
  });

  it('an experiment folder that is a symbolic link is refused (exit 2), not followed', async () => {
    const out = fs.mkdtempSync(path.join(root, 'link-'));
    const elsewhere = fs.mkdtempSync(path.join(root, 'elsewhere-'));
    fs.writeFileSync(path.join(elsewhere, 'keep.txt'), 'keep');
    fs.symlinkSync(elsewhere, path.join(out, 'a'));
    const config = writeFile(root, 'link.yaml', tinyConfig('a', { horizon: 5, trials: 1, policies: '[Random]' }));
    const result = await runCli(['run', config, '--out', out, '--force']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is a symbolic link/);
    expect(fs.readdirSync(elsewhere)).toEqual(['keep.txt']);
  });
});

describe('leftovers and bad --out', () => {
  it('a resumed run removes the temporary files a killed writer left in the experiment folder', async () => {
    const out = fs.mkdtempSync(path.join(root, 'left-'));
    const [config] = loadConfigs(writeFile(root, 'l.yaml', tinyConfig('l', { horizon: 5, trials: 1, policies: '[Random]' })));
    await runExperiments([config!], { out });
    const dir = path.join(out, 'l');
    fs.writeFileSync(path.join(dir, 'summary.csv.tmp-12345'), 'half');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    await runExperiments([config!], { out, resume: true });
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('a run killed before its manifest.json landed (only the manifest\'s temporary file there) resumes afresh, not refused', async () => {
    const out = fs.mkdtempSync(path.join(root, 'early-'));
    const [config] = loadConfigs(writeFile(root, 'e.yaml', tinyConfig('e', { horizon: 5, trials: 1, policies: '[Random]' })));
    const dir = path.join(out, 'e');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'manifest.json.tmp-12345'), '{"na');
    const result = await runExperiments([config!], { out, resume: true });
    expect(result.unitsRun).toBe(1);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(true);
  });

  it("--out '' is a usage error (exit 2) for every command that writes", async () => {
    const config = writeFile(root, 'o.yaml', tinyConfig('o', { horizon: 5, trials: 1, policies: '[EOFD-MLogB]' }));
    const results = path.join(root, 'o-results');
    expect((await runCli(['run', config, '--out', results, '--quiet'])).code).toBe(0);
    for (const args of [
      ['run', config],
      ['grid', config],
      ['sweep', config, '--over', 'horizon=4,5'],
      ['merge', path.join(results, 'o')],
      ['report', path.join(results, 'o')],
      ['bench', '--d', '4', '--K', '1', '--rounds', '1', '--policy', 'Random'],
    ]) {
      const result = await runCli([...args, '--out', '']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/--out: expected a folder, got an empty string/);
    }
  });
});

describe('file system errors are one line naming the path', () => {
  it('a policy folder replaced by a file: resume says which path is in the way (exit 1)', async () => {
    const out = fs.mkdtempSync(path.join(root, 'blocked-'));
    const config = writeFile(root, 'b.yaml', tinyConfig('b', { horizon: 5, trials: 1, policies: '[EOFD-MLogB, Random]' }));
    expect((await runCli(['run', config, '--out', out, '--quiet'])).code).toBe(0);
    fs.rmSync(path.join(out, 'b', 'EOFD-MLogB'), { recursive: true });
    fs.writeFileSync(path.join(out, 'b', 'EOFD-MLogB'), 'in the way');
    const result = await runCli(['run', config, '--out', out, '--resume']);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `eofd run: cannot prepare the unit files in ${path.join(out, 'b')}: a part of the path is a file, not a folder (ENOTDIR) (${path.join(out, 'b', 'EOFD-MLogB', 'trial-0.csv.partial')})`,
    ]);
  });
});
