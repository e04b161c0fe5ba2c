/**
 * `eofd bench [--d list] [--K list] [--m auto|list] [--actions n] [--rounds n] [--warmup auto|list] [--policy list] [--backend js,wasm] [--no-dgemm] [--out dir] …`:
 * argv and exit codes only; the work is in src/bench/. Exit codes: 0 done; 2 bad usage; 1 anything
 * else (an unwritable --out, a point that failed).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_BENCH_OPTIONS, runBench, unavailableBackend, type BenchOptions, type SketchChoice, type WarmupChoice } from '../../bench/index.js';
import { BACKENDS, type Backend } from '../../linalg/simd.js';
import { isPolicyName, POLICY_NAMES } from '../../policies/registry.js';
import { OFUL_SOLVERS, type OfulSolver } from '../../policies/spec.js';
import { failureExitCode, processIo, type CliIo } from '../io.js';

const EXAMPLE = 'eofd bench --d 400,1600,12800 --K 1 --m 50 --rounds 30 --out results/bench';
const DEFAULT_OUT = 'results/bench';

/** Options as commander hands them over (parsed and validated by the parsers below). */
export interface BenchCommandOptions {
  d: number[];
  K: number[];
  m: SketchChoice[];
  deltaMax: number;
  actions: number;
  rounds: number;
  warmup: WarmupChoice[];
  policy: string[];
  ofulSolver: OfulSolver[];
  backend: Backend[];
  dgemm: boolean;
  out: string;
  maxStateMb: number;
  maxGflop: number;
  projectionRounds: number;
  maxProjectionKd: number;
  fitFrom: number;
  seed: number;
  processes: number;
}

/** A usage error: exit code 2 (commander's own default would be 1). */
function usage(message: string): InvalidArgumentError {
  const err = new InvalidArgumentError(message);
  err.exitCode = 2;
  return err;
}

function integer(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min) throw usage(`expected an integer ≥ ${min}`);
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw usage('expected a positive number');
  return n;
}

function integerList(min: number): (value: string) => number[] {
  const one = integer(min);
  return (value) => {
    const items = value.split(',').map((item) => {
      try {
        return one(item);
      } catch {
        throw usage(`expected a comma-separated list of integers ≥ ${min}, got "${item}"`);
      }
    });
    return [...new Set(items)];
  };
}

function sketchList(value: string): SketchChoice[] {
  const items = value.split(',').map((item): SketchChoice => {
    if (item.trim() === 'auto') return 'auto';
    if (item.trim() === 'adaptive') return 'adaptive';
    if (!/^\s*\d+\s*$/.test(item) || Number(item) < 1) throw usage(`expected "auto", "adaptive" or integers ≥ 1, comma-separated, got "${item}"`);
    return Number(item);
  });
  return [...new Set(items)];
}

function warmupList(value: string): WarmupChoice[] {
  const items = value.split(',').map((item): WarmupChoice => {
    if (item.trim() === 'auto') return 'auto';
    if (!/^\s*\d+\s*$/.test(item)) throw usage(`expected "auto" or integers ≥ 0, comma-separated, got "${item}"`);
    return Number(item);
  });
  return [...new Set(items)];
}

function policyList(value: string): string[] {
  const items = value.split(',').map((item) => {
    const name = item.trim();
    if (!isPolicyName(name)) throw usage(`expected policies from ${POLICY_NAMES.join(', ')}, got "${name}"`);
    return name;
  });
  return [...new Set(items)];
}

function solverList(value: string): OfulSolver[] {
  const items = value.split(',').map((item) => {
    const name = item.trim();
    if (!(OFUL_SOLVERS as readonly string[]).includes(name)) throw usage(`expected solvers from ${OFUL_SOLVERS.join(', ')}, comma-separated, got "${name}"`);
    return name as OfulSolver;
  });
  return [...new Set(items)];
}

function backendList(value: string): Backend[] {
  const items = value.split(',').map((item) => {
    const name = item.trim();
    if (!(BACKENDS as readonly string[]).includes(name)) throw usage(`expected backends from ${BACKENDS.join(', ')}, comma-separated, got "${name}"`);
    return name as Backend;
  });
  const problem = unavailableBackend(items);
  if (problem !== null) throw usage(problem.replace(/^--backend /, ''));
  return [...new Set(items)];
}

/** Runs the bench; returns the exit code. Errors are one line on stderr, never a stack trace. */
export async function runBenchCommand(options: BenchCommandOptions, io: CliIo): Promise<number> {
  const benchOptions: BenchOptions = {
    d: options.d,
    K: options.K,
    m: options.m,
    deltaMax: options.deltaMax,
    actions: options.actions,
    rounds: options.rounds,
    warmup: options.warmup,
    policies: options.policy,
    ofulSolvers: options.ofulSolver,
    backends: options.backend,
    dgemm: options.dgemm,
    maxStateMb: options.maxStateMb,
    maxGflop: options.maxGflop,
    projectionRounds: options.projectionRounds,
    maxProjectionKd: options.maxProjectionKd,
    seed: options.seed,
    processes: options.processes,
    fitFromD: options.fitFrom,
  };
  try {
    const result = await runBench(benchOptions, options.out, io);
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
  const defaults = DEFAULT_BENCH_OPTIONS;
  const list = (xs: readonly (number | string)[]) => xs.join(',');
  program
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
        'A benchmark is not a test: nothing here asserts a time.',
    )
    .addOption(new Option('--d <list>', 'feature dimensions d').argParser(integerList(1)).default(defaults.d, list(defaults.d)))
    .addOption(new Option('--K <list>', 'numbers of non-null outcomes K').argParser(integerList(1)).default(defaults.K, list(defaults.K)))
    .addOption(
      new Option('--m <list>', 'sketch sizes of the sketched policies: integers, "auto" (⌊Kd/10⌋) and/or "adaptive" (grown to keep Δ_t ≤ 1 + --delta-max; timed at the m it reaches)')
        .argParser(sketchList)
        .default(defaults.m, list(defaults.m)),
    )
    .addOption(
      new Option('--delta-max <ε>', 'budget of --m adaptive: Δ_t = 1 + ρ_{1:t}/λ ≤ 1 + ε').argParser(positiveNumber).default(defaults.deltaMax),
    )
    .addOption(new Option('--actions <n>', 'actions per round').argParser(integer(1)).default(defaults.actions))
    .addOption(new Option('--rounds <n>', 'timed rounds per point').argParser(integer(1)).default(defaults.rounds))
    .addOption(
      new Option('--warmup <list>', 'untimed rounds first, one point per value; "auto": m + 10 for a sketched policy (a full sketch), 10 otherwise')
        .argParser(warmupList)
        .default(defaults.warmup, list(defaults.warmup)),
    )
    .addOption(new Option('--policy <list>', 'policies to measure').argParser(policyList).default(defaults.policies, list(defaults.policies)))
    .addOption(
      new Option('--oful-solver <list>', `OFUL-MLogB's params.oful_solver, one point each: ${OFUL_SOLVERS.join(', ')} (textbook: the paper's O((Kd)³) round)`)
        .argParser(solverList)
        .default(defaults.ofulSolvers, list(defaults.ofulSolvers)),
    )
    .addOption(
      new Option('--backend <list>', `where the kernels run, one point per backend: ${BACKENDS.join(', ')} (comma-separated)`)
        .argParser(backendList)
        .default(defaults.backends, list(defaults.backends)),
    )
    .addOption(new Option('--no-dgemm', "skip the single-thread dgemm reference (numpy's dot, 1024×1024) and leave its columns empty"))
    .addOption(new Option('--out <dir>', 'folder for bench.csv and bench.svg').default(DEFAULT_OUT))
    .addOption(
      new Option('--max-state-mb <n>', "skip points whose policy state would exceed n MB (OFUL-MLogB's Kd×Kd matrices at large d)").argParser(positiveNumber).default(defaults.maxStateMb),
    )
    .addOption(
      new Option('--max-gflop <n>', 'skip points whose estimated work per round exceeds n GFLOP').argParser(positiveNumber).default(defaults.maxGflop),
    )
    .addOption(
      new Option('--projection-rounds <n>', 'timed rounds of the projection probe of policies with a dense projection (0: none)').argParser(integer(0)).default(defaults.projectionRounds),
    )
    .addOption(
      new Option('--max-projection-kd <n>', 'run the projection probe only where Kd ≤ n').argParser(integer(1)).default(defaults.maxProjectionKd),
    )
    .addOption(new Option('--fit-from <d>', 'fit the log-log slopes on points with d ≥ this').argParser(integer(1)).default(defaults.fitFromD))
    .addOption(new Option('--seed <n>', 'seed of the synthetic workload').argParser(integer(0)).default(defaults.seed))
    .addOption(
      new Option('--processes <n>', 'measure each point in n fresh processes, in passes over the grid, and keep the one with the lowest median round')
        .argParser(integer(1))
        .default(defaults.processes),
    )
    .addHelpText(
      'after',
      `\nExamples:\n  $ ${EXAMPLE}\n  $ eofd bench --d 100000 --K 1 --m 50 --policy EOFD-MLogB --rounds 20\n  $ eofd bench --d 100 --K 4 --policy MNL-UCB --warmup 100,1000,3000   # per-round time against t\n  $ eofd bench --d 785 --K 1 --m auto --policy EOFD-MLogB --backend js,wasm   # TypeScript vs WebAssembly kernels\n  $ eofd bench --d 785 --K 1 --m 78 --policy EOFD-MLogB --backend js,wasm --processes 5   # best of 5 processes each\n  $ node --trace-gc bin/eofd.js bench --d 785 --K 1 --m auto   # GC lines vs the timed-round markers\n\n` +
        'Exit codes: 0 done, 2 bad usage, 1 other errors (an unwritable --out, a point that failed).',
    )
    .exitOverride((err) => {
      // Usage errors exit with 2; help and version keep their 0.
      throw err.exitCode === 0 ? err : new CommanderError(2, err.code, err.message);
    })
    .action(async (options: BenchCommandOptions) => {
      process.exitCode = await runBenchCommand(options, io);
    });
}
