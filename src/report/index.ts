/**
 * `eofd report` as a library: read and validate results folders, compute the numbers, evaluate the
 * paper's claims, and write the report files.
 *
 *   const report = buildReport(['results/mnist', 'results/synthetic-k4'], {});
 *   writeReport(report, 'results/report');
 */
import { writeFileAtomic } from '../results/write.js';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { evaluateClaims, type ClaimRow } from './claims.js';
import { renderHtml } from './html.js';
import { ResultsError, readResults } from '../results/read.js';
import { renderRegretFigure, renderTimeFigure } from './svg.js';
import { REPORT_FORMAT, type Report } from './report.js';
import { summarizeExperiment } from './summarize.js';

export { ResultsError, readExperiment, readResults, type ExperimentData, type Setting } from '../results/read.js';
export {
  downsampleIndices,
  summarizeExperiment,
  type Comparison,
  type ExperimentSummary,
  type MeanStd,
  type PolicySummary,
  type RegretCurve,
} from './summarize.js';
export { PAPER_CLAIMS, evaluateClaims, type ClaimRow, type PaperClaim, type Verdict } from './claims.js';
export { renderRegretFigure, renderTimeFigure, POLICY_COLOURS } from './svg.js';
export { renderHtml } from './html.js';
export { formatTable, renderTerminal, shouldColour } from './table.js';

export { REPORT_FORMAT, type Report } from './report.js';

export interface BuildOptions {
  /** The folder the report will be written to; never read as an experiment when scanning a parent. */
  out?: string;
}

/** Reads `dirs` (experiment folders or parents of several), validates them and computes the report. */
export function buildReport(dirs: readonly string[], options: BuildOptions = {}): Report {
  const data = readResults(dirs, { exclude: options.out === undefined ? [] : [options.out] });
  const experiments = data.map(summarizeExperiment);
  return { format: REPORT_FORMAT, sources: [...dirs], experiments, claims: evaluateClaims(experiments) };
}

/** The file names `writeReport` writes. */
export const REPORT_FILES = [
  'report.csv',
  'claims.csv',
  'fig1-regret.svg',
  'fig2-time.svg',
  'report.html',
  'report.json',
] as const;

/** Full-precision CSV cell: numbers as JavaScript prints them, null as empty. */
function cell(x: number | string | null): string {
  return x === null ? '' : typeof x === 'number' ? (Number.isFinite(x) ? String(x) : '') : x;
}

export function reportCsv(report: Report): string {
  const header = [
    'experiment', 'environment', 'd', 'K', 'horizon', 'trials', 'policy',
    'final_regret_mean', 'final_regret_std', 'round_ms_mean', 'round_ms_std', 'select_ms_mean', 'update_ms_mean',
    'state_bytes', 'sketch_error', 'projections', 'parameter_error_mean', 'parameter_error_std',
    'regret_overhead_pct', 'time_reduction_pct',
  ];
  const rows: string[][] = [header];
  for (const e of report.experiments) {
    const s = e.setting;
    for (const p of e.policies) {
      const versus = p.policy === 'EOFD-MLogB' && e.comparison !== null ? e.comparison : null;
      rows.push(
        [
          e.name, s.environment, s.d, s.K, s.horizon, s.trials, p.policy,
          p.finalRegret.mean, p.finalRegret.std, p.roundMs.mean, p.roundMs.std, p.selectMs, p.updateMs,
          p.stateBytes, p.sketchError, p.projections, p.parameterError?.mean ?? null, p.parameterError?.std ?? null,
          versus?.regretOverheadPct ?? null, versus?.timeReductionPct ?? null,
        ].map(cell),
      );
    }
  }
  return stringify(rows);
}

export function claimsCsv(report: Report): string {
  const rows: string[][] = [
    ['claim', 'setting', 'experiment', 'paper', 'rule', 'time_reduction_pct', 'regret_overhead_pct', 'measured', 'verdict', 'note'],
  ];
  for (const c of report.claims) {
    rows.push(
      [c.claim, c.setting, c.experiment, c.paper, c.rule, c.timeReductionPct, c.regretOverheadPct, c.measured, c.verdict, c.note].map(
        cell,
      ),
    );
  }
  return stringify(rows);
}


/**
 * Writes the REPORT_FILES into `outDir` (created if needed), each atomically. Returns their paths.
 * Throws ResultsError with exit code 1 when the folder or a file cannot be written.
 */
export function writeReport(report: Report, outDir: string): string[] {
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'report.csv': reportCsv(report),
    'claims.csv': claimsCsv(report),
    'fig1-regret.svg': renderRegretFigure(report.experiments),
    'fig2-time.svg': renderTimeFigure(report.experiments),
    'report.html': renderHtml(report),
    'report.json': JSON.stringify(report, null, 2) + '\n',
  };
  const written: string[] = [];
  try {
    fs.mkdirSync(outDir, { recursive: true });
    for (const name of REPORT_FILES) {
      const file = path.join(outDir, name);
      writeFileAtomic(file, contents[name]);
      written.push(file);
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ResultsError(`cannot write the report to ${outDir}${code ? ` (${code})` : ''}`, 1);
  }
  return written;
}
