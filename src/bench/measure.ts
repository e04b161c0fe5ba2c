/**
 * One benchmark point: a fresh policy driven directly (no runner) on a synthetic problem like DESIGN §3
 * (`BenchWorkload`: ‖W*‖_F = S = 1, a fixed number of unit-sphere actions per round), hyperparameters
 * from Section 4 (`policySpec`), β in 'theory' mode (eq. (36): the costlier mode, its
 * running sum needs ‖ΔW‖_Z every round). `warmup` untimed rounds, then `rounds` timed ones with
 * `process.hrtime.bigint()` around select and update separately.
 *
 * OFUL-MLogB's projection (eq. (9), a full Kd×Kd eigendecomposition) is rare in a short run, so it is
 * also measured by a probe: a fresh policy with a norm bound S so small that every update projects (its
 * state is then early, H̃ = λI + a few rank-one terms; the eigensolver's cost hardly depends on that).
 *
 * Before the point's warm-up, the same policy plays a few hundred rounds of a small problem so that
 * the timed rounds run optimised code (`warmJit`). The loop itself allocates about 200 bytes a round
 * (hrtime's BigInts, one subarray view; the workload, the played copy and the timing arrays exist
 * before it starts), so garbage collections during the timed rounds, counted through a
 * PerformanceObserver, are the policy's own doing.
 *
 * Every policy of a point (the JIT warm-up's, the measured one, the probe's) is constructed under the
 * point's backend (`withBackend`): its workspaces, and so its kernels, are WebAssembly or TypeScript.
 * The backends compute the same bits, so a point's `decisions` digest (its chosen actions and final
 * estimate) is the same under both; run.ts warns where it is not.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { withBackend, type Backend } from '../linalg/simd.js';
import type { Policy } from '../policies/policy.js';
import { createPolicy, policyDescriptor, readsParam } from '../policies/registry.js';
import type { OfulSolver } from '../base/policy-catalogue.js';
import { ADAPTIVE_INITIAL_SKETCH_SIZE, policySpec, type PolicySpec } from '../policies/spec.js';
import { mulberry32 } from '../random/stream.js';
import { BenchWorkload } from './workload.js';

export interface BenchPoint {
  /** A registered policy (policies/registry.ts). */
  policy: string;
  /** Where its kernels run: 'wasm' (WebAssembly SIMD128) or 'js' (TypeScript). */
  backend: Backend;
  /** d */
  d: number;
  /** K */
  K: number;
  /**
   * m (a sketched policy's, capped at its dimension; an exact policy keeps Kd, reported as such). For
   * an adaptive m, the planning estimate (⌊Kd/10⌋); the m reached is `PointMeasurement.sketchSize`.
   */
  sketchSize: number;
  /** The m asked for: a number, 'auto' (⌊Kd/10⌋), 'adaptive', or 'exact' for a policy without a sketch. */
  sketchRequest: number | 'auto' | 'adaptive' | 'exact';
  /** ε of an adaptive m (Δ_t ≤ 1 + ε); present only with sketchRequest 'adaptive'. */
  deltaMax?: number;
  /** params.oful_solver of a policy that reads it; present only when 'textbook'. */
  ofulSolver?: OfulSolver;
  /** |A_t|, every round. */
  actions: number;
  /** Untimed rounds before the timed ones (the history a round's cost may grow with). */
  warmup: number;
  /** The warm-up asked for: a number of rounds, or 'auto' (m + 10 for a sketched policy, 10 otherwise). */
  warmupRequest: number | 'auto';
  /** Timed rounds. */
  rounds: number;
  /** Seed of the workload's stream (W*, actions, outcomes). */
  seed: number;
}

/** Median and 90th percentile of a sample, ms (NaN for an empty sample). */
export interface Quantiles {
  median: number;
  p90: number;
}

export interface PointMeasurement {
  select: Quantiles;
  update: Quantiles;
  /** select + update of the same round. */
  round: Quantiles;
  /** Timed rounds in which the projection of eq. (9) was taken, and their update times. */
  projectionRounds: number;
  projectionUpdate: Quantiles;
  /** select + update of the timed rounds without a projection. */
  plainRound: Quantiles;
  /** The projection probe's update times (every update projects), or null without a probe. */
  probeUpdate: Quantiles | null;
  /** policy.stats().stateBytes after the last round. */
  stateBytes: number;
  /** m_t of a sketched policy when the timed rounds start and after they end (an adaptive m: the size reached); null otherwise. */
  sketchSizeStart: number | null;
  sketchSize: number | null;
  /** Garbage collections that started during the timed rounds. */
  gcDuringTimed: number;
  /** Wall time of the whole point (warm-up and probe included), s. */
  wallSeconds: number;
  /**
   * SHA-256 (first 16 hex digits) of the actions chosen in every round (warm-up and timed) and of the
   * final estimate's bits: equal across backends when their kernels compute the same bits.
   */
  decisions: string;
}

export interface MeasureOptions {
  /** Timed rounds of the projection probe (0: none). */
  probeRounds: number;
  /** Writes a line to stderr where the timed rounds start and end (for reading `--trace-gc` output). */
  markTimedRounds?: boolean;
}

/**
 * The norm bound S of the projection probe: small enough that every update leaves the ball, so every
 * probe round takes the projection of eq. (9) (its cost hardly depends on the data).
 */
const PROBE_NORM_BOUND = 1e-6;

/** The policy spec of a point: S = D = 1, T = warm-up + timed rounds, β 'theory' (DESIGN §2). */
export function benchSpec(point: BenchPoint): PolicySpec {
  return policySpec({
    d: point.d,
    K: point.K,
    reward: [0, ...benchReward(point.K)],
    normBound: 1,
    maxActionNorm: 1,
    horizon: point.warmup + point.rounds,
    sketchSize: point.deltaMax === undefined ? point.sketchSize : ADAPTIVE_INITIAL_SKETCH_SIZE,
    ...(point.deltaMax === undefined ? {} : { adaptiveSketch: { deltaMax: point.deltaMax } }),
    beta: 'theory',
    ...(point.ofulSolver === undefined ? {} : { options: { oful_solver: point.ofulSolver } }),
    // A policy that draws (Random, Thompson sampling) gets its own stream, seeded from the point's.
    uniform: policyDescriptor(point.policy).needsRandomStream ? mulberry32(point.seed + POLICY_STREAM_OFFSET) : undefined,
  });
}

/** Offset of a drawing policy's seed from the workload's, so that the two streams differ. */
const POLICY_STREAM_OFFSET = 0x5bd1e995;

/** r_k = k/K (K = 4: the paper's [0.25, 0.5, 0.75, 1]; K = 1: [1]). */
export function benchReward(K: number): Float64Array {
  return Float64Array.from({ length: K }, (_, k) => (k + 1) / K);
}

/** Median and p90 by linear interpolation between order statistics (R's type 7). */
export function quantiles(values: ArrayLike<number>): Quantiles {
  const sorted = Float64Array.from(values).sort();
  return { median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
}

function quantile(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * A policy whose projections the loop can count without allocating (`stats()` builds an object):
 * policies with a projection expose `projectionsTaken`; for the others it reads as 0.
 */
interface MeasuredPolicy {
  readonly policy: Policy;
  projections(): number;
}

function createBenchPolicy(point: BenchPoint, spec: PolicySpec): MeasuredPolicy {
  const policy = withBackend(point.backend, () => createPolicy(point.policy, spec));
  const counted = policy as Partial<{ readonly projectionsTaken: number }>;
  const projections = typeof counted.projectionsTaken === 'number' ? () => counted.projectionsTaken as number : () => 0;
  return { policy, projections };
}

/** Runs one point in this process and measures it. */
export async function measurePoint(point: BenchPoint, options: MeasureOptions): Promise<PointMeasurement> {
  const started = performance.now();
  const { d, K, warmup, rounds } = point;
  const spec = benchSpec(point);
  const workload = new BenchWorkload(d, benchReward(K), point.actions, 1, point.seed);
  const policy = createBenchPolicy(point, spec);
  const times = new RoundTimes(rounds);
  /** The index chosen in round t, at t − 1. */
  const chosen = new Int32Array(warmup + rounds);

  const gcStarts: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcStarts.push(entry.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });

  warmJit(point);
  playRounds(policy, workload, 1, warmup, null, chosen);
  // Start the timed rounds on an empty young generation (`gc` exists when node runs with --expose-gc):
  // a minor collection, which neither shrinks the young generation nor sets off V8's memory reducer.
  (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc?.({ type: 'minor' });
  // Synchronous writes: V8's --trace-gc lines are printed synchronously, so the markers must be too.
  if (options.markTimedRounds === true) fs.writeSync(2, `[eofd bench] ${describePoint(point)}: timed rounds start (pid ${process.pid})\n`);
  const sketchSizeStart = policy.policy.sketchSize?.() ?? null;
  const timedStart = performance.now();
  playRounds(policy, workload, warmup + 1, rounds, times, chosen);
  const timedEnd = performance.now();
  const sketchSize = policy.policy.sketchSize?.() ?? null;
  if (options.markTimedRounds === true) fs.writeSync(2, `[eofd bench] ${describePoint(point)}: timed rounds end (pid ${process.pid})\n`);
  const stateBytes = policy.policy.stats().stateBytes;
  const decisions = decisionsDigest(chosen, policy.policy.estimate());

  let probeUpdate: Quantiles | null = null;
  if (options.probeRounds > 0) {
    // A fresh policy with a tiny S: its first update allocates the projection's buffers, the rest are timed.
    const probe = createBenchPolicy(point, { ...spec, normBound: PROBE_NORM_BOUND });
    const probeTimes = new RoundTimes(options.probeRounds);
    const probeWorkload = new BenchWorkload(d, benchReward(K), point.actions, 1, point.seed);
    playRounds(probe, probeWorkload, 1, 1, null);
    playRounds(probe, probeWorkload, 2, options.probeRounds, probeTimes);
    probeUpdate = quantiles(probeTimes.updateMs.filter((_, i) => probeTimes.projected[i] === 1));
  }

  // GC entries are delivered asynchronously: let the observer catch up before counting.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();

  const { selectMs, updateMs, projected } = times;
  const roundMs = selectMs.map((s, i) => s + updateMs[i]);
  return {
    select: quantiles(selectMs),
    update: quantiles(updateMs),
    round: quantiles(roundMs),
    projectionRounds: projected.reduce((sum, p) => sum + p, 0),
    projectionUpdate: quantiles(updateMs.filter((_, i) => projected[i] === 1)),
    plainRound: quantiles(roundMs.filter((_, i) => projected[i] === 0)),
    probeUpdate,
    stateBytes,
    sketchSizeStart,
    sketchSize,
    gcDuringTimed: gcStarts.filter((start) => start >= timedStart && start <= timedEnd).length,
    wallSeconds: (performance.now() - started) / 1000,
    decisions,
  };
}

/** First 16 hex digits of the SHA-256 of the chosen indices and the estimate's bytes. */
export function decisionsDigest(chosen: Int32Array, estimate: Float64Array): string {
  const hash = createHash('sha256');
  hash.update(new Uint8Array(chosen.buffer, chosen.byteOffset, chosen.byteLength));
  hash.update(new Uint8Array(estimate.buffer, estimate.byteOffset, estimate.byteLength));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Rounds of the JIT warm-up, and its problem's m and d: for a sketched policy more than one gemmNT
 * panel (GEMM_NT_KC = 1024 columns, so the panel-accumulating path is warm too), for an exact one a
 * small Kd.
 */
const JIT_WARMUP_ROUNDS = 500;
const JIT_WARMUP_M = 6;
const JIT_WARMUP_D = { sketched: 1100, exact: 24 } as const;

/** Whether the policy keeps a sketch of size m (it reads m). */
export function isSketched(policy: string): boolean {
  return readsParam(policy, 'm');
}

/**
 * Runs the point's policy (same K) on a small problem first, so that V8 has optimised every function
 * of a round before the real warm-up: a few hundred rounds at full size would take minutes at large
 * d, and code still running unoptimised boxes every intermediate double (hundreds of kB per round).
 */
function warmJit(point: BenchPoint): void {
  const d = Math.min(point.d, JIT_WARMUP_D[isSketched(point.policy) ? 'sketched' : 'exact']);
  const small: BenchPoint = { ...point, d, sketchSize: Math.min(JIT_WARMUP_M, point.sketchSize), warmup: 0, rounds: JIT_WARMUP_ROUNDS };
  const spec = benchSpec(small);
  // Once as measured, once with every update projecting: both branches of eq. (9) get type feedback.
  // The timing path of the loop itself is warmed too.
  const times = new RoundTimes(JIT_WARMUP_ROUNDS);
  for (const normBound of [spec.normBound, PROBE_NORM_BOUND]) {
    const policy = createBenchPolicy(small, { ...spec, normBound });
    playRounds(policy, new BenchWorkload(small.d, benchReward(small.K), small.actions, 1, small.seed), 1, JIT_WARMUP_ROUNDS, times);
  }
}

/** "EOFD-MLogB d=785 K=1 m=78 [wasm]" */
export function describePoint(point: BenchPoint): string {
  return `${describeProblem(point)} [${point.backend}]`;
}

/** "EOFD-MLogB d=785 K=1 m=78": the point without its backend. */
export function describeProblem(point: BenchPoint): string {
  const solver = point.ofulSolver === undefined ? '' : ` ${point.ofulSolver}`;
  return `${point.policy}${solver} d=${point.d} K=${point.K} m=${point.sketchRequest === 'adaptive' ? `adaptive(ε=${point.deltaMax})` : point.sketchSize}`;
}

/** Per-round timings of the timed rounds, allocated before they start. */
class RoundTimes {
  readonly selectMs: Float64Array;
  readonly updateMs: Float64Array;
  /** 1 where the round's update took the projection of eq. (9). */
  readonly projected: Uint8Array;
  constructor(rounds: number) {
    this.selectMs = new Float64Array(rounds);
    this.updateMs = new Float64Array(rounds);
    this.projected = new Uint8Array(rounds);
  }
}

/**
 * Rounds first..first+count−1 of the bench loop; times them into `times` (from index 0) and records
 * the chosen index of round t at `chosen[t − 1]`, when given.
 */
function playRounds(policy: MeasuredPolicy, workload: BenchWorkload, first: number, count: number, times: RoundTimes | null, chosen: Int32Array | null = null): void {
  const d = workload.d;
  const played = new Float64Array(d);
  for (let i = 0; i < count; i++) {
    const t = first + i;
    const actions = workload.nextActions();
    const projectionsBefore = policy.projections();
    const t0 = process.hrtime.bigint();
    const index = policy.policy.select(actions, t);
    const t1 = process.hrtime.bigint();
    if (chosen !== null) chosen[t - 1] = index;
    const outcome = workload.outcome(index);
    // A native copy: an element loop would box every number whenever this loop is not optimised yet.
    played.set(actions.features.subarray(index * d, (index + 1) * d));
    const t2 = process.hrtime.bigint();
    policy.policy.update(played, outcome);
    const t3 = process.hrtime.bigint();
    if (times !== null) {
      times.selectMs[i] = Number(t1 - t0) / 1e6;
      times.updateMs[i] = Number(t3 - t2) / 1e6;
      times.projected[i] = policy.projections() > projectionsBefore ? 1 : 0;
    }
  }
}
