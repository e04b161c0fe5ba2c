/**
 * The bench's results as rows: bench.csv (one row per planned point, units in the column names), the
 * stderr table, and the log-log slopes of per-round time against d, one per series (policy, K, m rule,
 * warm-up, backend). Throughput is the policy's nominal flops per round (PolicyDescriptor.cost) over
 * the round's median time, and a fraction of the run's single-thread dgemm reference (dgemm.ts).
 */
import { stringify } from 'csv-stringify/sync';
import { formatBytes } from '../report/format.js';
import { formatTable } from '../report/table.js';
import type { DgemmReference } from './dgemm.js';
import { describeProblem, type PointMeasurement } from './measure.js';
import { nominalRoundFlops, type PlannedPoint } from './plan.js';

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
  'note',
] as const;

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
