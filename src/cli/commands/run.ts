/**
 * `eofd run <config> [--out results] [--trials N] [--set key=value]... [--jobs N] [--resume] [--force]
 * [--quiet] [--json]`: argv and exit codes only; the work is in src/experiment/.
 * Exit codes: 0 done; 1 a unit failed or the output cannot be written; 2 bad usage or config;
 * 130 interrupted (SIGINT), 143 terminated (SIGTERM).
 */
import os from 'node:os';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ConfigError } from '../../config/errors.js';
import { loadConfigs } from '../../config/load.js';
import { readBestFile, withPolicyParams } from '../../experiment/grid.js';
import { createProgress, progressMode } from '../../experiment/progress.js';
import { RunError, runExperiments } from '../../experiment/runner.js';
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
}

/** Exit codes of `eofd run`. */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130, terminated: 143 } as const;

const EXAMPLES = [
  ['eofd run configs/quick.yaml', "all three paper settings, small (what `npm start` runs)"],
  ['eofd run configs/synthetic-k4.yaml --jobs 2', 'the multinomial setting, two units at a time'],
  ["eofd run configs/mnist.yaml --set horizon=500 --set 'policies=[EOFD-MLogB, Random]'", 'override config keys'],
  ['eofd run configs/mnist.yaml --resume', 'finish an interrupted run (finished units are kept)'],
] as const;

function examplesText(): string {
  return `Examples:\n${EXAMPLES.map(([command, what]) => `  # ${what}\n  $ ${command}`).join('\n')}\n`;
}

function positiveInteger(what: string, max: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new InvalidArgumentError(`expected ${what}: an integer from 1 to ${max}, got ${JSON.stringify(text)}`);
    }
    return value;
  };
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** A shell word: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command that resumes this run. */
export function resumeCommand(configFile: string, options: RunCommandOptions): string {
  const words = ['eofd', 'run', configFile, '--out', options.out];
  for (const s of options.set ?? []) words.push('--set', s);
  if (options.trials !== undefined) words.push('--trials', String(options.trials));
  if (options.params !== undefined) words.push('--params', options.params);
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
      out: options.out,
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
    const summary = summarizeRun(result, options.out);
    if (options.json === true) io.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else if (options.quiet !== true) io.stderr.write('\n' + formatRunSummary(summary));
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
    if (caught instanceof ConfigError || caught instanceof RunError) {
      error(caught.message);
      return caught.exitCode;
    }
    const err = caught instanceof Error ? caught : new Error(String(caught));
    error(err.message);
    if (debug && err.stack) io.stderr.write(err.stack + '\n');
    return EXIT.failure;
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
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .option('--json', 'print the summary as one JSON document on stdout')
    .addHelpText('before', examplesText())
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
