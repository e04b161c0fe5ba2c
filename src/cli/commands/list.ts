/**
 * `eofd list [--json] [--wide]`: the policies and environments a config can name, read from their registries
 * (what each plays, which hyperparameters it reads, its cost per round and its paper, which keys an
 * environment mapping takes), and the configs the package ships. On a terminal the tables fit its
 * width (cells wrap) unless --wide; piped output is complete.
 */
import type { Command } from 'commander';
import type { z } from 'zod';
import { shippedConfigs } from '../../config/shipped.js';
import { ENVIRONMENTS } from '../../environments/registry.js';
import { POLICIES } from '../../policies/registry.js';
import { fitText, formatTable, terminalWidth, type TableFit } from '../../report/table.js';
import { processIo, type CliIo } from '../io.js';

export interface ListEntry {
  kind: 'policy' | 'environment' | 'config';
  name: string;
  summary: string;
  /** Policies: K = 1 and/or K ≥ 2. */
  plays?: string;
  /** Policies: the hyperparameters they read; environments: the keys of their config mapping; configs: []. */
  keys: string[];
  /** Policies: time per round, O-notation. */
  round?: string;
  /** Policies: state, O-notation. */
  memory?: string;
  /** Policies: authors and year of the method's paper. */
  reference?: string;
  /** Shipped configs: the file (absolute path). */
  file?: string;
}

/** Every registered policy and environment, then the shipped configs. */
export function listEntries(): ListEntry[] {
  const policies = POLICIES.map((p): ListEntry => ({
    kind: 'policy',
    name: p.name,
    summary: p.summary,
    plays: [p.supports.binary ? 'K = 1' : null, p.supports.multinomial ? 'K ≥ 2' : null].filter(Boolean).join(', '),
    // A key with its authors' default shows it: `beta=theory`.
    keys: [...p.reads.map((key) => (p.defaults?.[key] === undefined ? key : `${key}=${String(p.defaults[key])}`)), ...Object.keys(p.options ?? {})],
    round: p.cost.round,
    memory: p.cost.memory,
    reference: p.reference,
  }));
  const environments = ENVIRONMENTS.map((e): ListEntry => ({
    kind: 'environment',
    name: e.type,
    summary: e.summary,
    keys: Object.keys((e.schema as unknown as z.ZodObject).shape ?? {}).filter((key) => key !== 'type'),
  }));
  const configs = shippedConfigs().map((c): ListEntry => ({ kind: 'config', name: c.name, summary: c.summary, keys: [], file: c.file }));
  return [...policies, ...environments, ...configs];
}

export interface ListOptions {
  json?: boolean;
  /** Complete table rows on a terminal too (default: they fit its width). */
  wide?: boolean;
}

export function listCommand(options: ListOptions, io: CliIo): number {
  const entries = listEntries();
  if (options.json === true) {
    io.stdout.write(JSON.stringify(entries, null, 2) + '\n');
    return 0;
  }
  const width = options.wide === true ? undefined : terminalWidth(io.stdout);
  // Every column of the list is worth reading: cells wrap, and none is left out unless even one column per line would not fit.
  const fit: TableFit | undefined = width === undefined ? undefined : { width, seeAll: 'see them with --wide or --json' };
  const table = (headers: string[], rows: string[][]) => formatTable(headers, rows, { fit });
  const heading = (text: string) => `${fitText(text, width)}\n`;
  const policies = entries.filter((e) => e.kind === 'policy');
  const environments = entries.filter((e) => e.kind === 'environment');
  const configs = entries.filter((e) => e.kind === 'config');
  io.stdout.write(
    heading('Policies (config key `policies`; hyperparameters under `params`):') +
      table(['name', 'plays', 'reads', 'what it is'], policies.map((p) => [p.name, p.plays ?? '', p.keys.join(', ') || '–', p.summary])) +
      '\n' + heading('Their cost and their papers:') +
      table(['name', 'time per round', 'memory', 'reference'], policies.map((p) => [p.name, p.round ?? '', p.memory ?? '', p.reference ?? ''])) +
      '\n' + heading('Environments (config key `environment.type`):') +
      table(['type', 'keys', 'what it is'], environments.map((e) => [e.name, e.keys.join(', '), e.summary])) +
      '\n' + heading('Shipped configs (`eofd run <name>` reads them from anywhere):') +
      (configs.length === 0 ? '(none found)\n' : table(['name', 'what it runs'], configs.map((c) => [c.name, c.summary]))) +
      '\n',
  );
  return 0;
}

export function registerList(program: Command, io: CliIo = processIo()): void {
  program
    .command('list')
    .summary('the policies, environments and shipped configs a config or eofd run can name')
    .description(
      'List every registered policy (what it plays, the hyperparameters it reads, its time and memory per round, its paper), ' +
        'every environment (the keys of its config mapping) and the configs the package ships (`eofd run <name>`). ' +
        'Exit codes: 0 listed; 2 bad usage.',
    )
    .option('--json', 'print the list as one JSON array (kind: policy, environment or config)')
    .option('--wide', 'on a terminal too, print each table row on one line (by default cells wrap to fit its width; piped output is complete)')
    .addHelpText('after', '\nExamples:\n  $ eofd list\n  $ eofd list --wide\n  $ eofd list --json | jq -r \'.[] | select(.kind == "config") | .name\'')
    .action((options: ListOptions) => {
      process.exitCode = listCommand(options, io);
    });
}
