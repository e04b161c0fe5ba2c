/**
 * The command loop shared by `eofd grid` and `eofd sweep`: for every experiment of the config, one
 * multi-point run into its own folder. It owns what both need around that run: progress, signals,
 * the shard, --timing, the resume hint, the shard note and the exit code.
 */
import type { ExperimentConfig } from '../config/schema.js';
import type { RunOptions, RunResult } from '../experiment/runner.js';
import { shardFolder } from '../results/layout.js';
import { hinter } from './hint.js';
import { EXIT, failureExitCode, firstLine, type CliIo } from './io.js';
import { loadCommandConfigs, resumeCommand, runOptionsFor, shardNote, timingCheck, type ExperimentCommandOptions } from './options.js';
import { createProgress, progressMode, type ProgressReporter } from './progress.js';
import { Session } from './session.js';
import { resolveShard, withExplicitShard, type ResolvedShard } from './shard.js';

export interface PerExperimentOptions extends ExperimentCommandOptions {
  timing?: boolean;
}

export interface PerExperimentCommand<Result extends { run: RunResult; dir: string }> {
  /** `grid`, `sweep`. */
  name: string;
  /** The command's own words for the resume hint (e.g. `--l 0,1`). */
  resumeWords: readonly string[];
  /** Checks the command's own arguments before any work (throws a one-line error). */
  prepare?(): void;
  /** Runs one experiment's points with the shared run options. */
  run(config: ExperimentConfig, runOptions: Omit<RunOptions, 'split'>): Promise<Result>;
  /** Prints what one (unsharded) experiment gave, or that it is incomplete. */
  report(config: ExperimentConfig, result: Result, reporter: ProgressReporter): void;
}

export async function perExperimentCommand<Result extends { run: RunResult; dir: string }>(
  configFiles: readonly string[],
  options: PerExperimentOptions,
  io: CliIo,
  command: PerExperimentCommand<Result>,
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
    const configs = loadCommandConfigs(configFiles, options);
    const configFile = configFiles.length === 1 ? configFiles[0] : undefined;
    if (options.timing === true) timingCheck(options, (line) => reporter.log(line));
    let failed = 0;
    for (const config of configs) {
      const debug = io.env.EOFD_DEBUG === '1';
      const result = await command.run(config, runOptionsFor(options, { out, shard, configFile, signal: session.signal, reporter, debug }));
      if (result.run.interrupted || session.signalled !== null) {
        reporter.stop();
        error(`${session.stopWord}: finished units are kept; resume with: ${resume()}`);
        return session.stopCode;
      }
      failed += result.run.unitsFailed;
      if (shard !== null) {
        if (options.quiet !== true) {
          const { unitsRun, unitsSkipped, unitsFailed } = result.run;
          reporter.log(shardNote(eofd, command.name, shard, options.out, result.dir, { run: unitsRun, skipped: unitsSkipped, failed: unitsFailed }).trimEnd());
        }
        continue;
      }
      command.report(config, result, reporter);
    }
    reporter.stop();
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
