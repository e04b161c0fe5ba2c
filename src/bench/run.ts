/**
 * `eofd bench` as a library: plan the grid, measure each point in a fresh child process (clean peak
 * RSS; `--expose-gc` so the timed rounds start on an empty young generation), then write bench.csv and
 * bench.svg atomically and print a table on stderr. Under `node --trace-gc` the children mark where
 * their timed rounds start and end, with their pid (the idle parent collects garbage too), so GC
 * lines can be read against them. Before the points, the single-thread dgemm reference is measured
 * (dgemm.ts; `dgemm: false` skips it); after them, points whose backends made different decisions are
 * named on stderr.
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
import { fileURLToPath } from 'node:url';
import { describeDgemm, measureDgemm, type DgemmReference } from './dgemm.js';
import { backendDisagreements, benchCsv, benchTable, fitSlopes, type BenchRow } from './output.js';
import { describePoint, measurePoint, type MeasureOptions, type PointMeasurement } from './measure.js';
import { planPoints, unavailableBackend, type BenchOptions, type PlannedPoint } from './plan.js';
import { renderBenchSvg } from './svg.js';
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
  files: string[];
  /** Points that failed (their rows carry the message). */
  failures: number;
}

/** A backend this runtime lacks (exit code 2), or a failure to write the output folder (exit code 1). */
export class BenchError extends EofdError {}

export const BENCH_FILES = ['bench.csv', 'bench.svg'] as const;

const CHILD_SCRIPT = fileURLToPath(new URL('./child.js', import.meta.url));

/**
 * Runs the grid, writes `outDir`/bench.csv and bench.svg, and reports progress and the table on
 * io.stderr. `dgemm` measures the reference (replaced in tests).
 */
export async function runBench(options: BenchOptions, outDir: string, io: BenchIo, dgemm: () => Promise<DgemmReference> = measureDgemm): Promise<BenchResult> {
  if (outDir.trim() === '') throw new BenchError('--out: expected a folder, got an empty string', 2);
  const backendProblem = unavailableBackend(options.backends);
  if (backendProblem !== null) throw new BenchError(backendProblem, 2);
  const reference: DgemmReference = options.dgemm ? await dgemm() : { ok: false, reason: 'skipped by --no-dgemm' };
  io.stderr.write(`[eofd bench] ${describeDgemm(reference)}\n`);
  const planned = planPoints(options);
  const isolated = fs.existsSync(CHILD_SCRIPT);
  const markTimedRounds = process.execArgv.includes('--trace-gc');
  const rows: BenchRow[] = planned.map((plan) => ({ plan, measurement: null, peakRssBytes: null, rssScope: null, note: plan.skip ?? '', processMedians: [] }));
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
    }
  }
  const slopes = fitSlopes(rows, options.fitFromD);
  const contents: Record<(typeof BENCH_FILES)[number], string> = {
    'bench.csv': benchCsv(rows, reference),
    'bench.svg': renderBenchSvg(rows, slopes, options),
  };
  const files: string[] = [];
  try {
    makeFolders(outDir);
    for (const name of BENCH_FILES) {
      const file = path.join(outDir, name);
      writeFileAtomic(file, contents[name]);
      files.push(file);
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new BenchError(`cannot write the bench results to ${outDir}${code ? ` (${code})` : ''}`);
  }
  io.stderr.write('\n' + benchTable(rows, slopes, reference));
  for (const line of backendDisagreements(rows)) io.stderr.write(`[eofd bench] warning: the backends made different decisions at ${line}\n`);
  io.stderr.write(`\nwrote ${files.join(', ')}\n`);
  return { rows, dgemm: reference, files, failures: rows.filter((r) => r.note.startsWith('failed')).length };
}

/** Folds one process's result into the point's row: a failure fails the point; else the lowest median round wins. */
function keepBest(row: BenchRow, result: BenchRow): void {
  if (result.measurement === null) {
    Object.assign(row, { measurement: null, peakRssBytes: null, rssScope: null, note: result.note });
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
      return { plan, measurement, peakRssBytes: process.resourceUsage().maxRSS * 1024, rssScope: 'process', note: '', processMedians: [] };
    }
    const reply = await measureInChild(plan, options);
    if (!reply.ok) throw new Error(reply.message);
    return { plan, measurement: reply.measurement, peakRssBytes: reply.peakRssBytes, rssScope: 'child', note: '', processMedians: [] };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { plan, measurement: null, peakRssBytes: null, rssScope: null, note: `failed: ${message.split('\n')[0]}`, processMedians: [] };
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

