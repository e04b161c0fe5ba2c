/**
 * `eofd grid <config> [--l list] [--e list] [--trials N] [--set key=value]... [--jobs N] [--out dir]
 * [--resume] [--force] [--quiet]`: Section 4's (l, e) search on validation seeds; the work is in
 * src/experiment/grid.ts. Exit codes as `eofd run`.
 */
import os from 'node:os';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { loadConfigs } from '../../config/load.js';
import { DEFAULT_GRID, gridPoints, parseExponentList, runGrid } from '../../experiment/grid.js';
import { shardFolder } from '../../results/layout.js';
import { EXIT, failureExitCode, firstLine, processIo, type CliIo } from '../io.js';
import {
  collect,
  overridesOf,
  positiveInteger,
  resumeCommand,
  SHARD_HELP,
  shardArgument,
  shardCountArgument,
  shardNote,
  type ExperimentCommandOptions,
} from '../options.js';
import { createProgress, progressMode } from '../progress.js';
import { Session } from '../session.js';
import { resolveShard } from '../shard.js';

export interface GridCommandOptions extends ExperimentCommandOptions {
  l?: string;
  e?: string;
}

function gridResumeCommand(configFile: string, options: GridCommandOptions): string {
  const extra = [...(options.l === undefined ? [] : ['--l', options.l]), ...(options.e === undefined ? [] : ['--e', options.e])];
  return resumeCommand('grid', configFile, options, extra);
}

export async function gridCommand(configFile: string, options: GridCommandOptions, io: CliIo): Promise<number> {
  const error = (message: string): void => void io.stderr.write(`eofd grid: ${firstLine(message)}\n`);
  const reporter = createProgress(progressMode(io.stderr, options.quiet === true), io.stderr);
  const session = new Session('grid', (line) => reporter.log(line));
  try {
    const ls = options.l === undefined ? DEFAULT_GRID : parseExponentList(options.l, '--l');
    const es = options.e === undefined ? DEFAULT_GRID : parseExponentList(options.e, '--e');
    const shard = resolveShard(options.shard, options.shardCount, io.env);
    const out = shard === null ? options.out : shardFolder(options.out, shard);
    const configs = loadConfigs(configFile, overridesOf(options));
    let failed = 0;
    for (const config of configs) {
      const result = await runGrid(config, {
        out,
        ...(shard === null ? {} : { shard: { index: shard.index, count: shard.count } }),
        l: ls,
        e: es,
        jobs: options.jobs ?? os.availableParallelism(),
        resume: options.resume,
        force: options.force,
        configFile,
        signal: session.signal,
        events: reporter.events,
      });
      if (result.run.interrupted || session.signalled !== null) {
        reporter.stop();
        error(`${session.stopWord}: finished units are kept; resume with: ${gridResumeCommand(configFile, options)}`);
        return session.stopCode;
      }
      failed += result.run.unitsFailed;
      if (shard !== null) {
        if (options.quiet !== true) {
          const { unitsRun, unitsSkipped, unitsFailed } = result.run;
          reporter.log(shardNote('grid', shard, options.out, result.dir, { run: unitsRun, skipped: unitsSkipped, failed: unitsFailed }).trimEnd());
        }
        continue;
      }
      if (result.best === null) {
        reporter.log(`eofd grid: ${config.name}: the grid is incomplete (${result.run.unitsFailed} units failed); no best.json written`);
        continue;
      }
      if (options.quiet !== true) {
        const points = gridPoints(ls, es).length;
        const lines = [`${config.name}: ${points} grid points × ${config.trials} validation trials → ${path.relative(process.cwd(), result.dir) || result.dir}`];
        for (const [policy, b] of Object.entries(result.best.policies)) {
          lines.push(`  ${policy}: l = ${b.l}, e = ${b.e} (λ = ${b.lambda.toPrecision(4)}, η = ${b.eta.toPrecision(4)}), mean final regret ${b.mean_final_regret.toPrecision(4)}`);
        }
        reporter.log(lines.join('\n'));
      }
    }
    reporter.stop();
    if (failed > 0) {
      error(`${failed} units failed (messages above); after fixing the cause, ${gridResumeCommand(configFile, options)} reruns only those`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } catch (caught) {
    reporter.stop();
    return failureExitCode(caught, io, 'grid');
  } finally {
    session.close();
  }
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
    .argument('<config>', 'experiment config file (YAML or JSON)')
    .option('--l <list>', `exponents l of λ, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--e <list>', `exponents e of η, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--out <dir>', 'parent folder of the <name>-grid folders', 'results')
    .option('--trials <n>', 'validation trials per grid point and policy (overrides `trials`)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', 'override a config key in every experiment; the value is YAML (repeatable)', collect)
    .option('--jobs <n>', 'units run at once on worker threads; 1 runs in this process (default: CPU cores)', positiveInteger('a job count', 1024))
    .addOption(new Option('--resume', 'finish an existing grid: keep finished units, redo the others').conflicts('force'))
    .addOption(new Option('--force', 'delete existing grid point folders and start over'))
    .option('--shard <i/n>', 'run only shard i of n (0-based) of the grid\'s units into <out>/shard-<i>-of-<n>/; see Sharding below', shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .addHelpText('after', SHARD_HELP)
    .action(async (config: string, options: GridCommandOptions) => {
      process.exitCode = await gridCommand(config, options, io);
    });
}
