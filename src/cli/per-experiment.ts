/**
 * The command loop shared by `eofd run`, `eofd grid` and `eofd sweep`: load the configs, then one
 * runner call per group of experiments (grid, sweep: one per experiment, each into its own folder;
 * run: one for all). It owns what they all need around those calls: progress, signals, the shard,
 * --timing, the resume hint, the shard notes and the exit code.
 */
import type { ExperimentConfig } from '../config/schema.js';
import type { RunOptions, RunResult } from '../experiment/runner.js';
import { shardFolder } from '../results/layout.js';
import { hinter } from './hint.js';
import { EXIT, failureExitCode, firstLine, type CliIo } from './io.js';
import { loadCommandExperiments, resumeCommand, runOptionsFor, shardNote, timingCheck, type ExperimentCommandOptions } from './options.js';
import { createProgress, progressMode, type LaterUnits, type ProgressReporter } from './progress.js';
import { Session } from './session.js';
import { resolveShard, withExplicitShard, type ResolvedShard } from './shard.js';

export interface PerExperimentOptions extends ExperimentCommandOptions {
  timing?: boolean;
}

/** What one runner call gave: its result and the folder it wrote. */
export interface GroupResult {
  run: RunResult;
  dir: string;
}

/** What the command's closing step has at hand once the progress has stopped. */
export interface CommandEnd<Result> {
  /** Every group's result, in order. */
  results: Result[];
  shard: ResolvedShard | null;
  /** The command's invocation that finishes this run (`eofd run … --resume`). */
  resume: () => string;
  /** Writes `eofd <name>: <first line of message>` to stderr. */
  error: (message: string) => void;
}

export interface PerExperimentCommand<Result extends GroupResult, Group = ExperimentConfig> {
  /** `run`, `grid`, `sweep`. */
  name: string;
  /** The command's own words for the resume hint (e.g. `--l 0,1`). */
  resumeWords: readonly string[];
  /** Checks the command's own arguments before any work (throws a one-line error). */
  prepare?(): void;
  /** Changes the loaded configs before anything runs (run's --params); `left`: the files' experiments that --experiment left out. */
  configure?(configs: ExperimentConfig[], log: (line: string) => void, left: readonly string[]): ExperimentConfig[];
  /** The runner calls, in order: which experiments each one runs. */
  groups(configs: ExperimentConfig[]): Group[];
  /** Runs one group with the shared run options. */
  run(group: Group, runOptions: Omit<RunOptions, 'split'>): Promise<Result>;
  /** The units of `groups` (those after the running one), for the ETA of the whole command; null (the default) when not known. */
  later?(groups: readonly Group[]): LaterUnits[] | null;
  /** What the stop line says is kept (default `finished units are kept`). */
  kept?(result: Result): string;
  /**
   * Prints what one unsharded group gave, or that it is incomplete, as the group finishes (grid,
   * sweep); a shard's group prints its shard note instead.
   */
  report?(group: Group, result: Result, reporter: ProgressReporter): void;
  /**
   * Instead of the per-group reports and shard notes and of the closing failure line (run): prints
   * the results once the progress has stopped, and returns the exit code.
   */
  end?(end: CommandEnd<Result>): number;
}

export async function perExperimentCommand<Result extends GroupResult, Group = ExperimentConfig>(
  configFiles: readonly string[],
  options: PerExperimentOptions,
  io: CliIo,
  command: PerExperimentCommand<Result, Group>,
): Promise<number> {
  const error = (message: string): void => void io.stderr.write(`eofd ${command.name}: ${firstLine(message)}\n`);
  const reporter = createProgress(progressMode(io.stderr, options.quiet === true, io.env), io.stderr);
  const session = new Session(command.name, (line) => reporter.log(line));
  let shard: ResolvedShard | null = null;
  const eofd = hinter(io.env);
  const resume = (): string => resumeCommand(eofd, command.name, configFiles, withExplicitShard(options, shard), command.resumeWords);
  try {
    command.prepare?.();
    shard = resolveShard(options.shard, options.shardCount, io.env);
    const out = shard === null ? options.out : shardFolder(options.out, shard);
    const { configs: loaded, left } = loadCommandExperiments(configFiles, options);
    const configs = command.configure?.(loaded, (line) => reporter.log(line), left) ?? loaded;
    const configFile = configFiles.length === 1 ? configFiles[0] : undefined;
    if (options.timing === true) timingCheck(options, (line) => reporter.log(line));
    const results: Result[] = [];
    const groups = command.groups(configs);
    for (const [i, group] of groups.entries()) {
      const debug = io.env.EOFD_DEBUG === '1';
      // Several groups (a grid or sweep of each experiment): the ETA counts the later ones.
      if (groups.length > 1) reporter.laterWork(i === groups.length - 1 ? [] : (command.later?.(groups.slice(i + 1)) ?? null), 'experiments');
      const result = await command.run(group, runOptionsFor(options, { out, shard, configFile, signal: session.signal, reporter, debug }));
      if (result.run.interrupted || session.signalled !== null) {
        reporter.stop();
        error(`${session.stopWord}: ${command.kept?.(result) ?? 'finished units are kept'}; resume with: ${resume()}`);
        return session.stopCode;
      }
      results.push(result);
      if (command.end !== undefined) continue;
      if (shard === null) command.report?.(group, result, reporter);
      else if (options.quiet !== true) {
        const { unitsRun, unitsSkipped, unitsFailed } = result.run;
        reporter.log(shardNote(eofd, command.name, shard, options.out, result.dir, { run: unitsRun, skipped: unitsSkipped, failed: unitsFailed }).trimEnd());
      }
    }
    reporter.stop();
    if (command.end !== undefined) return command.end({ results, shard, resume, error });
    const failed = results.reduce((n, result) => n + result.run.unitsFailed, 0);
    if (failed > 0) {
      error(`${failed} units failed (messages above); after fixing the cause, ${resume()} reruns only those`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } catch (caught) {
    reporter.stop();
    return failureExitCode(caught, io, command.name);
  } finally {
    session.close();
  }
}
