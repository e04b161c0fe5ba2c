/**
 * `eofd merge <dirs>... --out <dir> [--force] [--quiet]`: combines the folders of `--shard i/n` runs of
 * `eofd run` or `eofd grid` into what one machine would have written; the work is in
 * src/experiment/merge.ts. Exit codes: 0 merged; 1 the output cannot be written; 2 refused (bad usage,
 * configs that differ, a unit missing or duplicated).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { mergeShards } from '../../experiment/merge.js';
import { EXIT, failureExitCode, processIo, type CliIo } from '../io.js';

export interface MergeCommandOptions {
  out: string;
  force?: boolean;
  quiet?: boolean;
}

export function mergeCommand(dirs: string[], options: MergeCommandOptions, io: CliIo): number {
  try {
    const result = mergeShards(dirs, { out: options.out, force: options.force });
    if (options.quiet !== true) {
      for (const f of result.folders) {
        io.stderr.write(`${f.kind === 'grid' ? 'grid' : 'experiment'} ${f.name}: ${f.units} units from ${f.shards} shard folders → ${path.relative(process.cwd(), f.dir) || f.dir}\n`);
      }
    }
    return EXIT.ok;
  } catch (caught) {
    return failureExitCode(caught, io, 'merge');
  }
}

export function registerMerge(program: Command, io: CliIo = processIo()): void {
  program
    .command('merge')
    .summary('combine the folders of `run --shard` / `grid --shard` runs into one results folder')
    .description(
      'Each <dir> is a shard\'s output folder (<out>/shard-<i>-of-<n>/ as `eofd run --shard` or `eofd grid --shard` ' +
        'writes it). All shards must hold the same experiments with the same resolved config, and each ' +
        '(policy, trial) must be finished in exactly one of them. The result under --out is what one machine ' +
        'would have written (timing columns aside): unit files copied, summary.csv regenerated, manifest.json ' +
        'without the shard; for grids also grid.csv, heatmap-<policy>.svg and best.json.',
    )
    .argument('<dirs...>', 'shard output folders')
    .requiredOption('--out <dir>', 'parent folder of the merged experiment and grid folders')
    .option('--force', 'replace existing result folders under --out')
    .option('--quiet', 'print nothing on success')
    .addHelpText('after', '\nExample:\n  $ eofd merge results/shard-*-of-49 --out results\n\nExit codes: 0 merged; 1 the output cannot be written; 2 refused (one line says why).')
    .action((dirs: string[], options: MergeCommandOptions) => {
      process.exitCode = mergeCommand(dirs, options, io);
    });
}
