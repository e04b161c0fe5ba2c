import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_TYPES } from '../../src/environments/registry.js';
import { POLICY_NAMES } from '../../src/policies/registry.js';
import { listCommand } from '../../src/cli/commands/list.js';
import { displayWidth } from '../../src/report/table.js';
import { REPO, runCli } from '../experiment/fixtures.js';

interface Entry {
  kind: string;
  name: string;
  summary: string;
  keys: string[];
  plays?: string;
  round?: string;
  memory?: string;
  reference?: string;
  file?: string;
}

describe('eofd list: bad arguments', () => {
  it('refuses an unknown option (exit 2)', async () => {
    expect((await runCli(['list', '--nope'])).code).toBe(2);
  });
});

describe('eofd list', () => {
  it('lists every registered policy and environment with what it reads', async () => {
    const { code, stdout } = await runCli(['list', '--json']);
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as Entry[];
    expect(entries.filter((e) => e.kind === 'policy').map((e) => e.name)).toEqual([...POLICY_NAMES]);
    expect(entries.filter((e) => e.kind === 'environment').map((e) => e.name)).toEqual([...ENVIRONMENT_TYPES]);
    expect(entries.find((e) => e.name === 'Random')?.keys).toEqual([]);
    expect(entries.find((e) => e.name === 'EOFD-MLogB')?.keys).toContain('m');
    expect(entries.find((e) => e.name === 'OFUL-MLogB')?.keys).not.toContain('m');
    expect(entries.find((e) => e.name === 'synthetic')?.keys).toEqual(['d', 'K', 'reward', 'actions', 'S_star']);
    expect(entries.find((e) => e.name === 'mnist')?.keys).toEqual(['target', 'normalize']);
  });

  it("gives every policy its cost per round and its paper's authors", async () => {
    const entries = JSON.parse((await runCli(['list', '--json'])).stdout) as Entry[];
    const policy = (name: string) => entries.find((e) => e.kind === 'policy' && e.name === name);
    for (const name of POLICY_NAMES) {
      expect(policy(name)?.round, name).toMatch(/^O\(/);
      expect(policy(name)?.memory, name).toMatch(/^O\(/);
      expect(policy(name)?.reference, name).not.toBe('');
    }
    expect(policy('EOFD-MLogB')?.reference).toContain('He, Zhang, Yang and Zhang');
    expect(policy('EOFD-MLogB')?.memory).toBe('O(Kdm)');
    expect(policy('OFUL-MLogB')?.reference).toBe('Zhang and Sugiyama, 2023');
    expect(policy('OFUL-MLogB')?.memory).toBe('O(K²d²)');
    expect(policy('MNL-UCB')?.reference).toBe('Amani and Thrampoulidis, 2021');
    expect(policy('Random')?.reference).toBe('—');
  });

  it('lists the shipped configs: every config file in configs/ but the schema', async () => {
    const entries = JSON.parse((await runCli(['list', '--json'])).stdout) as Entry[];
    const configs = entries.filter((e) => e.kind === 'config');
    const files = fs.readdirSync(path.join(REPO, 'configs')).filter((f) => /\.(ya?ml|json)$/.test(f) && f !== 'eofd.schema.json');
    const names = [...new Set(files.map((f) => f.replace(/\.(ya?ml|json)$/, '')))].sort();
    expect(configs.map((c) => c.name).sort()).toEqual(names);
    expect(configs.find((c) => c.name === 'quick')?.file).toBe(path.join(REPO, 'configs', 'quick.yaml'));
    expect(configs.find((c) => c.name === 'quick')?.summary).toMatch(/^The three settings of Section 4/);
  });

  it('prints tables a person can read', async () => {
    const { code, stdout } = await runCli(['list']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Policies/);
    expect(stdout).toMatch(/\nTheir cost and their papers/);
    expect(stdout).toMatch(/\nEnvironments/);
    expect(stdout).toMatch(/\nShipped configs/);
    for (const name of [...POLICY_NAMES, ...ENVIRONMENT_TYPES, 'quick', 'synthetic-k4']) expect(stdout).toContain(name);
    expect(stdout).toContain('Kuzborskij, Cella and Cesa-Bianchi, 2019');
    expect(stdout).toContain('O(|A_t|·Kdm + Kd(m+K)²)');
  });
});

describe('eofd list on a terminal', () => {
  function list(options: { wide?: boolean }, stdout: { isTTY: boolean; columns?: number }): string {
    let text = '';
    expect(listCommand(options, { stdout: { ...stdout, write: (t: string) => (text += t) }, stderr: { write: () => true }, env: {} })).toBe(0);
    return text;
  }
  /** The characters printed, spaces and rules aside: wrapping moves them, never loses one. */
  const letters = (text: string) => [...text.replace(/[\s-]/g, '')].sort().join('');

  it('wraps its cells to the width of the terminal, loses nothing, and prints whole rows with --wide or into a pipe', () => {
    const piped = list({}, { isTTY: false, columns: 60 });
    expect(Math.max(...piped.split('\n').map(displayWidth))).toBeGreaterThan(200);
    for (const columns of [80, 60]) {
      const fitted = list({}, { isTTY: true, columns });
      expect(Math.max(...fitted.split('\n').map(displayWidth))).toBeLessThanOrEqual(columns);
      expect(fitted).not.toContain('not shown');
      expect(letters(fitted)).toBe(letters(piped));
      expect(fitted.split('\n').length).toBeGreaterThan(piped.split('\n').length);
    }
    expect(list({ wide: true }, { isTTY: true, columns: 80 })).toBe(piped);
  });
});
