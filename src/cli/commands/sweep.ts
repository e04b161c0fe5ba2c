/**
 * `eofd sweep <config> --over KEY=V1,V2,… [--over …] [--reference policy] …`: every experiment of the
 * config at every point of the product of the swept values, on the report seeds (all points play the
 * same instances); the work is in src/experiment/sweep.ts. Exit codes as `eofd run`.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkNotSwept, parseAxis, runSweep, valueText, type SweepAxis, type SweepResult } from '../../experiment/sweep.js';
import { formatShort } from '../../report/format.js';
import { formatTable } from '../../report/table.js';
import type { SweepRow } from '../../results/sweep.js';
import { processIo, type CliIo } from '../io.js';
import { CHECKPOINT_HELP, checkpointArgument, collect, EXPERIMENT_HELP, type ExperimentCommandOptions, NAME_HELP, positiveInteger, SET_HELP, SHARD_HELP, shardArgument, shardCountArgument } from '../options.js';
import { perExperimentCommand } from '../per-experiment.js';

export interface SweepCommandOptions extends ExperimentCommandOptions {
  over?: string[];
  reference?: string;
  timing?: boolean;
}

/** The closing table: per point and policy, mean final regret, the paired difference to the reference, ms/round. */
export function sweepTable(axes: readonly SweepAxis[], rows: readonly SweepRow[]): string {
  const ci = (r: SweepRow): string =>
    r.regretDiff === null ? '–' : `${formatShort(r.regretDiff, 3)} [${formatShort(r.regretDiffLow, 3)}, ${formatShort(r.regretDiffHigh, 3)}]`;
  return formatTable(
    [...axes.map((a) => a.key), 'policy', 'n', 'final regret', 'vs reference (95% CI)', 'ms/round', 'Δ_T', 'projections'],
    rows.map((r) => [
      ...r.values.map(valueText),
      r.policy,
      String(r.trials),
      formatShort(r.meanFinalRegret, 4),
      r.reference === null ? '(reference)' : ci(r),
      formatShort(r.meanRoundMs, 3),
      r.meanDeltaT === null ? '–' : formatShort(r.meanDeltaT, 4),
      formatShort(r.meanProjections, 3),
    ]),
  );
}

export async function sweepCommand(configFiles: readonly string[], options: SweepCommandOptions, io: CliIo): Promise<number> {
  let axes: SweepAxis[] = [];
  return perExperimentCommand<SweepResult>(configFiles, options, io, {
    name: 'sweep',
    resumeWords: [...(options.over ?? []).flatMap((o) => ['--over', o]), ...(options.reference === undefined ? [] : ['--reference', options.reference])],
    groups: (configs) => configs,
    prepare: () => {
      const over = options.over ?? [];
      axes = over.map(parseAxis);
      checkNotSwept(axes.map((axis, i) => ({ key: axis.key, given: `--over ${over[i]}` })), options.set ?? [], options.trials);
    },
    run: (config, runOptions) => runSweep(config, { ...runOptions, axes, ...(options.reference === undefined ? {} : { reference: options.reference }) }),
    report: (config, result, reporter) => {
      if (result.rows.length === 0) {
        reporter.log(`eofd sweep: ${config.name}: the sweep is incomplete (${result.run.unitsFailed} units failed); no sweep.csv written`);
        return;
      }
      if (options.quiet === true) return;
      reporter.log(`${config.name}: sweep → ${path.relative(process.cwd(), result.dir) || result.dir} (sweep.csv, ${axes.length} figure${axes.length === 1 ? '' : 's'})`);
      reporter.log(sweepTable(axes, result.rows));
    },
  });
}

export function registerSweep(program: Command, io: CliIo = processIo()): void {
  program
    .command('sweep')
    .summary('run an experiment at every point of a product of config values → sweep.csv with paired differences, figures')
    .description(
      'For every experiment in the config, run every point of the cartesian product of the --over values ' +
        '(any config key, dotted; values are YAML) as an ordinary run in <out>/<name>-sweep/<key=value,…>/. ' +
        'All points play the same instances (the trials keep the experiment\'s seeds), so differences are paired. ' +
        'Then <out>/<name>-sweep/ gets sweep.csv (per point and policy: trials, mean and std final regret, the ' +
        'mean paired difference to the reference policy with its 95% Student-t interval, ms/round, Δ_T, β_T, ' +
        'projections) and sweep-<key>.svg per swept key (final regret and ms/round against the value).',
    )
    .argument('<config...>', 'experiment config files (YAML or JSON), or names of shipped configs (eofd list)')
    .option('--over <KEY=V1,V2,…>', 'a config key and its values (repeatable: the product of all is run)', collect)
    .option('--reference <policy>', 'the policy paired differences are taken against (default: OFUL-MLogB when it runs, else the first)')
    .option('--out <dir>', 'parent folder of the <name>-sweep folders', 'results')
    .option('--experiment <name>', EXPERIMENT_HELP, collect)
    .option('--name <name>', NAME_HELP)
    .option('--trials <n>', 'trials per point and policy (overrides `trials`)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', SET_HELP, collect)
    .option('--jobs <n>', 'units run at once on worker threads; 1 runs in this process (default: CPU cores)', positiveInteger('a job count', 1024))
    .option('--timing', "time in this process, each trial's policies in lock-step (= --jobs 1), as time claims need")
    .option('--checkpoint <every>', CHECKPOINT_HELP, checkpointArgument)
    .addOption(new Option('--resume', 'finish an existing sweep: keep finished units, redo the others').conflicts('force'))
    .addOption(new Option('--force', 'delete existing point folders and start over'))
    .option('--shard <i/n>', "run only shard i of n (0-based) of the sweep's units into <out>/shard-<i>-of-<n>/; see Sharding below", shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ eofd sweep configs/mnist.yaml --over params.m=20,78,196,785 --trials 5\n' +
        '  $ eofd sweep configs/synthetic-k4.yaml --over params.l=-0.5,0,0.75 --over params.S=1,5\n' +
        '  $ eofd sweep configs/mnist.yaml --over params.beta_rank=sketch,full\n' +
        SHARD_HELP,
    )
    .action(async (configs: string[], options: SweepCommandOptions) => {
      process.exitCode = await sweepCommand(configs, options, io);
    });
}
