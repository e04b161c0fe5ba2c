/**
 * `eofd bench [--d list] [--K list] [--m auto|list] [--actions n] [--rounds n] [--warmup auto|list] [--policy list] [--backend js,wasm] [--no-dgemm] [--linalg [--n list] [--repeats n]] [--out dir] …`:
 * argv and exit codes only; the work is in src/bench/. Exit codes: 0 done; 2 bad usage; 1 anything
 * else (an unwritable --out, a point that failed).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { BENCH_OPTIONS, runBench, type BenchOptions, type BenchOptionSpec } from '../../bench/index.js';
import { failureExitCode, processIo, type CliIo } from '../io.js';

const EXAMPLE = 'eofd bench --d 400,1600,12800 --K 1 --m 50 --rounds 30 --out results/bench';
const LINALG_EXAMPLE = 'eofd bench --linalg --n 128,400,785,1600';
const TARGETS_EXAMPLE =
  'eofd bench --linalg --n 400,785,1600 --d 400,785,1600 --K 1 --m auto --policy OFUL-MLogB,EOFD-MLogB --oful-solver incremental,textbook --projection-rounds 2 --rounds 10 --max-gflop 10';
const DEFAULT_OUT = 'results/bench';

/** The bench's options and the folder it writes to. */
export interface BenchCommandOptions extends BenchOptions {
  out: string;
}

/** A usage error: exit code 2 (commander's own default would be 1). */
function usage(message: string): InvalidArgumentError {
  const err = new InvalidArgumentError(message);
  err.exitCode = 2;
  return err;
}

/** The commander option of a bench option: its parser's errors are usage errors; lists show their default comma-separated. */
function commanderOption(spec: BenchOptionSpec<unknown>): Option {
  const option = new Option(spec.flag, spec.help);
  // A `--no-…` switch: commander defaults it to true (and shows no default).
  if (spec.parse === undefined) return option;
  const parse = spec.parse;
  option.argParser((text: string) => {
    try {
      return parse(text);
    } catch (err) {
      throw usage((err as Error).message);
    }
  });
  return Array.isArray(spec.default) ? option.default(spec.default, spec.default.join(',')) : option.default(spec.default);
}

/** The options of a parsed `eofd bench` command, keyed as BenchOptions. */
export function benchCommandOptions(command: Command): BenchCommandOptions {
  const parsed = command.opts<Record<string, unknown>>();
  const options: Record<string, unknown> = { out: parsed.out };
  for (const [key, spec] of Object.entries(BENCH_OPTIONS)) options[key] = parsed[new Option(spec.flag).attributeName()] ?? spec.default;
  // --linalg alone times the kernels only; the policy grid runs when --policy names policies.
  if (options.linalg === true && command.getOptionValueSource(new Option(BENCH_OPTIONS.policies.flag).attributeName()) !== 'cli') options.policies = [];
  return options as unknown as BenchCommandOptions;
}

/** Runs the bench; returns the exit code. Errors are one line on stderr, never a stack trace. */
export async function runBenchCommand(options: BenchCommandOptions, io: CliIo): Promise<number> {
  const { out, ...benchOptions } = options;
  try {
    const result = await runBench(benchOptions, out, io);
    if (result.failures > 0) {
      io.stderr.write(`eofd bench: ${result.failures} point(s) failed (see the note column)\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    return failureExitCode(err, io, 'bench');
  }
}

export function registerBench(program: Command, io: CliIo = processIo()): void {
  const bench = program
    .command('bench')
    .summary('per-round time, memory and log-log slopes of every policy against d, K, m and t')
    .description(
      `Example: ${EXAMPLE}\n\n` +
        'Drives each policy directly on a synthetic problem (unit-sphere actions, a hidden W* with ‖W*‖ = S = 1, ' +
        'Section 4 hyperparameters, β "theory") and times select and update apart after a warm-up: median and p90 ' +
        'per point, the update in rounds that take a dense projection (eq. (9); a probe with a tiny S makes every ' +
        'update project), state bytes and peak RSS (each point in a fresh child process; with --processes n, in n of them, ' +
        'in passes over the grid, keeping the fastest: for machines whose speed differs between processes). Policies that do not ' +
        'play a K are left out at that K; several --warmup values time rounds after that much history (for ' +
        'policies whose cost grows with t). Writes ' +
        'bench.csv and bench.svg (log-log time against d with fitted slopes) to --out and a table to stderr. ' +
        'Each point runs once per --backend (wasm: the kernels as WebAssembly SIMD; js: TypeScript) on the same ' +
        'workload and seed; the backends compute the same bits, so their rows carry the same decisions digest. ' +
        "Throughput (gflop_per_s) is the policy's nominal flops per round over the median round; it is compared " +
        "with this machine's single-thread dgemm rate, measured in the same run by numpy (python3) on two " +
        '1024×1024 matrices with one BLAS thread (--no-dgemm skips it). ' +
        'With --linalg, the dense kernels (cholesky, spdInverse, SymmetricEigen.tridiagonalize, decomposeFactored and ' +
        'decompose, gemmNNUpdate) are timed at each --n beside numpy single-thread on the same SPD matrices (scipy ' +
        "dpotrf, dpotrf + dpotri, dsytrd; numpy eigvalsh, eigh, dot), best of at least --repeats calls, as ratios eofd ÷ numpy " +
        "(linalg.csv, linalg.svg and a table); OFUL-MLogB rows then also get numpy's operation-equivalents at n = Kd: the textbook " +
        "round against eigvalsh + dpotrf + dpotri, the projection against eigh, numpy timed right after each process's " +
        "measurement of the point so that the machine's drift falls on both: the geometric mean of the per-process ratios " +
        "with its 95% interval (bench.csv's numpy columns and a table). " +
        'Without python3, numpy or scipy, the numpy columns are empty and the reason is printed. ' +
        'A benchmark is not a test: nothing here asserts a time.',
    );
  for (const [key, spec] of Object.entries(BENCH_OPTIONS)) {
    bench.addOption(commanderOption(spec));
    // --out is the command's, not the bench's; the help lists it after --no-dgemm.
    if (key === 'dgemm') bench.addOption(new Option('--out <dir>', 'folder for bench.csv and bench.svg (and linalg.csv, linalg.svg)').default(DEFAULT_OUT));
  }
  bench
    .addHelpText(
      'after',
      `\nExamples:\n  $ ${EXAMPLE}\n  $ eofd bench --d 100000 --K 1 --m 50 --policy EOFD-MLogB --rounds 20\n  $ eofd bench --d 100 --K 4 --policy MNL-UCB --warmup 100,1000,3000   # per-round time against t\n  $ eofd bench --d 785 --K 1 --m auto --policy EOFD-MLogB --backend js,wasm   # TypeScript vs WebAssembly kernels\n  $ eofd bench --d 785 --K 1 --m 78 --policy EOFD-MLogB --backend js,wasm --processes 5   # best of 5 processes each\n  $ node --trace-gc bin/eofd.js bench --d 785 --K 1 --m auto   # GC lines vs the timed-round markers\n  $ ${LINALG_EXAMPLE}   # the dense kernels against numpy single-thread\n  $ ${TARGETS_EXAMPLE}\n      # OFUL-MLogB's textbook round and projection against numpy's same operations at n = Kd, EOFD-MLogB against dgemm\n\n` +
        'Exit codes: 0 done, 2 bad usage, 1 other errors (an unwritable --out, a point that failed).',
    )
    .exitOverride((err) => {
      // Usage errors exit with 2; help and version keep their 0.
      throw err.exitCode === 0 ? err : new CommanderError(2, err.code, err.message);
    })
    .action(async () => {
      process.exitCode = await runBenchCommand(benchCommandOptions(bench), io);
    });
}
