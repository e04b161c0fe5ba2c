/**
 * The bench's results as rows: bench.csv (one row per planned point, units in the column names), the
 * stderr table, and the log-log slopes of per-round time against d, one per series (policy, K, m rule,
 * warm-up, backend). Throughput is the policy's nominal flops per round (PolicyDescriptor.cost) over
 * the round's median time, and a fraction of the run's single-thread dgemm reference (dgemm.ts).
 * With --linalg: linalg.csv and its table (eofd ÷ numpy per operation and n, linalg.ts), and for policy
 * rows with numpy operation-equivalents (`numpyTargets`) their numpy time at n = Kd and the ratio, paired
 * in time: numpy is timed right after each process's measurement of the point, and the ratio is the
 * geometric mean of the per-process ratios with its 95% Student-t interval on the log scale.
 */
import { stringify } from 'csv-stringify/sync';
import { formatBytes } from '../report/format.js';
import { formatTable } from '../report/table.js';
import type { DgemmReference } from './dgemm.js';
import { describeOperations, linalgRatio, numpyLegend, numpyTargets, type LinalgRow, type NumpyTarget } from './linalg.js';
import { describeProblem, type PointMeasurement } from './measure.js';
import { numpyTotalMs, TIMED_SECONDS, WARMUP_SECONDS, type NumpyLinalg } from './numpy.js';
import { nominalRoundFlops, type PlannedPoint } from './plan.js';
import { median } from '../stats/descriptive.js';
import { pairedLogRatio } from '../stats/paired.js';
import { ratioEstimate, type Estimate } from '../stats/ratio.js';

export interface BenchRow {
  plan: PlannedPoint;
  /** null when the point was skipped or failed. */
  measurement: PointMeasurement | null;
  /** Peak resident set size, bytes (process.resourceUsage().maxRSS). */
  peakRssBytes: number | null;
  /** 'child': a fresh process ran only this point; 'process': the whole bench process so far. */
  rssScope: 'child' | 'process' | null;
  /** Why the point has no measurement ('skipped: …', 'failed: …'), or ''. */
  note: string;
  /** Median round (ms) of every process that measured the point (the row's measurement is the lowest). */
  processMedians: number[];
  /** With --linalg, for a point with numpy operation-equivalents: each process's measurement and numpy's times taken right after it. */
  pairs: EquivalentPair[];
}

/** One process's measurement of a point and numpy's operation-equivalents at n = Kd, timed right after it. */
export interface EquivalentPair {
  measurement: PointMeasurement;
  numpy: NumpyLinalg;
}

export const BENCH_COLUMNS = [
  'policy',
  'backend',
  'd',
  'K',
  'm',
  'm_requested',
  'oful_solver',
  'Kd',
  'actions',
  'warmup_rounds',
  'timed_rounds',
  'select_median_ms',
  'select_p90_ms',
  'update_median_ms',
  'update_p90_ms',
  'round_median_ms',
  'round_p90_ms',
  'processes',
  'round_median_worst_ms',
  'gflop_per_s',
  'dgemm_gflop_per_s',
  'fraction_of_dgemm',
  'plain_round_median_ms',
  'projection_rounds',
  'projection_update_median_ms',
  'probe_projection_update_median_ms',
  'state_bytes',
  'peak_rss_mb',
  'rss_scope',
  'gc_during_timed',
  'wall_s',
  'decisions',
  'numpy_round_equivalent_ms',
  'round_over_numpy',
  'round_over_numpy_low',
  'round_over_numpy_high',
  'numpy_projection_equivalent_ms',
  'projection_over_numpy',
  'projection_over_numpy_low',
  'projection_over_numpy_high',
  'note',
] as const;

/** numpy's dense-operation times by matrix order n (--linalg). */
export type NumpyBySize = ReadonlyMap<number, NumpyLinalg>;

/** A policy row's time beside numpy's operation-equivalent at n = Kd, paired by process. */
export interface NumpyComparison {
  target: NumpyTarget;
  /** Pairs with both times. */
  pairs: number;
  /** The row's time, ms, the median over the pairs (median round, or median projecting update: the probe's when there is one). */
  eofdMs: number | null;
  /** numpy's time, ms, the median over the pairs. */
  numpyMs: number | null;
  /** eofd ÷ numpy: the geometric mean of the pairs' ratios and its 95% interval (NaN ends for one pair), or null. */
  ratio: Estimate | null;
}

/** The time of `measured` in a process's measurement, or null. */
function measuredMs(measured: NumpyTarget['measured'], m: PointMeasurement): number | null {
  const x = measured === 'round' ? m.round.median : (m.probeUpdate?.median ?? m.projectionUpdate.median);
  return Number.isFinite(x) && x > 0 ? x : null;
}

/** The row's NumpyComparison per numpyTargets (none for policies without one). */
export function numpyComparisons(row: BenchRow): NumpyComparison[] {
  const p = row.plan.point;
  return numpyTargets(p).map((target) => {
    const eofd: number[] = [];
    const numpy: number[] = [];
    for (const pair of row.pairs) {
      const e = measuredMs(target.measured, pair.measurement);
      const n = numpyTotalMs(pair.numpy, target.operations);
      if (e === null || n === null || !(n > 0)) continue;
      eofd.push(e);
      numpy.push(n);
    }
    if (eofd.length === 0) return { target, pairs: 0, eofdMs: null, numpyMs: null, ratio: null };
    const log = pairedLogRatio(eofd, numpy);
    return { target, pairs: eofd.length, eofdMs: median(eofd), numpyMs: median(numpy), ratio: log === null ? null : ratioEstimate(log) };
  });
}

/**
 * A series of the plot and of the slopes: one policy, one K, one way of choosing m, one warm-up asked
 * for, one backend ("EOFD-MLogB K=1 m=Kd/10 [wasm]").
 */
export function seriesKey(row: BenchRow): string {
  const { policy, backend, K, sketchRequest, warmupRequest, ofulSolver } = row.plan.point;
  const sketch = sketchRequest === 'exact' ? '' : ` m=${sketchRequest === 'auto' ? 'Kd/10' : sketchRequest}`;
  const history = warmupRequest === 'auto' ? '' : ` t=${warmupRequest + 1}`;
  const solver = ofulSolver === undefined ? '' : ` ${ofulSolver}`;
  return `${policy}${solver} K=${K}${sketch}${history} [${backend}]`;
}

/** The m a point ran with: an adaptive m's size after the timed rounds (its plan's estimate when not measured), else the plan's. */
export function reachedSketchSize(row: BenchRow): number {
  return row.plan.point.sketchRequest === 'adaptive' ? (row.measurement?.sketchSize ?? row.plan.point.sketchSize) : row.plan.point.sketchSize;
}

/** GFLOP/s of a measured point: the policy's nominal flops per round over the round's median time; null without one. */
export function roundGflopPerS(row: BenchRow): number | null {
  const median = row.measurement?.round.median;
  if (median === undefined || !(median > 0)) return null;
  return nominalRoundFlops({ ...row.plan.point, sketchSize: reachedSketchSize(row) }) / (median / 1e3) / 1e9;
}

/**
 * Points measured under several backends whose decisions differ (the backends are meant to compute
 * the same bits), as "EOFD-MLogB d=785 K=1 m=78: js 1a2b…, wasm 3c4d…".
 */
export function backendDisagreements(rows: readonly BenchRow[]): string[] {
  const byPoint = new Map<string, BenchRow[]>();
  for (const row of rows) {
    if (row.measurement === null) continue;
    const key = JSON.stringify({ ...row.plan.point, backend: null });
    if (!byPoint.has(key)) byPoint.set(key, []);
    byPoint.get(key)!.push(row);
  }
  const disagreements: string[] = [];
  for (const group of byPoint.values()) {
    if (new Set(group.map((r) => r.measurement!.decisions)).size <= 1) continue;
    disagreements.push(`${describeProblem(group[0]!.plan.point)}: ${group.map((r) => `${r.plan.point.backend} ${r.measurement!.decisions}`).join(', ')}`);
  }
  return disagreements;
}

export interface SeriesSlope {
  series: string;
  /** Least-squares slope of ln(round median ms) against ln d; NaN with fewer than two points. */
  slope: number;
  /** The d range the fit used. */
  fromD: number;
  toD: number;
}

/** Per series, the log-log slope over its measured points with d ≥ fromD (all of them if fewer than two). */
export function fitSlopes(rows: readonly BenchRow[], fromD: number): SeriesSlope[] {
  const bySeries = new Map<string, { d: number; ms: number }[]>();
  for (const row of rows) {
    const key = seriesKey(row);
    if (!bySeries.has(key)) bySeries.set(key, []);
    const ms = row.measurement?.round.median;
    if (ms !== undefined && ms > 0) bySeries.get(key)!.push({ d: row.plan.point.d, ms });
  }
  const slopes: SeriesSlope[] = [];
  for (const [series, all] of bySeries) {
    const upper = all.filter((p) => p.d >= fromD);
    const points = upper.length >= 2 ? upper : all;
    const ds = points.map((p) => p.d);
    slopes.push({
      series,
      slope: leastSquaresSlope(points.map((p) => Math.log(p.d)), points.map((p) => Math.log(p.ms))),
      fromD: ds.length > 0 ? Math.min(...ds) : NaN,
      toD: ds.length > 0 ? Math.max(...ds) : NaN,
    });
  }
  return slopes;
}

/** Slope of the least-squares line through (x_i, y_i); NaN for fewer than two distinct x. */
export function leastSquaresSlope(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  if (n < 2) return NaN;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
  }
  return sxx === 0 ? NaN : sxy / sxx;
}

/** A number with `decimals` decimals, '' when absent or not finite. */
function num(x: number | null | undefined, decimals: number): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '' : x.toFixed(decimals);
}

/** bench.csv; `dgemm` fills the reference columns (empty without one). */
export function benchCsv(rows: readonly BenchRow[], dgemm: DgemmReference): string {
  const reference = dgemm.ok ? dgemm.gflopPerS : null;
  const lines: string[][] = [[...BENCH_COLUMNS]];
  for (const row of rows) {
    const p = row.plan.point;
    const m = row.measurement;
    const gflop = roundGflopPerS(row);
    const comparisons = numpyComparisons(row);
    const round = comparisons.find((c) => c.target.measured === 'round');
    const projection = comparisons.find((c) => c.target.measured === 'projection');
    lines.push([
      p.policy,
      p.backend,
      String(p.d),
      String(p.K),
      String(reachedSketchSize(row)),
      String(p.sketchRequest),
      p.ofulSolver ?? '',
      String(p.K * p.d),
      String(p.actions),
      String(p.warmup),
      String(p.rounds),
      num(m?.select.median, 4),
      num(m?.select.p90, 4),
      num(m?.update.median, 4),
      num(m?.update.p90, 4),
      num(m?.round.median, 4),
      num(m?.round.p90, 4),
      String(row.processMedians.length),
      num(row.processMedians.length > 0 ? Math.max(...row.processMedians) : null, 4),
      num(gflop, 4),
      num(reference, 2),
      num(gflop !== null && reference !== null ? gflop / reference : null, 5),
      num(m?.plainRound.median, 4),
      m ? String(m.projectionRounds) : '',
      num(m?.projectionUpdate.median, 4),
      num(m?.probeUpdate?.median, 4),
      m ? String(m.stateBytes) : '',
      num(row.peakRssBytes === null ? null : row.peakRssBytes / 2 ** 20, 1),
      row.rssScope ?? '',
      m ? String(m.gcDuringTimed) : '',
      num(m?.wallSeconds, 2),
      m?.decisions ?? '',
      num(round?.numpyMs, 4),
      num(round?.ratio?.estimate, 3),
      num(round?.ratio?.low, 3),
      num(round?.ratio?.high, 3),
      num(projection?.numpyMs, 4),
      num(projection?.ratio?.estimate, 3),
      num(projection?.ratio?.low, 3),
      num(projection?.ratio?.high, 3),
      row.note,
    ]);
  }
  return stringify(lines);
}

/** GFLOP/s with three significant digits. */
function gflopText(x: number): string {
  return x >= 100 ? x.toFixed(0) : x.toPrecision(3);
}

/** A fraction as a percentage with two significant digits ("4.2%", "0.031%"). */
function percent(fraction: number): string {
  return `${Number((100 * fraction).toPrecision(2))}%`;
}

function ms(x: number | undefined | null): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3);
}

const TABLE_HEADERS = [
  'policy',
  'backend',
  'd',
  'K',
  'm',
  't',
  'select ms',
  'update ms',
  'round ms (p90)',
  'GFLOP/s',
  'projection ms',
  'state',
  'peak RSS',
  'GCs',
  'note',
] as const;

/**
 * The stderr table: medians (p90 of the round), throughput, projection cost, memory, then the fitted
 * slopes; `dgemm` adds each throughput's fraction of the reference.
 */
export function benchTable(rows: readonly BenchRow[], slopes: readonly SeriesSlope[], dgemm: DgemmReference): string {
  const body = rows.map((row) => {
    const p = row.plan.point;
    const m = row.measurement;
    const projection = m?.probeUpdate?.median ?? m?.projectionUpdate.median;
    const gflop = roundGflopPerS(row);
    return [
      p.ofulSolver === undefined ? p.policy : `${p.policy} (${p.ofulSolver})`,
      p.backend,
      String(p.d),
      String(p.K),
      p.sketchRequest === 'exact' ? '–' : p.sketchRequest === 'adaptive' ? `${reachedSketchSize(row)} (adaptive)` : String(p.sketchSize),
      String(p.warmup + 1),
      ms(m?.select.median),
      ms(m?.update.median),
      m ? `${ms(m.round.median)} (${ms(m.round.p90)})` : '–',
      gflop === null ? '–' : dgemm.ok ? `${gflopText(gflop)} (${percent(gflop / dgemm.gflopPerS)})` : gflopText(gflop),
      ms(projection),
      m ? formatBytes(m.stateBytes) : '–',
      row.peakRssBytes === null ? '–' : `${(row.peakRssBytes / 2 ** 20).toFixed(0)} MB${row.rssScope === 'process' ? '*' : ''}`,
      m ? String(m.gcDuringTimed) : '–',
      row.note,
    ];
  });
  const align = TABLE_HEADERS.map((h) => (h === 'policy' || h === 'note' ? 'left' : 'right') as 'left' | 'right');
  let text = formatTable([...TABLE_HEADERS], body, { align });
  if (rows.some((r) => r.rssScope === 'process')) text += '* peak RSS of the whole bench process (no fresh child per point)\n';
  const processes = Math.max(0, ...rows.map((r) => r.processMedians.length));
  if (processes > 1) text += `times: the fastest of ${processes} processes per point (the slowest median round is bench.csv's round_median_worst_ms)\n`;
  text += dgemm.ok
    ? `GFLOP/s: the policy's nominal flops per round over the median round (in parentheses: of the dgemm reference, ${dgemm.gflopPerS.toFixed(1)} GFLOP/s)\n`
    : "GFLOP/s: the policy's nominal flops per round over the median round\n";
  text += '\nlog-log slope of per-round time against d:\n';
  for (const s of slopes) {
    text += `  ${s.series}: ${Number.isFinite(s.slope) ? s.slope.toFixed(2) : '–'} (d ${s.fromD}–${s.toD})\n`;
  }
  return text;
}

/** A ratio as "3.52×" (three significant digits), '–' when absent. */
function ratioText(ratio: number | null): string {
  return ratio === null ? '–' : `${Number(ratio.toPrecision(3))}×`;
}

/** "2.07× [2.01, 2.13]", or "2.07×" without an interval. */
function estimateText(ratio: Estimate | null): string {
  if (ratio === null) return '–';
  const interval = Number.isFinite(ratio.low) && Number.isFinite(ratio.high) ? ` [${Number(ratio.low.toPrecision(3))}, ${Number(ratio.high.toPrecision(3))}]` : '';
  return `${ratioText(ratio.estimate)}${interval}`;
}

/**
 * The policy rows against numpy's operation-equivalents at n = Kd (empty when no row has one): what
 * was measured, numpy's operations and the ratio, paired by process.
 */
export function numpyComparisonTable(rows: readonly BenchRow[]): string {
  const body: string[][] = [];
  const operations = new Set<NumpyComparison['target']['operations'][number]>();
  for (const row of rows) {
    const p = row.plan.point;
    for (const c of numpyComparisons(row)) {
      for (const operation of c.target.operations) operations.add(operation);
      body.push([
        p.ofulSolver === undefined ? p.policy : `${p.policy} (${p.ofulSolver})`,
        p.backend,
        String(p.d),
        String(p.K),
        String(p.K * p.d),
        c.target.measured,
        ms(c.eofdMs),
        describeOperations(c.target.operations),
        ms(c.numpyMs),
        String(c.pairs),
        estimateText(c.ratio),
      ]);
    }
  }
  if (body.length === 0) return '';
  const headers = ['policy', 'backend', 'd', 'K', 'Kd', 'eofd', 'eofd ms', 'numpy at n = Kd', 'numpy ms', 'pairs', 'eofd ÷ numpy [95%]'];
  const align = headers.map((_, i) => (i === 0 || i === 5 || i === 7 ? 'left' : 'right') as 'left' | 'right');
  return (
    '\nagainst numpy single-thread doing the same dense operations (round: median select + update; projection: median projecting update),\n' +
    'numpy timed right after each process measured the point: medians over the pairs, and the geometric mean of the pairs\' ratios with its 95% interval:\n' +
    formatTable(headers, body, { align }) +
    `${numpyLegend([...operations])}\n`
  );
}

export const LINALG_COLUMNS = [
  'n',
  'operation',
  'backend',
  'eofd_function',
  'numpy_function',
  'repeats',
  'eofd_best_ms',
  'numpy_best_ms',
  'eofd_over_numpy',
  'eigenvalue_rel_difference',
  'numpy',
  'scipy',
  'blas',
  'note',
] as const;

/** Six significant digits, '' when absent (times span µs at n = 32 to seconds at n = 1600). */
function significant(x: number | null): string {
  return x === null || !Number.isFinite(x) ? '' : String(Number(x.toPrecision(6)));
}

/** linalg.csv: one row per (n, operation, backend). */
export function linalgCsv(rows: readonly LinalgRow[]): string {
  const lines: string[][] = [[...LINALG_COLUMNS]];
  for (const row of rows) {
    lines.push([
      String(row.n),
      row.operation.name,
      row.backend,
      row.operation.eofd,
      row.operation.numpy,
      String(row.repeats),
      significant(row.eofdMs),
      significant(row.numpyMs),
      significant(linalgRatio(row.eofdMs, row.numpyMs)),
      row.eigenvalueDifference === null ? '' : row.eigenvalueDifference.toExponential(2),
      row.numpy?.numpy ?? '',
      row.numpy?.scipy ?? '',
      row.numpy?.blas ?? '',
      row.note,
    ]);
  }
  return stringify(lines);
}

/** The --linalg table: best times and eofd ÷ numpy per n and operation, then what each numpy column ran. */
export function linalgTable(rows: readonly LinalgRow[]): string {
  const headers = ['n', 'operation', 'backend', 'eofd ms', 'numpy', 'numpy ms', 'eofd ÷ numpy', 'note'];
  const body = rows.map((row) => [
    String(row.n),
    row.operation.name,
    row.backend,
    ms(row.eofdMs),
    row.operation.numpy,
    ms(row.numpyMs),
    ratioText(linalgRatio(row.eofdMs, row.numpyMs)),
    row.note,
  ]);
  const align = headers.map((h) => (h === 'operation' || h === 'numpy' || h === 'note' ? 'left' : 'right') as 'left' | 'right');
  const repeats = [...new Set(rows.map((row) => row.repeats))].join(', ');
  return (
    formatTable(headers, body, { align }) +
    `best of ≥ ${repeats} timed calls each (and ≥ ${TIMED_SECONDS} s of them), after ${WARMUP_SECONDS} s of untimed calls; numpy single-thread on the same matrices (A = XXᵀ/n + I)\n` +
    `${numpyLegend(rows.map((row) => row.operation.numpy))}\n`
  );
}
