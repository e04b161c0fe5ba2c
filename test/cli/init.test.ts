import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandHint } from '../../src/cli/hint.js';
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
    expect(stderr).toContain('config-reference.md');
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

/** The paths (words holding a `/`) in `text`, without the punctuation that ends a sentence. */
function namedPaths(text: string): string[] {
  return [...text.matchAll(/(?<=^|[\s(])([^\s(]*\/[^\s;,)]*)/g)].map((m) => (m[1] as string).replace(/[.:]$/, ''));
}

describe('eofd init: every hint names something that is there once it is followed (issue #38)', () => {
  it('run from a fresh folder: the commands run, and every path the hints and the config name exists', async () => {
    const dir = path.join(root, 'user');
    fs.mkdirSync(dir);
    const saved = process.cwd();
    process.chdir(dir);
    try {
      const init = await runCli(['init']);
      expect(init.code).toBe(0);
      const lines = init.stderr.split('\n');
      const prefix = `${commandHint({}, [])} `;
      const steps = lines.filter((line) => line.startsWith(`  ${prefix}`)).map((line) => line.slice(2).split('  # ') as [string, string]);
      expect(steps.map(([command]) => command.trim().slice(prefix.length))).toEqual(['run eofd.yaml', 'report results', 'list']);
      // Follow them as a user pastes them, in order, in this folder.
      for (const [command] of steps) {
        const result = await runCli(command.trim().slice(prefix.length).split(' '));
        expect(result.code, command).toBe(0);
      }
      const what = [...steps.map(([, text]) => text), ...lines.filter((line) => line.startsWith('More:'))].join('\n');
      const named = namedPaths(what);
      expect(named).toEqual(expect.arrayContaining(['results/starter', 'results/report/report.html']));
      expect(named.filter((p) => p.endsWith('.md'))).toHaveLength(2);
      for (const file of named) expect(fs.existsSync(path.resolve(dir, file)), `${file} (named by: ${what})`).toBe(true);
      // The config's own links (schema, reference) resolve from its folder.
      const comments = fs.readFileSync(path.join(dir, 'eofd.yaml'), 'utf8').split('\n').filter((line) => line.startsWith('#')).join('\n');
      const links = namedPaths(comments.replace(/\$schema=/, ' '));
      expect(links.some((link) => link.endsWith('configs/eofd.schema.json'))).toBe(true);
      expect(links.some((link) => link.endsWith('docs/config-reference.md'))).toBe(true);
      for (const link of links) expect(fs.existsSync(path.resolve(dir, link)), link).toBe(true);
    } finally {
      process.chdir(saved);
    }
  }, 120_000);
});
