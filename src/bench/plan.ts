/**
 * The bench's grid: which (policy, d, K, m, warm-up, backend) points run, and which are skipped and why
 * (a state over the memory cap, such as OFUL-MLogB's Kd×Kd matrices at large d; any point whose
 * estimated work per round is over the compute cap, which is what keeps m = ⌊Kd/10⌋ at d = 12,800 out
 * of a default run). The estimates are the policies' own (PolicyDescriptor.cost). Every point runs once
 * per backend, with the same workload and seed.
 */
import { RunError } from '../base/errors.js';
import { ENVIRONMENT_LIMITS } from '../environments/environment.js';
import { syntheticCopyBytes } from '../environments/synthetic.js';
import { gb, machineMemory, UNIT_OVERHEAD_BYTES, type MachineMemory } from '../base/machine.js';
import { BACKENDS, wasmAvailable, type Backend } from '../linalg/simd.js';
import type { ProblemShape } from '../policies/policy.js';
import { OFUL_SOLVERS, type OfulSolver } from '../base/policy-catalogue.js';
import { isPolicyName, policyDescriptor, POLICY_NAMES, readsParam, sketchSizeOf } from '../policies/registry.js';
import { DEFAULT_DELTA_MAX } from '../policies/spec.js';
import { isSketched, type BenchPoint } from './measure.js';
import { TIMED_SECONDS } from './numpy.js';

/**
 * A sketch size: 'auto' is the paper's m = ⌊Kd/10⌋ (Section 4); 'adaptive' starts at 1 and grows
 * under the budget Δ_t ≤ 1 + `deltaMax` (params.m: adaptive), timed at the m it has reached.
 */
export type SketchChoice = number | 'auto' | 'adaptive';

/** A warm-up length: rounds, or 'auto' (a full sketch for sketched policies, 10 rounds otherwise). */
export type WarmupChoice = number | 'auto';

export interface BenchOptions {
  /** Feature dimensions d. */
  d: number[];
  /** Outcome counts K. */
  K: number[];
  /** Sketch sizes m for the sketched policies. */
  m: SketchChoice[];
  /** ε of the 'adaptive' sketch size (params.delta_max). */
  deltaMax: number;
  /** |A_t|, every round. */
  actions: number;
  /** Timed rounds per point. */
  rounds: number;
  /**
   * Untimed rounds before them, one point per value (a history length t − 1, for policies whose
   * round cost grows with t); 'auto': m + 10 for a sketched policy (a full sketch), 10 otherwise.
   */
  warmup: WarmupChoice[];
  /** Policies to measure (registered names). */
  policies: string[];
  /** params.oful_solver values, one point each for a policy that reads it (OFUL-MLogB). */
  ofulSolvers: OfulSolver[];
  /** Where the policies' kernels run (src/linalg/simd.ts), one point per backend. */
  backends: Backend[];
  /** Whether to measure the single-thread dgemm reference (dgemm.ts). */
  dgemm: boolean;
  /**
   * Whether to time the dense kernels against numpy (linalg.ts, at orders `n`) and give policy rows
   * their numpy operation-equivalents at n = Kd.
   */
  linalg: boolean;
  /** Matrix orders of --linalg. */
  n: number[];
  /** Least timed calls of each --linalg operation, eofd's and numpy's alike (numpy.ts's timing rule; the best counts). */
  repeats: number;
  /** Points whose estimated state exceeds this many MB (2^20 bytes) are skipped. */
  maxStateMb: number;
  /** Points whose estimated work per round (excluding projections) exceeds this many GFLOP are skipped. */
  maxGflop: number;
  /** Timed rounds of the projection probe of policies with a rare dense projection (0: no probe). */
  projectionRounds: number;
  /** The probe runs only where Kd ≤ this (a TypeScript eigendecomposition is O((Kd)³)). */
  maxProjectionKd: number;
  /** Seed of the workload (W*, actions, outcomes). */
  seed: number;
  /**
   * Fresh processes per point (each point measured this many times, interleaved across points and
   * backends; the row reports the process with the lowest median round).
   */
  processes: number;
  /** The fitted log-log slopes use the points with d ≥ this (smaller d is dominated by O((m+K)³) work). */
  fitFromD: number;
}

/** One bench option as `eofd bench` takes it. */
export interface BenchOptionSpec<Value> {
  /** The flag in commander's syntax, e.g. `--d <list>`. */
  flag: string;
  help: string;
  /** Parses the flag's text; throws a one-line RunError (exit 2). Absent: a switch (`--no-…` defaults to true, others to false). */
  parse?: (text: string) => Value;
  default: Value;
}

/** An integer ≥ `min`. */
function integer(min: number, max: number = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new RunError(max === Number.MAX_SAFE_INTEGER ? `expected an integer ≥ ${min}` : `expected an integer in [${min}, ${max}], got ${text.trim()}`, 2);
    }
    return n;
  };
}

function positiveNumber(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new RunError('expected a positive number', 2);
  return n;
}

/** A comma-separated list, each item parsed by `item`, repeats dropped. */
function list<Item>(item: (text: string) => Item): (text: string) => Item[] {
  return (text) => [...new Set(text.split(',').map(item))];
}

function integerList(min: number): (text: string) => number[] {
  const one = integer(min);
  return list((item) => {
    try {
      return one(item);
    } catch {
      throw new RunError(`expected a comma-separated list of integers ≥ ${min}, got "${item}"`, 2);
    }
  });
}

const sketchList = list((item): SketchChoice => {
  if (item.trim() === 'auto') return 'auto';
  if (item.trim() === 'adaptive') return 'adaptive';
  if (!/^\s*\d+\s*$/.test(item) || Number(item) < 1) throw new RunError(`expected "auto", "adaptive" or integers ≥ 1, comma-separated, got "${item}"`, 2);
  return Number(item);
});

const warmupList = list((item): WarmupChoice => {
  if (item.trim() === 'auto') return 'auto';
  if (!/^\s*\d+\s*$/.test(item)) throw new RunError(`expected "auto" or integers ≥ 0, comma-separated, got "${item}"`, 2);
  return Number(item);
});

const policyList = list((item) => {
  const name = item.trim();
  if (!isPolicyName(name)) throw new RunError(`expected policies from ${POLICY_NAMES.join(', ')}, got "${name}"`, 2);
  return name;
});

const solverList = list((item) => {
  const name = item.trim();
  if (!(OFUL_SOLVERS as readonly string[]).includes(name)) throw new RunError(`expected solvers from ${OFUL_SOLVERS.join(', ')}, comma-separated, got "${name}"`, 2);
  return name as OfulSolver;
});

function backendList(text: string): Backend[] {
  const items = text.split(',').map((item) => {
    const name = item.trim();
    if (!(BACKENDS as readonly string[]).includes(name)) throw new RunError(`expected backends from ${BACKENDS.join(', ')}, comma-separated, got "${name}"`, 2);
    return name as Backend;
  });
  const problem = unavailableBackend(items);
  if (problem !== null) throw new RunError(problem.replace(/^--backend /, ''), 2);
  return [...new Set(items)];
}

/**
 * Every bench option: its flag, help, parser and default, in the order `eofd bench --help` lists them.
 * A new option is a field of BenchOptions and an entry here (the CLI builds its options from this).
 */
export const BENCH_OPTIONS: { readonly [Key in keyof BenchOptions]: BenchOptionSpec<BenchOptions[Key]> } = {
  d: { flag: '--d <list>', help: 'feature dimensions d', parse: integerList(1), default: [100, 200, 400, 785, 1600, 3200, 12800] },
  K: { flag: '--K <list>', help: 'numbers of non-null outcomes K', parse: integerList(1), default: [1, 4] },
  m: {
    flag: '--m <list>',
    help: 'sketch sizes of the sketched policies: integers, "auto" (⌊Kd/10⌋) and/or "adaptive" (grown to keep Δ_t ≤ 1 + --delta-max; timed at the m it reaches)',
    parse: sketchList,
    default: [50, 'auto'],
  },
  deltaMax: { flag: '--delta-max <ε>', help: 'budget of --m adaptive: Δ_t = 1 + ρ_{1:t}/λ ≤ 1 + ε', parse: positiveNumber, default: DEFAULT_DELTA_MAX },
  actions: { flag: '--actions <n>', help: `actions per round (at most ${ENVIRONMENT_LIMITS.maxActions}, as a config's)`, parse: integer(1, ENVIRONMENT_LIMITS.maxActions), default: 20 },
  rounds: { flag: '--rounds <n>', help: 'timed rounds per point', parse: integer(1), default: 50 },
  warmup: {
    flag: '--warmup <list>',
    help: 'untimed rounds first, one point per value; "auto": m + 10 for a sketched policy (a full sketch), 10 otherwise',
    parse: warmupList,
    default: ['auto'],
  },
  policies: { flag: '--policy <list>', help: 'policies to measure', parse: policyList, default: [...POLICY_NAMES] },
  ofulSolvers: {
    flag: '--oful-solver <list>',
    help: `OFUL-MLogB's params.oful_solver, one point each: ${OFUL_SOLVERS.join(', ')} (textbook: the paper's O((Kd)³) round)`,
    parse: solverList,
    default: ['incremental'],
  },
  backends: { flag: '--backend <list>', help: `where the kernels run, one point per backend: ${BACKENDS.join(', ')} (comma-separated)`, parse: backendList, default: ['wasm'] },
  dgemm: { flag: '--no-dgemm', help: "skip the single-thread dgemm reference (numpy's dot, 1024×1024) and leave its columns empty", default: true },
  linalg: {
    flag: '--linalg',
    help:
      'time cholesky, spdInverse, tridiagonalize, decomposeFactored, decompose and gemm at each --n against numpy single-thread (linalg.csv), ' +
      "and give OFUL-MLogB rows numpy's operation-equivalents at n = Kd; the policies run only if --policy is given",
    default: false,
  },
  n: { flag: '--n <list>', help: 'matrix orders of --linalg', parse: integerList(1), default: [128, 256, 400, 785, 1600] },
  repeats: { flag: '--repeats <n>', help: `least timed calls of each --linalg operation, eofd's and numpy's alike (more until ${TIMED_SECONDS} s of calls; the best counts)`, parse: integer(1), default: 5 },
  maxStateMb: {
    flag: '--max-state-mb <n>',
    help: "skip points whose policy state would exceed n MB (OFUL-MLogB's Kd×Kd matrices at large d)",
    parse: positiveNumber,
    default: 2048,
  },
  maxGflop: { flag: '--max-gflop <n>', help: 'skip points whose estimated work per round exceeds n GFLOP', parse: positiveNumber, default: 2 },
  projectionRounds: {
    flag: '--projection-rounds <n>',
    help: 'timed rounds of the projection probe of policies with a dense projection (0: none)',
    parse: integer(0),
    default: 2,
  },
  maxProjectionKd: { flag: '--max-projection-kd <n>', help: 'run the projection probe only where Kd ≤ n', parse: integer(1), default: 1600 },
  fitFromD: { flag: '--fit-from <d>', help: 'fit the log-log slopes on points with d ≥ this', parse: integer(1), default: 400 },
  seed: { flag: '--seed <n>', help: 'seed of the synthetic workload', parse: integer(0), default: 1 },
  processes: {
    flag: '--processes <n>',
    help: 'measure each point in n fresh processes, in passes over the grid, and keep the one with the lowest median round',
    parse: integer(1),
    default: 1,
  },
};

/** The defaults of BENCH_OPTIONS. */
export const DEFAULT_BENCH_OPTIONS: BenchOptions = Object.fromEntries(Object.entries(BENCH_OPTIONS).map(([key, spec]) => [key, spec.default])) as unknown as BenchOptions;

/** Rounds added to m for the automatic warm-up of a sketched policy (the sketch holds m directions after m rounds). */
const SKETCH_WARMUP_EXTRA = 10;
const EXACT_WARMUP = 10;

export interface PlannedPoint {
  point: BenchPoint;
  /** Why the point is not run; null when it runs. */
  skip: string | null;
  /** Whether the projection probe runs for this point. */
  probe: boolean;
}

/**
 * m of `policy`'s choice at (d, K), capped at its sketch's dimension as the sketch caps it. 'adaptive'
 * is planned (cost caps, the automatic warm-up) as 'auto'; the m it reaches is measured.
 */
export function resolveSketchSize(policy: string, choice: SketchChoice, d: number, K: number): number {
  const m = choice === 'auto' || choice === 'adaptive' ? Math.max(1, Math.floor((K * d) / 10)) : choice;
  return sketchSizeOf(policy, m, d, K);
}

/**
 * Why `backends` cannot run here ('wasm' where this runtime has no WebAssembly SIMD), or null. `wasm`
 * is whether the runtime has it.
 */
export function unavailableBackend(backends: readonly Backend[], wasm: boolean = wasmAvailable()): string | null {
  for (const choice of backends) {
    if (!BACKENDS.includes(choice)) return `--backend: expected ${BACKENDS.join(', ')}, got "${String(choice)}"`;
  }
  if (backends.includes('wasm') && !wasm) return '--backend wasm: this runtime lacks WebAssembly SIMD and shared memory (use --backend js)';
  return null;
}

/** Every point of the grid in a fixed order (K, then d, then policy, then m, then warm-up, then solver, then backend), with skips decided. */
export function planPoints(options: BenchOptions): PlannedPoint[] {
  const planned: PlannedPoint[] = [];
  for (const K of options.K) {
    for (const d of options.d) {
      for (const policy of options.policies) {
        const { supports } = policyDescriptor(policy);
        if (!(K === 1 ? supports.binary : supports.multinomial)) continue;
        const sketched = isSketched(policy);
        const solvers = readsParam(policy, 'oful_solver') ? options.ofulSolvers : ['incremental' as const];
        const choices: { m: number; request: SketchChoice | 'exact' }[] = [];
        if (!sketched) choices.push({ m: K * d, request: 'exact' });
        else for (const choice of options.m) choices.push({ m: resolveSketchSize(policy, choice, d, K), request: choice });
        for (const { m, request } of choices) {
          for (const choice of options.warmup) {
            const warmup = choice !== 'auto' ? choice : sketched ? m + SKETCH_WARMUP_EXTRA : EXACT_WARMUP;
            for (const solver of solvers) {
              for (const backend of options.backends) {
                const point: BenchPoint = {
                  policy,
                  backend,
                  d,
                  K,
                  sketchSize: m,
                  sketchRequest: request,
                  ...(request === 'adaptive' ? { deltaMax: options.deltaMax } : {}),
                  ...(solver === 'textbook' ? { ofulSolver: solver } : {}),
                  actions: options.actions,
                  warmup,
                  warmupRequest: choice,
                  rounds: options.rounds,
                  seed: options.seed,
                };
                planned.push({ point, skip: skipReason(point, options), probe: probes(point, options) });
              }
            }
          }
        }
      }
    }
  }
  return planned;
}

/**
 * Why the grid's workload cannot be held, or null: the sizing rule of runs (experiment/sizing.ts), one
 * synthetic problem of --actions actions at the largest d and K, and a process's overhead, against what
 * the machine can give. Checked before any point runs.
 */
export function workloadProblem(options: Pick<BenchOptions, 'actions' | 'd' | 'K'>, machine: MachineMemory = machineMemory()): string | null {
  if (options.d.length === 0 || options.K.length === 0) return null;
  const d = Math.max(...options.d);
  const K = Math.max(...options.K);
  const bytes = syntheticCopyBytes(d, K, options.actions) + UNIT_OVERHEAD_BYTES;
  if (bytes <= machine.bytes) return null;
  return (
    `--actions ${options.actions}: a point at d = ${d}, K = ${K} needs about ${gb(bytes)} (its workload's ${options.actions} actions × d doubles a round, and the process), ` +
    `more than the ${gb(machine.bytes)} of ${machine.source}; use fewer --actions or a smaller --d`
  );
}

/** The problem a point's policy sees at round t (by default its last timed round), for its cost estimates. */
export function pointShape(point: BenchPoint, t: number = point.warmup + point.rounds): ProblemShape {
  return { d: point.d, K: point.K, m: point.sketchSize, actions: point.actions, t, ...(point.ofulSolver === undefined ? {} : { options: { oful_solver: point.ofulSolver } }) };
}

/**
 * The policy's own estimate of a timed round's floating-point operations (PolicyDescriptor.cost.flops),
 * at the middle timed round: the round whose time the median stands for when cost grows with t.
 */
export function nominalRoundFlops(point: BenchPoint): number {
  return policyDescriptor(point.policy).cost.flops(pointShape(point, point.warmup + Math.ceil(point.rounds / 2)));
}

function skipReason(point: BenchPoint, options: BenchOptions): string | null {
  const { cost } = policyDescriptor(point.policy);
  const shape = pointShape(point);
  const mb = cost.bytes(shape) / 2 ** 20;
  if (mb > options.maxStateMb) return `skipped: state ≈ ${Math.round(mb)} MB > --max-state-mb ${options.maxStateMb}`;
  const gflop = cost.flops(shape) / 1e9;
  if (gflop > options.maxGflop) return `skipped: ≈ ${gflop.toPrecision(3)} GFLOP per round > --max-gflop ${options.maxGflop}`;
  return null;
}

function probes(point: BenchPoint, options: BenchOptions): boolean {
  return policyDescriptor(point.policy).cost.probeProjection && options.projectionRounds > 0 && point.K * point.d <= options.maxProjectionKd;
}
