/**
 * The bench's grid: which (policy, d, K, m) points run, with what warm-up, and which are skipped and
 * why (OFUL-MLogB's Kd×Kd state over the memory cap; any point whose estimated work per round is over
 * the compute cap, which is what keeps m = ⌊Kd/10⌋ at d = 12,800 out of a default run).
 */
import { BENCH_POLICIES, type BenchPoint, type BenchPolicy } from './measure.js';

/** A sketch size: 'auto' is the paper's m = ⌊Kd/10⌋ (Section 4). */
export type SketchChoice = number | 'auto';

export interface BenchOptions {
  /** Feature dimensions d. */
  d: number[];
  /** Outcome counts K. */
  K: number[];
  /** Sketch sizes m for EOFD-MLogB. */
  m: SketchChoice[];
  /** |A_t|, every round. */
  actions: number;
  /** Timed rounds per point. */
  rounds: number;
  /** Untimed rounds before them; 'auto': m + 10 for EOFD-MLogB (a full sketch), 10 for OFUL-MLogB. */
  warmup: number | 'auto';
  /** Policies to measure. */
  policies: BenchPolicy[];
  /** OFUL-MLogB points whose estimated state exceeds this many MB (2^20 bytes) are skipped. */
  maxOfulMb: number;
  /** Points whose estimated work per round (excluding projections) exceeds this many GFLOP are skipped. */
  maxGflop: number;
  /** Timed rounds of OFUL-MLogB's projection probe (0: no probe). */
  projectionRounds: number;
  /** The probe runs only where Kd ≤ this (a TypeScript eigendecomposition is O((Kd)³)). */
  maxProjectionKd: number;
  /** Seed of the workload (W*, actions, outcomes). */
  seed: number;
  /** The fitted log-log slopes use the points with d ≥ this (smaller d is dominated by O((m+K)³) work). */
  fitFromD: number;
}

export const DEFAULT_BENCH_OPTIONS: BenchOptions = {
  d: [100, 200, 400, 785, 1600, 3200, 12800],
  K: [1, 4],
  m: [50, 'auto'],
  actions: 20,
  rounds: 50,
  warmup: 'auto',
  policies: [...BENCH_POLICIES],
  maxOfulMb: 2048,
  maxGflop: 2,
  projectionRounds: 2,
  maxProjectionKd: 1600,
  seed: 1,
  fitFromD: 400,
};

/** Rounds added to m for the automatic warm-up of EOFD-MLogB (the sketch holds m directions after m rounds). */
const EOFD_WARMUP_EXTRA = 10;
const OFUL_WARMUP = 10;

export interface PlannedPoint {
  point: BenchPoint;
  /** Why the point is not run; null when it runs. */
  skip: string | null;
  /** Whether OFUL-MLogB's projection probe runs for this point. */
  probe: boolean;
}

/** m of a choice at (d, K), capped at Kd like the sketch caps it. */
export function resolveSketchSize(choice: SketchChoice, d: number, K: number): number {
  const m = choice === 'auto' ? Math.max(1, Math.floor((K * d) / 10)) : choice;
  return Math.min(m, K * d);
}

/**
 * Bytes OFUL-MLogB allocates at Kd = n: H, H⁻¹ and the refresh workspace, then at its first projection
 * the matrix H̃, the eigensolver's work array and its factored eigenvectors (≈ 2n²): seven n×n
 * arrays in all, plus the scoring scratch.
 */
export function ofulStateBytes(n: number, K: number, actions: number): number {
  return 8 * (7 * n * n + actions * K * n + 16 * n);
}

/** Estimated floating-point operations of one round (projection rounds excepted). */
export function estimatedFlops(policy: BenchPolicy, d: number, K: number, m: number, actions: number): number {
  const n = K * d;
  if (policy === 'OFUL-MLogB') return 2 * actions * K * n * d + 8 * n * n;
  // Scoring P(x) for every action, the new basis, and two (m+K)×(m+K) eigendecompositions.
  return 2 * actions * n * m + 2 * n * m * (m + K) + 2 * 10 * (m + K) ** 3;
}

/** Every point of the grid in a fixed order (K, then d, then policy, then m), with skips decided. */
export function planPoints(options: BenchOptions): PlannedPoint[] {
  const planned: PlannedPoint[] = [];
  for (const K of options.K) {
    for (const d of options.d) {
      for (const policy of BENCH_POLICIES) {
        if (!options.policies.includes(policy)) continue;
        const choices: { m: number; request: number | 'auto' | 'exact' }[] = [];
        if (policy === 'OFUL-MLogB') choices.push({ m: K * d, request: 'exact' });
        else for (const choice of options.m) choices.push({ m: resolveSketchSize(choice, d, K), request: choice });
        for (const { m, request } of choices) {
          const warmup =
            options.warmup !== 'auto' ? options.warmup : policy === 'EOFD-MLogB' ? m + EOFD_WARMUP_EXTRA : OFUL_WARMUP;
          const point: BenchPoint = {
            policy,
            d,
            K,
            sketchSize: m,
            sketchRequest: request,
            actions: options.actions,
            warmup,
            rounds: options.rounds,
            seed: options.seed,
          };
          planned.push({ point, skip: skipReason(point, options), probe: probes(point, options) });
        }
      }
    }
  }
  return planned;
}

function skipReason(point: BenchPoint, options: BenchOptions): string | null {
  const { policy, d, K, sketchSize: m, actions } = point;
  if (policy === 'OFUL-MLogB') {
    const mb = ofulStateBytes(K * d, K, actions) / 2 ** 20;
    if (mb > options.maxOfulMb) {
      return `skipped: Kd×Kd state ≈ ${Math.round(mb)} MB > --max-oful-mb ${options.maxOfulMb}`;
    }
  }
  const gflop = estimatedFlops(policy, d, K, m, actions) / 1e9;
  if (gflop > options.maxGflop) {
    return `skipped: ≈ ${gflop.toPrecision(3)} GFLOP per round > --max-gflop ${options.maxGflop}`;
  }
  return null;
}

function probes(point: BenchPoint, options: BenchOptions): boolean {
  return point.policy === 'OFUL-MLogB' && options.projectionRounds > 0 && point.K * point.d <= options.maxProjectionKd;
}
