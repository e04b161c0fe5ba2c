/**
 * `eofd run <config> [--out results] [--trials N] [--set key=value]... [--jobs N] [--resume] [--force]
 * [--quiet] [--json]`: argv and exit codes only; the work is in src/experiment/.
 * Exit codes: 0 done; 1 a unit failed or the output cannot be written; 2 bad usage or config;
 * 130 interrupted (SIGINT), 143 terminated (SIGTERM).
 */
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ConfigError } from '../../config/errors.js';
import { loadConfigs } from '../../config/load.js';
import { readBestFile, withPolicyParams } from '../../experiment/grid.js';
import { createProgress, progressMode } from '../../experiment/progress.js';
import { RunError, runExperiments } from '../../experiment/runner.js';
import { parseShard, parseShardCount, resolveShard, shardFolder, type ResolvedShard, type Shard } from '../../experiment/shard.js';
import { formatRunSummary, summarizeRun } from '../../experiment/summary.js';

export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

let pipeGuarded = false;

/** The real streams. A closed pipe on stdout (`eofd run --help | head -3`) ends output quietly. */
export function processIo(): CliIo {
  if (!pipeGuarded) {
    pipeGuarded = true;
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

export interface RunCommandOptions {
  /** Parent folder of the experiment folders (default `results`). */
  out: string;
  /** Overrides `trials` of every experiment. */
  trials?: number;
  /** `key=value` overrides, applied to every experiment in the file. */
  set?: string[];
  /** Units run at once (default: the CPU cores). */
  jobs?: number;
  resume?: boolean;
  force?: boolean;
  quiet?: boolean;
  json?: boolean;
  /** best.json from `eofd grid`: per-policy (l, e). */
  params?: string;
  /** `--shard i/n` (0-based). */
  shard?: Shard;
  /** `--shard-count n`: the count for JOB_COMPLETION_INDEX. */
  shardCount?: number;
}

/** commander parsers of --shard and --shard-count (one-line errors, exit 2). */
export function shardArgument(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function shardCountArgument(text: string): number {
  try {
    return parseShardCount(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export const SHARD_HELP =
  '\nSharding (several machines): --shard i/n (0-based, 0 ≤ i < n) runs unit k of the fixed order\n' +
  '(experiments, policies, trials as configured) when k mod n = i, into <out>/shard-<i>-of-<n>/.\n' +
  'Without --shard: Slurm arrays give i = SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN, n = SLURM_ARRAY_TASK_COUNT;\n' +
  'Kubernetes Indexed Jobs give i = JOB_COMPLETION_INDEX, n = --shard-count or EOFD_SHARD_COUNT.\n' +
  '--shard 0/1 runs everything. Combine the shards with: eofd merge <out>/shard-*-of-<n> --out <dir>';

/** The note a shard prints when done. */
export function shardNote(command: string, shard: ResolvedShard, out: string, dir: string, units: { run: number; skipped: number; failed: number }): string {
  return (
    `eofd ${command}: shard ${shard.index}/${shard.count} (from ${shard.source}): ${units.run} units run, ${units.skipped} kept, ${units.failed} failed → ${dir}\n` +
    `eofd ${command}: when every shard is done: eofd merge ${path.join(out, `shard-*-of-${shard.count}`)} --out <dir>\n`
  );
}

/** Exit codes of `eofd run`. */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130, terminated: 143 } as const;

/**
 * The exit code for an error that reached a command, after printing it as one line: ConfigError and
 * RunError carry their own code (2 for usage/config, 1 for runtime); anything else is 1, with its stack
 * when EOFD_DEBUG=1.
 */
export function failureExitCode(caught: unknown, io: CliIo, error: (message: string) => void): number {
  if (caught instanceof ConfigError || caught instanceof RunError) {
    error(caught.message);
    return caught.exitCode;
  }
  const err = caught instanceof Error ? caught : new Error(String(caught));
  error(err.message);
  if (io.env.EOFD_DEBUG === '1' && err.stack) io.stderr.write(err.stack + '\n');
  return EXIT.failure;
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

/** A commander parser for an integer in [1, max]. */
export function positiveInteger(what: string, max: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new InvalidArgumentError(`expected ${what}: an integer from 1 to ${max}, got ${JSON.stringify(text)}`);
    }
    return value;
  };
}

/** A commander parser collecting a repeatable option. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** A shell word: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command that resumes this run. */
export function resumeCommand(configFile: string, options: RunCommandOptions): string {
  const words = ['eofd', 'run', configFile, '--out', options.out];
  for (const s of options.set ?? []) words.push('--set', s);
  if (options.trials !== undefined) words.push('--trials', String(options.trials));
  if (options.params !== undefined) words.push('--params', options.params);
  if (options.shard !== undefined) words.push('--shard', `${options.shard.index}/${options.shard.count}`);
  if (options.shardCount !== undefined) words.push('--shard-count', String(options.shardCount));
  words.push('--resume');
  return words.map(shellWord).join(' ');
}

function firstLine(text: string): string {
  return text.split('\n')[0] as string;
}

/** Runs the command; returns the exit code. Errors are one line on stderr (a stack only with EOFD_DEBUG=1). */
export async function runCommand(configFile: string, options: RunCommandOptions, io: CliIo): Promise<number> {
  const error = (message: string): void => void io.stderr.write(`eofd run: ${firstLine(message)}\n`);
  const debug = io.env.EOFD_DEBUG === '1';
  const controller = new AbortController();
  let signalled: NodeJS.Signals | null = null;
  const reporter = createProgress(progressMode(io.stderr, options.quiet === true), io.stderr);
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled !== null) {
      error('stopping now (second signal)');
      process.exit(signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated);
    }
    signalled = signal;
    reporter.log(`eofd run: ${signal === 'SIGINT' ? 'interrupted' : 'terminated'}; stopping the running units…`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const sets = options.set ?? [];
    const overrides = options.trials === undefined ? sets : [...sets, `trials=${options.trials}`];
    const shard = resolveShard(options.shard, options.shardCount, io.env);
    const out = shard === null ? options.out : shardFolder(options.out, shard);
    let configs = loadConfigs(configFile, overrides);
    if (options.params !== undefined) {
      const best = readBestFile(options.params);
      configs = configs.map((config) => withPolicyParams(config, best.policies));
      for (const config of configs) {
        if (best.experiment !== null && best.experiment !== config.name) {
          reporter.log(`eofd run: note: ${options.params} was tuned on experiment ${best.experiment}, applied to ${config.name}`);
        }
      }
    }
    const result = await runExperiments(configs, {
      out,
      ...(shard === null ? {} : { shard: { index: shard.index, count: shard.count } }),
      jobs: options.jobs ?? os.availableParallelism(),
      resume: options.resume,
      force: options.force,
      configFile,
      signal: controller.signal,
      events: {
        ...reporter.events,
        onUnitFailed: (unit, message, stack) => {
          reporter.events.onUnitFailed?.(unit, message, stack);
          if (debug && stack !== undefined) reporter.log(stack);
        },
      },
    });
    reporter.stop();
    const total = result.unitsRun + result.unitsSkipped + result.unitsFailed;
    if (result.interrupted || signalled !== null) {
      error(
        `${signalled === 'SIGTERM' ? 'terminated' : 'interrupted'}: ${result.unitsRun + result.unitsSkipped} units are finished and kept; ` +
          `resume with: ${resumeCommand(configFile, options)}`,
      );
      return signalled === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
    }
    const summary = summarizeRun(result, out);
    if (options.json === true) {
      const shardInfo = shard === null ? {} : { shard: { index: shard.index, count: shard.count, source: shard.source } };
      io.stdout.write(JSON.stringify({ ...summary, ...shardInfo }, null, 2) + '\n');
    } else if (options.quiet !== true) {
      if (shard === null) io.stderr.write('\n' + formatRunSummary(summary));
      else io.stderr.write(shardNote('run', shard, options.out, out, { run: result.unitsRun, skipped: result.unitsSkipped, failed: result.unitsFailed }));
    }
    if (result.unitsFailed > 0) {
      error(
        `${result.unitsFailed} of ${total} units failed (messages above); the others are written. ` +
          `After fixing the cause, ${resumeCommand(configFile, options)} reruns only the failed ones`,
      );
      return EXIT.failure;
    }
    return EXIT.ok;
  } catch (caught) {
    reporter.stop();
    return failureExitCode(caught, io, error);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
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
    .argument('<config>', 'experiment config file (YAML or JSON)')
    .option('--out <dir>', 'parent folder of the experiment folders', 'results')
    .option('--trials <n>', 'trials per policy (overrides `trials` in every experiment)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', 'override a config key in every experiment; the value is YAML (repeatable)', collect)
    .option('--jobs <n>', `units run at once on worker threads; 1 runs in this process (default: CPU cores, here ${cores})`, positiveInteger('a job count', 1024))
    .addOption(new Option('--resume', 'finish an existing experiment folder: keep finished units, redo the others (same config required)').conflicts('force'))
    .addOption(new Option('--force', 'delete an existing experiment folder and start over'))
    .option('--params <best.json>', "per-policy (l, e) from `eofd grid`'s best.json (λ, η recomputed per policy; recorded in the manifest's derived.policies)")
    .option('--shard <i/n>', 'run only shard i of n (0-based) into <out>/shard-<i>-of-<n>/; see Sharding below', shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .option('--json', 'print the summary as one JSON document on stdout')
    .addHelpText('before', examplesText())
    .addHelpText('after', SHARD_HELP)
    .addHelpText(
      'after',
      '\nProgress and messages go to stderr (bars on a terminal, one line per finished unit\n' +
        'otherwise); only --json writes to stdout.\n\n' +
        'Exit codes: 0 done; 1 a unit failed or the output folder cannot be written;\n' +
        '2 bad usage or config (the message names file:line:column and the field);\n' +
        '130 interrupted by Ctrl-C (finished units are kept; resume with --resume).',
    )
    .action(async (config: string, options: RunCommandOptions) => {
      process.exitCode = await runCommand(config, options, io);
    });
}
