/**
 * Argument parsers and help texts shared by the commands (commander parsers throw
 * InvalidArgumentError: one line, exit 2).
 */
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { parseCheckpointEvery, type CheckpointEvery } from '../experiment/checkpoint.js';
import { RunError } from '../base/errors.js';
import { loadConfigFiles, renameConfigs } from '../config/load.js';
import type { ExperimentConfig } from '../config/schema.js';
import type { RunOptions } from '../experiment/runner.js';
import { shellWord, type Hint, type ShellText } from './hint.js';
import type { ProgressReporter } from './progress.js';
import { parseShard, parseShardCount, type ResolvedShard, type Shard } from './shard.js';

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

/** commander parsers of --shard and --shard-count. */
export function shardArgument(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** commander parser of --checkpoint (experiment/checkpoint.ts parseCheckpointEvery). */
export function checkpointArgument(text: string): CheckpointEvery | null {
  try {
    return parseCheckpointEvery(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--checkpoint [^:]*: /, ''));
  }
}

/** The help of `--checkpoint` (run, grid, sweep, reproduce). */
export const CHECKPOINT_HELP =
  'how often a running unit saves its policy and rows so far, so that --resume continues it there (after a kill, a preemption or Ctrl-C, which also saves): ' +
  'a time (90s, 10m, 1h), a number of rounds (5000), or off (default: 10m)';

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
  'Without --shard: i = SLURM_ARRAY_TASK_ID (Slurm arrays, numbered 0 … n−1) or JOB_COMPLETION_INDEX (Kubernetes\n' +
  'Indexed Jobs), n = --shard-count or EOFD_SHARD_COUNT (never SLURM_ARRAY_TASK_COUNT: a resubmitted task keeps n).\n' +
  '--shard 0/1 runs everything. Combine the shards with: eofd merge <out>/shard-*-of-<n> --out <dir>';

/** The note a shard prints when done. */
/** `<out>/shard-*-of-<n>` for a hint: the folder quoted, the glob left unquoted for the shell to expand. */
export function shardGlob(out: string, count: number): ShellText {
  return { raw: `${shellWord(out.endsWith(path.sep) ? out : out + path.sep)}shard-*-of-${count}` };
}

export function shardNote(
  hint: Hint,
  command: string,
  shard: ResolvedShard,
  out: string,
  dir: string,
  units: { run: number; skipped: number; failed: number },
): string {
  const shards = shardGlob(out, shard.count);
  return (
    `eofd ${command}: shard ${shard.index}/${shard.count} (from ${shard.source}): ${units.run} units run, ${units.skipped} kept, ${units.failed} failed → ${dir}\n` +
    `eofd ${command}: when every shard is done: ${hint('merge', shards, '--out', { raw: '<dir>' })}\n`
  );
}

/** The options every experiment command (run, grid, …) shares. */
export interface ExperimentCommandOptions {
  /** Parent folder of the experiment folders (default `results`). */
  out: string;
  /** `--name`: the experiment's folder name (NAME-<name> for each of several experiments). */
  name?: string;
  /** Overrides `trials` of every experiment. */
  trials?: number;
  /** `key=value` overrides, applied to every experiment in the file. */
  set?: string[];
  /** `--experiment NAME` (repeatable): only these experiments of the files. */
  experiment?: string[];
  /** Units run at once (default: the CPU cores). */
  jobs?: number;
  resume?: boolean;
  force?: boolean;
  quiet?: boolean;
  /** `--shard i/n` (0-based). */
  shard?: Shard;
  /** `--shard-count n`: the count for JOB_COMPLETION_INDEX. */
  shardCount?: number;
  /** `--checkpoint EVERY` (null: off; absent: the runner's default). */
  checkpoint?: CheckpointEvery | null;
}

/**
 * The runner options every experiment command passes: the shard's folder, --timing (one unit at a
 * time) or --jobs, resume/force, the signal, and progress events (with stacks under EOFD_DEBUG=1).
 */
export function runOptionsFor(
  options: ExperimentCommandOptions & { timing?: boolean },
  context: { out: string; shard: Shard | null; configFile?: string; signal: AbortSignal; reporter: ProgressReporter; debug: boolean },
): Omit<RunOptions, 'split'> {
  const { reporter, shard } = context;
  return {
    out: context.out,
    ...(shard === null ? {} : { shard: { index: shard.index, count: shard.count } }),
    jobs: options.timing === true ? 1 : (options.jobs ?? os.availableParallelism()),
    resume: options.resume,
    force: options.force,
    ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
    ...(context.configFile === undefined ? {} : { configFile: context.configFile }),
    signal: context.signal,
    events: {
      ...reporter.events,
      onUnitFailed: (unit, message, stack) => {
        reporter.events.onUnitFailed?.(unit, message, stack);
        if (context.debug && stack !== undefined) reporter.log(stack);
      },
      onUnitNote: (unit, message) => {
        reporter.events.onUnitNote?.(unit, message);
        reporter.log(`eofd: note: ${unit.experiment}: ${unit.policy}, trial ${unit.trial}: ${message}`);
      },
      onUnitResumed: (unit, rounds) => {
        reporter.events.onUnitResumed?.(unit, rounds);
        reporter.log(`eofd: ${unit.experiment}: ${unit.policy}, trial ${unit.trial} continues from its checkpoint after round ${rounds}`);
      },
    },
  };
}

/** The `--set` overrides with `--trials` folded in. */
export function overridesOf(options: ExperimentCommandOptions): string[] {
  const sets = options.set ?? [];
  return options.trials === undefined ? sets : [...sets, `trials=${options.trials}`];
}

/**
 * The command that resumes `eofd <command> <config> …`: the shared options, then `extra` (the
 * command's own words, e.g. `--l 0,1`), then `--resume`.
 */
export function resumeCommand(
  hint: Hint,
  command: string,
  configFiles: readonly string[],
  options: ExperimentCommandOptions,
  extra: readonly string[] = [],
): string {
  const words = [command, ...configFiles, '--out', options.out, ...extra];
  for (const name of options.experiment ?? []) words.push('--experiment', name);
  if (options.name !== undefined) words.push('--name', options.name);
  for (const s of options.set ?? []) words.push('--set', s);
  if (options.trials !== undefined) words.push('--trials', String(options.trials));
  if (options.shard !== undefined) words.push('--shard', `${options.shard.index}/${options.shard.count}`);
  if (options.shardCount !== undefined) words.push('--shard-count', String(options.shardCount));
  words.push('--resume');
  return hint(...words);
}

/** `--set`'s help, shared by run, grid and sweep. */
export const SET_HELP = 'override a config key in every experiment; the value is YAML, and key=null removes the key so its default applies (repeatable)';

/** The help of `--name` (run, grid, sweep). */
export const NAME_HELP =
  'name of the output folder <out>/<name> instead of the config\'s name (NAME-<name> for each of several experiments); ' +
  'the trials keep the seeds of the config\'s name, so a renamed variant plays the same instances';

/** The help of `--experiment` (run, grid, sweep). */
export const EXPERIMENT_HELP =
  'run only the experiment of this name (repeatable; default: every experiment of the files); the others are not run or checked against their folders';

/** The configs of an experiment command: every file (or shipped config name), overrides, --experiment, --name. */
export function loadCommandConfigs(configFiles: readonly string[], options: ExperimentCommandOptions): ExperimentConfig[] {
  return loadCommandExperiments(configFiles, options).configs;
}

/** loadCommandConfigs, with the names of the files' experiments that `--experiment` left out. */
export function loadCommandExperiments(configFiles: readonly string[], options: ExperimentCommandOptions): { configs: ExperimentConfig[]; left: string[] } {
  const all = loadConfigFiles(configFiles, overridesOf(options));
  const selected = selectExperiments(all, options.experiment, configFiles);
  const left = all.filter((config) => !selected.includes(config)).map((config) => config.name);
  return { configs: options.name === undefined ? selected : renameConfigs(selected, options.name), left };
}

/** `--experiment NAME …`: the named experiments, in the files' order; a name no file holds is an error. */
export function selectExperiments(configs: ExperimentConfig[], names: readonly string[] | undefined, configFiles: readonly string[]): ExperimentConfig[] {
  if (names === undefined || names.length === 0) return configs;
  const known = new Set(configs.map((c) => c.name));
  for (const name of names) {
    if (!known.has(name)) {
      throw new RunError(`--experiment ${name}: no experiment of that name in ${configFiles.join(', ')}; its experiments: ${[...known].join(', ')}`, 2);
    }
  }
  return configs.filter((c) => names.includes(c.name));
}

/**
 * `--timing`: in this process, each trial's policies in lock-step (per-round times are then the
 * policy's alone and taken side by side, the only ones the report judges time claims on), and a
 * warning when other work loads the machine.
 */
export function timingCheck(options: { jobs?: number }, log: (line: string) => void): void {
  if (options.jobs !== undefined && options.jobs !== 1) throw new RunError(`--timing runs in this process, each trial's policies in lock-step; drop --jobs ${options.jobs}`, 2);
  const [load] = os.loadavg();
  const cores = os.availableParallelism();
  if ((load ?? 0) > cores) {
    log(`eofd: warning: the load average (${(load ?? 0).toFixed(2)}) exceeds the ${cores} cores; other work will inflate the per-round times`);
  }
}
