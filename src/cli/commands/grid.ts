/**
 * `eofd grid <config> [--l list] [--e list] [--trials N] [--set key=value]... [--jobs N] [--out dir]
 * [--resume] [--force] [--quiet]`: Section 4's (l, e) search on validation seeds; the work is in
 * src/experiment/grid.ts. Exit codes as `eofd run`.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { DEFAULT_GRID, gridPoints, parseExponentList, runGrid, type GridResult } from '../../experiment/grid.js';
import { processIo, type CliIo } from '../io.js';
import { collect, NAME_HELP, positiveInteger, SHARD_HELP, shardArgument, shardCountArgument, type ExperimentCommandOptions } from '../options.js';
import { perExperimentCommand } from '../per-experiment.js';

export interface GridCommandOptions extends ExperimentCommandOptions {
  l?: string;
  e?: string;
}

export async function gridCommand(configFiles: readonly string[], options: GridCommandOptions, io: CliIo): Promise<number> {
  let ls = DEFAULT_GRID;
  let es = DEFAULT_GRID;
  return perExperimentCommand<GridResult>(configFiles, options, io, {
    name: 'grid',
    resumeWords: [...(options.l === undefined ? [] : ['--l', options.l]), ...(options.e === undefined ? [] : ['--e', options.e])],
    prepare: () => {
      if (options.l !== undefined) ls = parseExponentList(options.l, '--l');
      if (options.e !== undefined) es = parseExponentList(options.e, '--e');
    },
    run: (config, runOptions) => runGrid(config, { ...runOptions, l: ls, e: es }),
    report: (config, result, reporter) => {
      if (result.best === null) {
        reporter.log(`eofd grid: ${config.name}: the grid is incomplete (${result.run.unitsFailed} units failed); no best.json written`);
        return;
      }
      if (options.quiet === true) return;
      const points = gridPoints(ls, es).length;
      const lines = [`${config.name}: ${points} grid points × ${config.trials} validation trials → ${path.relative(process.cwd(), result.dir) || result.dir}`];
      for (const [policy, b] of Object.entries(result.best.policies)) {
        lines.push(`  ${policy}: l = ${b.l}, e = ${b.e} (λ = ${b.lambda.toPrecision(4)}, η = ${b.eta.toPrecision(4)}), mean final regret ${b.mean_final_regret.toPrecision(4)}`);
      }
      reporter.log(lines.join('\n'));
    },
  });
}

export function registerGrid(program: Command, io: CliIo = processIo()): void {
  program
    .command('grid')
    .summary("Section 4's (l, e) hyperparameter search on validation seeds → grid.csv, heatmaps, best.json")
    .description(
      'For every experiment in the config and every policy except Random, run each grid point ' +
        '(l, e), with λ = (√K d)^l λ0 and η = (√K d)^e η0, on validation seeds (disjoint from the trials ' +
        '`eofd run` reports). Grid point folders go to <out>/<name>-grid/l=<l>,e=<e>/ (as `eofd run` ' +
        'writes them); then <out>/<name>-grid/ gets grid.csv, heatmap-<policy>.svg and best.json (per ' +
        'policy the (l, e) with the lowest mean final regret; ties: smaller parameter error, smaller l, ' +
        'smaller e). Use it with `eofd run <config> --params <out>/<name>-grid/best.json`.',
    )
    .argument('<config...>', 'experiment config files (YAML or JSON), or names of shipped configs (eofd list)')
    .option('--l <list>', `exponents l of λ, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--e <list>', `exponents e of η, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--out <dir>', 'parent folder of the <name>-grid folders', 'results')
    .option('--name <name>', NAME_HELP)
    .option('--trials <n>', 'validation trials per grid point and policy (overrides `trials`)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', 'override a config key in every experiment; the value is YAML (repeatable)', collect)
    .option('--jobs <n>', 'units run at once on worker threads; 1 runs in this process (default: CPU cores)', positiveInteger('a job count', 1024))
    .addOption(new Option('--resume', 'finish an existing grid: keep finished units, redo the others').conflicts('force'))
    .addOption(new Option('--force', 'delete existing grid point folders and start over'))
    .option('--shard <i/n>', 'run only shard i of n (0-based) of the grid\'s units into <out>/shard-<i>-of-<n>/; see Sharding below', shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .addHelpText('after', SHARD_HELP)
    .action(async (configs: string[], options: GridCommandOptions) => {
      process.exitCode = await gridCommand(configs, options, io);
    });
}
