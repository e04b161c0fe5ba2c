import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigs } from '../../src/config/load.js';
import { REPO, runCli, tempDir } from '../experiment/fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-init-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('eofd init: bad arguments', () => {
  it('refuses an unknown option and a second folder (exit 2)', async () => {
    expect((await runCli(['init', path.join(root, 'a'), '--nope'])).code).toBe(2);
    expect((await runCli(['init', path.join(root, 'a'), path.join(root, 'b')])).code).toBe(2);
    expect(fs.existsSync(path.join(root, 'a'))).toBe(false);
  });

  it('never replaces an existing eofd.yaml without --force (exit 2, one line)', async () => {
    const dir = path.join(root, 'existing');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'eofd.yaml');
    fs.writeFileSync(file, 'mine\n');
    const { code, stdout, stderr } = await runCli(['init', dir]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`eofd init: ${file} exists; not overwritten (--force replaces it)\n`);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
    expect((await runCli(['init', dir, '--force'])).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^# yaml-language-server: \$schema=/);
  });
});

describe('eofd init', () => {
  it('writes a commented starter config that loads as the small synthetic K = 4 setting', async () => {
    const dir = path.join(root, 'new', 'study');
    const { code, stdout, stderr } = await runCli(['init', dir]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const file = path.join(dir, 'eofd.yaml');
    expect(stderr).toContain(`wrote ${file}`);
    expect(stderr).toContain(`run ${file}`);
    expect(stderr).toContain('report results');
    expect(stderr).toContain('docs/config-reference.md');
    const text = fs.readFileSync(file, 'utf8');
    const schema = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1] ?? '';
    expect(path.resolve(dir, schema)).toBe(path.join(REPO, 'configs', 'eofd.schema.json'));
    expect(fs.existsSync(path.resolve(dir, schema))).toBe(true);
    expect(text.split('\n').filter((line) => line.includes('#')).length).toBeGreaterThan(10);
    const configs = loadConfigs(file);
    expect(configs).toHaveLength(1);
    const config = configs[0];
    expect(config?.name).toBe('starter');
    expect(config?.environment).toMatchObject({ type: 'synthetic', d: 20, K: 4, reward: [0, 0.25, 0.5, 0.75, 1], actions: [10, 30] });
    expect(config?.policies.map((p) => p.label)).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
    expect(config?.horizon).toBeLessThanOrEqual(1000);
  });

  it('writes into the current folder by default', async () => {
    const dir = path.join(root, 'cwd');
    fs.mkdirSync(dir);
    const saved = process.cwd();
    process.chdir(dir);
    try {
      expect((await runCli(['init'])).code).toBe(0);
    } finally {
      process.chdir(saved);
    }
    const text = fs.readFileSync(path.join(dir, 'eofd.yaml'), 'utf8');
    expect(path.resolve(dir, /\$schema=(\S+)/.exec(text)?.[1] ?? '')).toBe(path.join(REPO, 'configs', 'eofd.schema.json'));
  });

  it('writes a config eofd run runs (tiny horizon)', async () => {
    const dir = path.join(root, 'runs');
    expect((await runCli(['init', dir])).code).toBe(0);
    const out = path.join(root, 'results');
    const args = ['run', path.join(dir, 'eofd.yaml'), '--set', 'horizon=15', '--trials', '1', '--jobs', '1', '--out', out, '--quiet'];
    const { code, stderr } = await runCli(args);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const summary = fs.readFileSync(path.join(out, 'starter', 'summary.csv'), 'utf8');
    for (const policy of ['EOFD-MLogB', 'OFUL-MLogB', 'Random']) expect(summary).toContain(policy);
  });
});

describe('eofd init --force: only a regular file in the folder is replaced (issue #23)', () => {
  it('refuses to write through a symbolic link, with or without --force (exit 2), and the target is untouched', async () => {
    const dir = path.join(root, 'linked');
    fs.mkdirSync(dir);
    const outside = path.join(root, 'outside.txt');
    fs.writeFileSync(outside, 'precious\n');
    fs.symlinkSync(outside, path.join(dir, 'eofd.yaml'));
    for (const args of [[], ['--force']]) {
      const { code, stderr } = await runCli(['init', dir, ...args]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/symbolic link; not followed/);
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('precious\n');
  });

  it('a file given as the folder is named as such; the message offers no --force that would not help', async () => {
    const file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'x');
    for (const args of [[], ['--force']]) {
      const { code, stderr } = await runCli(['init', file, ...args]);
      expect(code).toBe(2);
      expect(stderr).toBe(`eofd init: ${file} is a file, not a folder; give a folder to write eofd.yaml into\n`);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it("the next steps' hints are shell-quoted (a folder named $(…) does not run when pasted)", async () => {
    const dir = path.join(root, '$(touch pwned)');
    const { code, stderr } = await runCli(['init', dir]);
    expect(code).toBe(0);
    expect(stderr).toContain(`'${path.join(dir, 'eofd.yaml')}'`);
  });
});
