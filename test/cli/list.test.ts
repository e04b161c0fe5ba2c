import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_TYPES } from '../../src/environments/registry.js';
import { POLICY_NAMES } from '../../src/policies/registry.js';
import { runCli } from '../experiment/fixtures.js';

describe('eofd list: bad arguments', () => {
  it('refuses an unknown option (exit 2)', async () => {
    expect((await runCli(['list', '--nope'])).code).toBe(2);
  });
});

describe('eofd list', () => {
  it('lists every registered policy and environment with what it reads', async () => {
    const { code, stdout } = await runCli(['list', '--json']);
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as { kind: string; name: string; keys: string[]; plays?: string }[];
    expect(entries.filter((e) => e.kind === 'policy').map((e) => e.name)).toEqual([...POLICY_NAMES]);
    expect(entries.filter((e) => e.kind === 'environment').map((e) => e.name)).toEqual([...ENVIRONMENT_TYPES]);
    expect(entries.find((e) => e.name === 'Random')?.keys).toEqual([]);
    expect(entries.find((e) => e.name === 'EOFD-MLogB')?.keys).toContain('m');
    expect(entries.find((e) => e.name === 'OFUL-MLogB')?.keys).not.toContain('m');
    expect(entries.find((e) => e.name === 'synthetic')?.keys).toEqual(['d', 'K', 'reward', 'actions', 'S_star']);
    expect(entries.find((e) => e.name === 'mnist')?.keys).toEqual(['target', 'normalize']);
  });

  it('prints two tables a person can read', async () => {
    const { code, stdout } = await runCli(['list']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Policies/);
    expect(stdout).toMatch(/\nEnvironments/);
    for (const name of [...POLICY_NAMES, ...ENVIRONMENT_TYPES]) expect(stdout).toContain(name);
  });
});
