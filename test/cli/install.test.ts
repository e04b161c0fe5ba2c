/**
 * Install anywhere: the packed tarball installed into an empty folder runs the shipped quick config
 * there, and the commands it prints run from a folder outside any project.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../experiment/fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-install-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function run(command: string, args: string[], options: SpawnSyncOptions): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 240_000, ...options });
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

describe('npm pack, then npm install <tarball> into an empty folder', () => {
  it('the installed eofd runs `eofd run quick` there and its printed next steps run from elsewhere', { timeout: 300_000 }, () => {
    // dist/ is current (the suite's global setup built it); --ignore-scripts: no second build.
    const pack = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', root], { cwd: REPO });
    expect(pack.stderr).toBe('');
    const tarball = path.join(root, pack.stdout.trim().split('\n').pop() as string);
    expect(fs.existsSync(tarball)).toBe(true);

    const app = path.join(root, 'app');
    fs.mkdirSync(app);
    // The npm cache serves what the clone installed; the registry only for what the cache lacks.
    const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', app, tarball], { cwd: app });
    expect(install.status, install.stderr).toBe(0);
    const eofd = path.join(app, 'node_modules', '.bin', 'eofd');

    // The shipped config by name, small: every experiment of quick.yaml at T = 20.
    const quick = run(eofd, ['run', 'quick', '--set', 'horizon=20', '--jobs', '1', '--out', 'results'], { cwd: app });
    expect(quick.status, quick.stderr).toBe(0);
    for (const name of ['quick-mnist', 'quick-synthetic-k4', 'quick-synthetic-binary']) {
      expect(fs.existsSync(path.join(app, 'results', name, 'summary.csv')), name).toBe(true);
    }
    // Inside the project that installed it, npx finds it.
    expect(quick.stderr).toContain('Full report (tables, comparisons, figures; the paper\'s claims for its settings): npx eofd report results/quick-mnist');

    // From a folder outside any project, `eofd init` prints commands that run this installation.
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    const init = run(eofd, ['init', '.'], { cwd: outside });
    expect(init.status, init.stderr).toBe(0);
    const list = (init.stderr.split('\n').find((l) => / list\s+#/.test(l)) as string).replace(/\s+#.*$/, '').trim();
    expect(list).toMatch(/^(node|\S+) \S+\/app\/node_modules\/eofd\/bin\/eofd\.js list$/);
    const listed = run('bash', ['-c', list], { cwd: outside });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('EOFD-MLogB');
  });
});
