/**
 * `eofd run <config> [--out results] [--trials N] [--set key=value]... [--jobs N] [--resume] [--force]
 * [--quiet] [--json]`: argv and exit codes only; the work is in src/experiment/.
 * Exit codes: 0 done; 1 a unit failed or the output cannot be written; 2 bad usage or config;
 * 130 interrupted (SIGINT), 143 terminated (SIGTERM).
 */
import os from 'node:os';
import { Option, type Command } from 'commander';
import type { ExperimentConfig } from '../../config/schema.js';
import { applyBestFiles } from '../../experiment/grid.js';
import { runExperiments } from '../../experiment/runner.js';
import { hinter } from '../hint.js';
import { EXIT, processIo, type CliIo } from '../io.js';
import { CHECKPOINT_HELP, checkpointArgument, collect, EXPERIMENT_HELP, type ExperimentCommandOptions, NAME_HELP, positiveInteger, SET_HELP, SHARD_HELP, shardArgument, shardCountArgument, shardNote } from '../options.js';
import { perExperimentCommand, type GroupResult } from '../per-experiment.js';
import { formatRunSummary, summarizeRun } from '../run-summary.js';

export interface RunCommandOptions extends ExperimentCommandOptions {
  json?: boolean;
  /** Time in this process, each trial's policies in lock-step (= --jobs 1), warning when the machine is loaded. */
  timing?: boolean;
  /** best.json files from `eofd grid`: per label the tuned values (one file for every experiment, or one per experiment). */
  params?: string[];
}

const EXAMPLES = [
  ['eofd run configs/quick.yaml', "all three paper settings, small (what `npm start` runs)"],
  ['eofd run configs/synthetic-k4.yaml --jobs 2', 'the multinomial setting, two units at a time'],
  ["eofd run configs/mnist.yaml --set horizon=500 --set 'policies=[EOFD-MLogB, Random]'", 'override config keys'],
  ['eofd run configs/mnist.yaml --resume', 'finish an interrupted run (finished units are kept)'],
] as const;

function examplesText(): string {
  return `Examples:\n${EXAMPLES.map(([command, what]) => `  # ${what}\n  $ ${command}`).join('\n')}\n`;
}

/** Runs the command; returns the exit code. Errors are one line on stderr (a stack only with EOFD_DEBUG=1). */
export async function runCommand(configFiles: readonly string[], options: RunCommandOptions, io: CliIo): Promise<number> {
  const eofd = hinter(io.env);
  return perExperimentCommand<GroupResult, ExperimentConfig[]>(configFiles, options, io, {
    name: 'run',
    resumeWords: (options.params ?? []).flatMap((file) => ['--params', file]),
    configure: (configs, log, left) => (options.params === undefined ? configs : applyBestFiles(configs, options.params, (line) => log(`eofd run: ${line}`), left)),
    // One runner call: the units of every experiment share the workers.
    groups: (configs) => [configs],
    run: async (configs, runOptions) => ({ run: await runExperiments(configs, runOptions), dir: runOptions.out }),
    kept: ({ run }) => `${run.unitsRun + run.unitsSkipped} units are finished and kept`,
    end: ({ results, shard, resume, error }) => {
      const { run: result, dir: out } = results[0] as GroupResult; // one group
      const summary = summarizeRun(result, out);
      if (options.json === true) {
        const shardInfo = shard === null ? {} : { shard: { index: shard.index, count: shard.count, source: shard.source } };
        io.stdout.write(JSON.stringify({ ...summary, ...shardInfo }, null, 2) + '\n');
      } else if (options.quiet !== true) {
        if (shard === null) io.stderr.write('\n' + formatRunSummary(summary, eofd));
        else io.stderr.write(shardNote(eofd, 'run', shard, options.out, out, { run: result.unitsRun, skipped: result.unitsSkipped, failed: result.unitsFailed }));
      }
      if (result.unitsFailed > 0) {
        const total = result.unitsRun + result.unitsSkipped + result.unitsFailed;
        error(`${result.unitsFailed} of ${total} units failed (messages above); the others are written. After fixing the cause, ${resume()} reruns only the failed ones`);
        return EXIT.failure;
      }
      return EXIT.ok;
    },
  });
}

export function registerRun(program: Command, io: CliIo = processIo()): void {
  const cores = os.availableParallelism();
  program
    .command('run')
    .summary("run experiments from a config: the paper's policies, seeded trials, per-round CSVs")
    .description(
      'Run every experiment in a YAML or JSON config (several experiments: YAML documents separated by ---). ' +
        'Each (experiment, policy, trial) is one unit; its rounds go to <out>/<name>/<policy>/trial-<i>.csv ' +
        '(regret, chosen action, outcome, time spent in the policy in milliseconds), and when all units of ' +
        'an experiment are done, <out>/<name>/summary.csv holds one row per policy and trial. ' +
        '<out>/<name>/manifest.json records the resolved config, the derived hyperparameters (λ, η, m, δ, β), ' +
        'the seeds, the package version, the git commit and the machine. Trials are seeded from ' +
        '(experiment name, trial index, seed), so results are identical for any --jobs.',
    )
    .argument('<config...>', 'experiment config files (YAML or JSON; run one after another), or names of shipped configs (eofd list)')
    .option('--out <dir>', 'parent folder of the experiment folders', 'results')
    .option('--experiment <name>', EXPERIMENT_HELP, collect)
    .option('--name <name>', NAME_HELP)
    .option('--trials <n>', 'trials per policy (overrides `trials` in every experiment)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', SET_HELP, collect)
    .option('--jobs <n>', `units run at once on worker threads; 1 runs in this process (default: CPU cores, here ${cores})`, positiveInteger('a job count', 1024))
    .option('--checkpoint <every>', CHECKPOINT_HELP, checkpointArgument)
    .addOption(new Option('--resume', 'finish an existing experiment folder: keep finished units, redo the others (same config required)').conflicts('force'))
    .addOption(new Option('--force', 'delete an existing experiment folder and start over'))
    .option(
      '--params <best.json>',
      "each label's tuned values from `eofd grid`'s best.json (λ, η recomputed per experiment; recorded in the manifest's derived.policies). One file applies to every experiment; repeated, each file applies to the experiment it was tuned on",
      collect,
    )
    .option('--shard <i/n>', 'run only shard i of n (0-based) into <out>/shard-<i>-of-<n>/; see Sharding below', shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .option('--timing', "time in this process, each trial's policies in lock-step, turn by turn (= --jobs 1; warns when the load average exceeds the cores): the runs `eofd report` judges time claims on")
    .option('--json', 'print the summary as one JSON document on stdout')
    .addHelpText('before', examplesText())
    .addHelpText('after', SHARD_HELP)
    .addHelpText(
      'after',
      '\nProgress and messages go to stderr (bars on a terminal, one line per finished unit\n' +
        'otherwise); only --json writes to stdout.\n\n' +
        'Exit codes: 0 done; 1 a unit failed or the output folder cannot be written;\n' +
        '2 bad usage or config (the message names file:line:column and the field);\n' +
        '130 interrupted by Ctrl-C, 143 terminated by SIGTERM (finished units are kept; resume with --resume).',
    )
    .action(async (configs: string[], options: RunCommandOptions) => {
      process.exitCode = await runCommand(configs, options, io);
    });
}
