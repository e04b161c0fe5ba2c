/**
 * `eofd list [--json]`: the policies and environments a config can name, read from their registries
 * (what each plays, which hyperparameters it reads, which keys an environment mapping takes).
 */
import type { Command } from 'commander';
import type { z } from 'zod';
import { ENVIRONMENTS } from '../../environments/registry.js';
import { POLICIES } from '../../policies/registry.js';
import { formatTable } from '../../report/table.js';
import { processIo, type CliIo } from '../io.js';

export interface ListEntry {
  kind: 'policy' | 'environment';
  name: string;
  summary: string;
  /** Policies: K = 1 and/or K ≥ 2. */
  plays?: string;
  /** Policies: the hyperparameters they read; environments: the keys of their config mapping. */
  keys: string[];
}

/** Every registered policy and environment. */
export function listEntries(): ListEntry[] {
  const policies = POLICIES.map((p): ListEntry => ({
    kind: 'policy',
    name: p.name,
    summary: p.summary,
    plays: [p.supports.binary ? 'K = 1' : null, p.supports.multinomial ? 'K ≥ 2' : null].filter(Boolean).join(', '),
    keys: [...p.tunable],
  }));
  const environments = ENVIRONMENTS.map((e): ListEntry => ({
    kind: 'environment',
    name: e.type,
    summary: e.summary,
    keys: Object.keys((e.schema as unknown as z.ZodObject).shape ?? {}).filter((key) => key !== 'type'),
  }));
  return [...policies, ...environments];
}

export function listCommand(options: { json?: boolean }, io: CliIo): number {
  const entries = listEntries();
  if (options.json === true) {
    io.stdout.write(JSON.stringify(entries, null, 2) + '\n');
    return 0;
  }
  const policies = entries.filter((e) => e.kind === 'policy');
  const environments = entries.filter((e) => e.kind === 'environment');
  io.stdout.write(
    'Policies (config key `policies`; hyperparameters under `params`):\n' +
      formatTable(['name', 'plays', 'reads', 'what it is'], policies.map((p) => [p.name, p.plays ?? '', p.keys.join(', ') || '–', p.summary])) +
      '\nEnvironments (config key `environment.type`):\n' +
      formatTable(['type', 'keys', 'what it is'], environments.map((e) => [e.name, e.keys.join(', '), e.summary])) +
      '\n',
  );
  return 0;
}

export function registerList(program: Command, io: CliIo = processIo()): void {
  program
    .command('list')
    .summary('the policies and environments a config can name, with what they read')
    .description('List every registered policy (what it plays, the hyperparameters it reads) and environment (the keys of its config mapping).')
    .option('--json', 'print the list as one JSON document')
    .action((options: { json?: boolean }) => {
      process.exitCode = listCommand(options, io);
    });
}
