/**
 * `eofd bench` as a library: plan the grid, measure each point in a fresh child process (clean peak
 * RSS; `--expose-gc` so the timed rounds start on an empty young generation), then write bench.csv and
 * bench.svg atomically and print a table on stderr. Under `node --trace-gc` the children mark where
 * their timed rounds start and end, with their pid (the idle parent collects garbage too), so GC
 * lines can be read against them. Before the points, the single-thread dgemm reference is measured
 * (dgemm.ts; `dgemm: false` skips it); after them, points whose backends made different decisions are
 * named on stderr. With --linalg, the dense kernels are timed against numpy at each --n first
 * (linalg.csv, linalg.svg), and after the points numpy times the operation-equivalents of policy rows at their Kd
 * (bench.csv's numpy columns); with --linalg and no policies, only those two are written.
 *
 * The child is the compiled child.js next to this module; when it is absent (running from the
 * TypeScript sources, as the tests do) points run in this process and peak RSS is the whole process's
 * (column rss_scope says which).
 */
import { EofdError } from '../base/errors.js';
import { writeFileAtomic } from '../results/write.js';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { describeDgemm, measureDgemm, type DgemmReference } from './dgemm.js';
import { linalgRows, measureEofdLinalg, numpyTargets, spdMatrix, writeMatrixFile, type EofdLinalg, type LinalgRow } from './linalg.js';
import { measureNumpyLinalg, NUMPY_OPERATION_NAMES, type NumpyLinalg, type NumpyOperation } from './numpy.js';
import { backendDisagreements, benchCsv, benchTable, fitSlopes, linalgCsv, linalgTable, numpyComparisonTable, type BenchRow, type NumpyBySize } from './output.js';
import { describePoint, measurePoint, type BenchPoint, type MeasureOptions, type PointMeasurement } from './measure.js';
import { planPoints, unavailableBackend, workloadProblem, type BenchOptions, type PlannedPoint } from './plan.js';
import { renderBenchSvg, renderLinalgSvg } from './svg.js';
import { makeFolders } from '../base/files.js';

/** What a child process sends back. */
export type ChildReply =
  | { ok: true; measurement: PointMeasurement; peakRssBytes: number }
  | { ok: false; message: string };

export interface BenchIo {
  stderr: { write(text: string): unknown };
}

export interface BenchResult {
  rows: BenchRow[];
  /** The single-thread dgemm reference of this run, or why there is none. */
  dgemm: DgemmReference;
  /** --linalg: eofd against numpy per n, operation and backend (empty without --linalg). */
  linalg: LinalgRow[];
  /** numpy's times by matrix order (--n, and the Kd of rows with operation-equivalents). */
  numpy: NumpyBySize;
  files: string[];
  /** Points that failed (their rows carry the message). */
  failures: number;
}

/** A backend this runtime lacks (exit code 2), or a failure to write the output folder (exit code 1). */
export class BenchError extends EofdError {}

export const BENCH_FILES = ['bench.csv', 'bench.svg'] as const;
export const LINALG_FILES = ['linalg.csv', 'linalg.svg'] as const;

/** Times numpy operations on the n×n matrix in a file (measureNumpyLinalg; replaced in tests). */
export type NumpyMeasure = (file: string, n: number, repeats: number, operations: readonly NumpyOperation[]) => Promise<NumpyLinalg>;

const CHILD_SCRIPT = fileURLToPath(new URL('./child.js', import.meta.url));

/**
 * Runs the grid (and with --linalg the dense kernels), writes `outDir`/bench.csv and bench.svg (and
 * linalg.csv and linalg.svg), and reports progress and the tables on io.stderr. `dgemm` and `numpy` measure the
 * references (replaced in tests).
 */
export async function runBench(
  options: BenchOptions,
  outDir: string,
  io: BenchIo,
  dgemm: () => Promise<DgemmReference> = measureDgemm,
  numpy: NumpyMeasure = measureNumpyLinalg,
): Promise<BenchResult> {
  if (outDir.trim() === '') throw new BenchError('--out: expected a folder, got an empty string', 2);
  const backendProblem = unavailableBackend(options.backends);
  if (backendProblem !== null) throw new BenchError(backendProblem, 2);
  const workload = workloadProblem(options);
  if (workload !== null) throw new BenchError(workload, 2);
  const withPolicies = options.policies.length > 0;
  const reference: DgemmReference = !options.dgemm
    ? { ok: false, reason: 'skipped by --no-dgemm' }
    : withPolicies
      ? await dgemm()
      : { ok: false, reason: 'no policies to compare with it' };
  if (withPolicies) io.stderr.write(`[eofd bench] ${describeDgemm(reference)}\n`);
  const numpyBySize = new Map<number, NumpyLinalg>();
  const linalg = options.linalg ? await runLinalg(options, io, numpy, numpyBySize) : [];
  const planned = planPoints(options);
  const isolated = fs.existsSync(CHILD_SCRIPT);
  const markTimedRounds = process.execArgv.includes('--trace-gc');
  const rows: BenchRow[] = planned.map((plan) => ({ plan, measurement: null, peakRssBytes: null, rssScope: null, note: plan.skip ?? '', processMedians: [], pairs: [] }));
  const equivalents = new NumpyEquivalents(options, io, numpy, numpyBySize);
  for (const plan of planned) if (plan.skip !== null) io.stderr.write(`[eofd bench] ${describePoint(plan.point)}: ${plan.skip}\n`);
  const runnable = planned.filter((p) => p.skip === null).length * options.processes;
  let done = 0;
  // Pass after pass over the grid, so that a slow spell of the machine spreads over points and backends.
  for (let pass = 0; pass < options.processes; pass++) {
    for (const row of rows) {
      const { plan } = row;
      if (plan.skip !== null || row.note.startsWith('failed')) continue;
      done++;
      const measureOptions: MeasureOptions = { probeRounds: plan.probe ? options.projectionRounds : 0, markTimedRounds };
      const result = await runPoint(plan, measureOptions, isolated);
      keepBest(row, result);
      const summary = result.measurement === null ? result.note : `${result.measurement.round.median.toFixed(3)} ms/round (median)`;
      io.stderr.write(`[eofd bench] ${done}/${runnable} ${describePoint(plan.point)}: ${summary}\n`);
      // numpy's operation-equivalents right after this process's measurement, so that a slow or fast spell of the machine falls on both.
      if (options.linalg && result.measurement !== null) {
        const reference = await equivalents.after(plan.point);
        if (reference !== null) row.pairs.push({ measurement: result.measurement, numpy: reference });
      }
    }
  }
  const slopes = fitSlopes(rows, options.fitFromD);
  const contents = new Map<string, string>();
  if (withPolicies) {
    contents.set('bench.csv', benchCsv(rows, reference));
    contents.set('bench.svg', renderBenchSvg(rows, slopes, options));
  }
  if (options.linalg) {
    contents.set('linalg.csv', linalgCsv(linalg));
    contents.set('linalg.svg', renderLinalgSvg(linalg));
  }
  const files: string[] = [];
  try {
    makeFolders(outDir);
    for (const [name, text] of contents) {
      const file = path.join(outDir, name);
      writeFileAtomic(file, text);
      files.push(file);
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new BenchError(`cannot write the bench results to ${outDir}${code ? ` (${code})` : ''}`);
  }
  if (options.linalg) io.stderr.write('\n' + linalgTable(linalg));
  if (withPolicies) {
    io.stderr.write('\n' + benchTable(rows, slopes, reference));
    io.stderr.write(numpyComparisonTable(rows));
  }
  for (const line of backendDisagreements(rows)) io.stderr.write(`[eofd bench] warning: the backends made different decisions at ${line}\n`);
  io.stderr.write(`\nwrote ${files.join(', ')}\n`);
  return { rows, dgemm: reference, linalg, numpy: numpyBySize, files, failures: rows.filter((r) => r.note.startsWith('failed')).length };
}

/** numpy's times of `operations` on `matrix` (n×n), through a temporary file. */
async function numpyOn(matrix: Float64Array, n: number, repeats: number, operations: readonly NumpyOperation[], numpy: NumpyMeasure): Promise<NumpyLinalg> {
  const { file, remove } = writeMatrixFile(matrix);
  try {
    return await numpy(file, n, repeats, operations);
  } finally {
    remove();
  }
}

/** The one stderr line about numpy at n. */
function describeNumpy(n: number, reference: NumpyLinalg): string {
  return reference.ok
    ? `numpy ${reference.numpy}${reference.scipy === null ? ' (no scipy)' : `, scipy ${reference.scipy}`}, ${reference.blas}, single-thread: n=${n} done`
    : `numpy at n=${n}: none (${reference.reason}); its columns are empty`;
}

/** --linalg: per n, eofd under each backend, then numpy on the same matrix; numpy's times go into `numpyBySize`. */
async function runLinalg(options: BenchOptions, io: BenchIo, numpy: NumpyMeasure, numpyBySize: Map<number, NumpyLinalg>): Promise<LinalgRow[]> {
  const rows: LinalgRow[] = [];
  for (const n of options.n) {
    const matrix = spdMatrix(n, options.seed);
    const eofd: (EofdLinalg | { error: string })[] = [];
    for (const backend of options.backends) {
      const started = performance.now();
      try {
        eofd.push(measureEofdLinalg(matrix, n, backend, options.repeats));
        io.stderr.write(`[eofd bench] linalg n=${n} [${backend}]: done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      } catch (err) {
        const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
        eofd.push({ error: message });
        io.stderr.write(`[eofd bench] linalg n=${n} [${backend}]: failed: ${message}\n`);
      }
    }
    const reference = await numpyOn(matrix, n, options.repeats, NUMPY_OPERATION_NAMES, numpy);
    numpyBySize.set(n, reference);
    io.stderr.write(`[eofd bench] ${describeNumpy(n, reference)}\n`);
    options.backends.forEach((backend, i) => rows.push(...linalgRows(n, backend, options.repeats, eofd[i], reference)));
  }
  return rows;
}

/**
 * numpy's operation-equivalents of a policy point at n = Kd (`numpyTargets`), timed anew for each
 * process's measurement of it (the matrix built once per n). Without numpy the reason is told once per n
 * and the point gets no pairs.
 */
class NumpyEquivalents {
  private readonly matrices = new Map<number, Float64Array>();
  private readonly told = new Set<number>();

  constructor(
    private readonly options: BenchOptions,
    private readonly io: BenchIo,
    private readonly numpy: NumpyMeasure,
    private readonly numpyBySize: Map<number, NumpyLinalg>,
  ) {}

  async after(point: BenchPoint): Promise<NumpyLinalg | null> {
    const operations = [...new Set(numpyTargets(point).flatMap((target) => target.operations))];
    if (operations.length === 0) return null;
    const n = point.K * point.d;
    const known = this.numpyBySize.get(n);
    if (known !== undefined && !known.ok) return null;
    let matrix = this.matrices.get(n);
    if (matrix === undefined) {
      matrix = spdMatrix(n, this.options.seed);
      this.matrices.set(n, matrix);
    }
    const reference = await numpyOn(matrix, n, this.options.repeats, operations, this.numpy);
    if (!reference.ok || !this.told.has(n)) {
      this.told.add(n);
      if (!this.numpyBySize.has(n) || !reference.ok) this.numpyBySize.set(n, reference);
      this.io.stderr.write(`[eofd bench] ${describeNumpy(n, reference)} (operation-equivalents at n = Kd, timed after each process)\n`);
    }
    return reference.ok ? reference : null;
  }
}

/** Folds one process's result into the point's row: a failure fails the point; else the lowest median round wins. */
function keepBest(row: BenchRow, result: BenchRow): void {
  if (result.measurement === null) {
    Object.assign(row, { measurement: null, peakRssBytes: null, rssScope: null, note: result.note, pairs: [] });
    return;
  }
  row.processMedians.push(result.measurement.round.median);
  if (row.measurement === null || result.measurement.round.median < row.measurement.round.median) {
    Object.assign(row, { measurement: result.measurement, peakRssBytes: result.peakRssBytes, rssScope: result.rssScope, note: '' });
  }
}

async function runPoint(plan: PlannedPoint, options: MeasureOptions, isolated: boolean): Promise<BenchRow> {
  try {
    if (!isolated) {
      const measurement = await measurePoint(plan.point, options);
      return { plan, measurement, peakRssBytes: process.resourceUsage().maxRSS * 1024, rssScope: 'process', note: '', processMedians: [], pairs: [] };
    }
    const reply = await measureInChild(plan, options);
    if (!reply.ok) throw new Error(reply.message);
    return { plan, measurement: reply.measurement, peakRssBytes: reply.peakRssBytes, rssScope: 'child', note: '', processMedians: [], pairs: [] };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { plan, measurement: null, peakRssBytes: null, rssScope: null, note: `failed: ${message.split('\n')[0]}`, processMedians: [], pairs: [] };
  }
}

function measureInChild(plan: PlannedPoint, options: MeasureOptions): Promise<ChildReply> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD_SCRIPT, [], {
      // --expose-gc: the timed rounds start on an empty young generation (see measurePoint).
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let reply: ChildReply | null = null;
    child.once('message', (message) => {
      reply = message as ChildReply;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (reply !== null) resolve(reply);
      else reject(new Error(`child process exited (${signal ?? `code ${code}`}) without a result`));
    });
    child.send({ point: plan.point, options });
  });
}

