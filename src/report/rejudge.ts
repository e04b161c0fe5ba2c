/**
 * A report made again from what a results folder keeps when its per-round CSVs are left out (the
 * committed results/paper/: each experiment's manifest.json and summary.csv): every number summary.csv
 * gives is computed anew and the claims are judged by today's rules, while what only the per-round data
 * give — Fig. 1's and Fig. 3's curves and the groups of identical decisions — is taken from the report
 * made when they were there (report.json of format 5 or later).
 */
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, SUMMARY_FILE } from '../results/layout.js';
import { readSummary } from '../results/read-csv.js';
import { describeManifest, readManifest, ResultsError } from '../results/read-json.js';
import { evaluateClaims } from './claims.js';
import { REPORT_FORMAT, type Report } from './report.js';
import { summarizeRows, type ExperimentSummary } from './summarize.js';

/** The report.json formats that hold what a report made again takes over (curves, identical decisions). */
export const REJUDGEABLE_FORMATS: readonly string[] = ['eofd-report/5', REPORT_FORMAT];

/**
 * `previous` (a parsed report.json) made again on the experiment folders under `resultsDir` (one
 * sub-folder per experiment, by name, each with manifest.json and summary.csv). Throws ResultsError
 * when the previous report's format is not one of REJUDGEABLE_FORMATS, an experiment was in progress,
 * or a folder is missing.
 */
export function rejudgeReport(previous: unknown, resultsDir: string): Report {
  const old = previous as Partial<Report> & { format?: unknown };
  if (typeof old !== 'object' || old === null || !REJUDGEABLE_FORMATS.includes(old.format as string)) {
    throw new ResultsError(`report format ${JSON.stringify(old?.format)}: expected one of ${REJUDGEABLE_FORMATS.join(', ')} to make the report again`);
  }
  const experiments = (old.experiments ?? []).map((e): ExperimentSummary => {
    if (!e.progress.complete) throw new ResultsError(`${e.name}: was in progress when its report was made; run it to the end first`);
    const dir = path.join(resultsDir, e.name);
    if (!fs.existsSync(path.join(dir, MANIFEST_FILE))) throw new ResultsError(`${path.join(dir, MANIFEST_FILE)}: not found`);
    const manifest = describeManifest(readManifest(dir));
    const summary = readSummary(path.join(dir, SUMMARY_FILE), manifest.setting).rows;
    const data = { dir, ...manifest, progress: e.progress, summary, partial: [] };
    const options = old.comparisons?.allPairs === true ? { allPairs: true } : old.comparisons?.reference === null ? {} : { reference: old.comparisons?.reference };
    // Where it was made, as the previous report says; the per-round numbers as it computed them.
    return { ...summarizeRows(data, e.identical, options), dir: e.dir, curves: e.curves, sketchCurves: e.sketchCurves };
  });
  const claims = evaluateClaims(experiments);
  return {
    format: REPORT_FORMAT,
    title: old.title ?? '',
    sources: old.sources ?? [],
    comparisons: old.comparisons ?? { reference: null, allPairs: false },
    band: old.band ?? 'std',
    timeAxis: old.timeAxis ?? 'linear',
    experiments,
    claims,
  };
}
