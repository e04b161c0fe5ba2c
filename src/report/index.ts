/**
 * `eofd report` as a library: read and validate results folders, compute the numbers (paired
 * comparisons against a reference, Holm-adjusted), judge the paper's claims on 95% intervals when the
 * experiments are the paper's, and write the report files.
 *
 *   const report = buildReport(['results/mnist', 'results/synthetic-k4'], { band: 'ci95' });
 *   writeReport(report, 'results/report');
 */
import { MANIFEST_FILE, REPORT_FILES } from '../results/layout.js';
import { replaceFolder, writeFileAtomic } from '../results/write.js';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { claimLabel, controlWord, evaluateClaims } from './claims.js';
import { renderHtml } from './html.js';
import { ResultsError, readManifest, readResults } from '../results/read.js';
import { svgToPng } from './png.js';
import { renderRegretFigure, renderSketchSizeFigure, renderTimeFigure, type Band, type TimeAxis } from './svg.js';
import { REPORT_FORMAT, type Report } from './report.js';
import { EofdError } from '../base/errors.js';
import { makeFolders } from '../base/files.js';
import { EOFD, OFUL, eofdSide, inPaperOrder, summarizeExperiment, type ExperimentSummary } from './summarize.js';

export { ResultsError, readExperiment, readResults, type ExperimentData, type Setting } from '../results/read.js';
export {
  downsampleIndices,
  findComparison,
  inPaperOrder,
  pairedComparison,
  paperRank,
  summarizeExperiment,
  type Comparison,
  type ComparisonVerdict,
  type Estimate,
  type ExperimentSummary,
  type HolmTest,
  type MeanStd,
  type PairedComparison,
  type PairedInterval,
  type PolicySummary,
  type RandomCheck,
  type RegretCurve,
  type SummaryOptions,
  type TestedComparison,
} from './summarize.js';
export {
  MIN_TRIALS,
  PAPER_CLAIMS,
  VERDICTS,
  claimLabel,
  evaluateClaims,
  hasPaperExperiment,
  type ClaimRow,
  type ControlRow,
  type PaperClaim,
  type PaperPosition,
  type RegretDirection,
  type RuleOutcome,
  type TimeDirection,
  type Verdict,
} from './claims.js';
export { BANDS, TIME_AXES, WIDE_TIMES, bandHalfWidths, panelTimeAxis, renderRegretFigure, renderTimeFigure, timeNote, type Band, type SvgOptions, type TimeAxis } from './svg.js';
export { POLICY_COLOURS, POLICY_STYLES, policyStyles, type PolicyStyle } from './palette.js';
export { PNG_SCALE, svgToPng } from './png.js';
export { renderHtml, type HtmlOptions } from './html.js';
export { displayWidth, fitColumns, fitText, formatTable, renderTerminal, shouldColour, terminalWidth, wrapText, type TableFit, type TerminalOptions } from './table.js';

export { REPORT_FORMAT, type Report } from './report.js';
export { REJUDGEABLE_FORMATS, rejudgeReport } from './rejudge.js';

export interface BuildOptions {
  /** The folder the report will be written to; never read as an experiment when scanning a parent. */
  out?: string;
  /** Fig. 1's band: ±1 sample std ('std', the paper's, default) or the 95% interval of the mean. */
  band?: Band;
  /** Fig. 2's time axis: auto (default: log in a panel whose learners' times span more than WIDE_TIMES), linear or log. */
  timeAxis?: TimeAxis;
  /**
   * Compare each policy with this label (default: each experiment's first learner); an experiment
   * where it did not run uses its default and says so. ResultsError (exit 2) when no experiment ran it.
   */
  reference?: string;
  /** Compare every pair of policies instead of each with the reference. */
  allPairs?: boolean;
}

/** "EOFD-MLogB vs OFUL-MLogB: reproduction report" with the paper's claims, else "eofd report: <experiments>". */
export function reportTitle(experiments: readonly ExperimentSummary[], hasClaims: boolean): string {
  return hasClaims ? `${EOFD} vs ${OFUL}: reproduction report` : `eofd report: ${experiments.map((e) => e.name).join(', ')}`;
}

/**
 * Reads `dirs` (experiment folders or parents of several), validates them and computes the report,
 * experiments in the paper's order. A run in progress (no summary.csv yet) is reported on its
 * finished units and marked so (`progress`); its claims are not judged.
 */
export function buildReport(dirs: readonly string[], options: BuildOptions = {}): Report {
  const data = readResults(dirs, { exclude: options.out === undefined ? [] : [options.out], inProgress: true });
  const reference = options.allPairs === true ? undefined : options.reference;
  if (reference !== undefined && !data.some((d) => d.summary.some((r) => r.policy === reference))) {
    const labels = [...new Set(data.flatMap((d) => d.setting.policies))].join(', ');
    throw new ResultsError(`--reference ${reference}: no experiment ran a policy labelled so (labels: ${labels})`);
  }
  const experiments = inPaperOrder(data.map((d) => summarizeExperiment(d, { reference, allPairs: options.allPairs })));
  const claims = evaluateClaims(experiments);
  return {
    format: REPORT_FORMAT,
    title: reportTitle(experiments, claims.length > 0),
    sources: [...dirs],
    comparisons: { reference: reference ?? null, allPairs: options.allPairs === true },
    band: options.band ?? 'std',
    timeAxis: options.timeAxis ?? 'auto',
    experiments,
    claims,
  };
}

export interface WriteOptions {
  /** Fig. 1's band; overrides the report's own (`report.band`), and report.json says which was drawn. */
  band?: Band;
  /** Fig. 2's time axis; overrides the report's own (`report.timeAxis`). */
  timeAxis?: TimeAxis;
  /** Also write fig1-regret.png and fig2-time.png (PNG_FILES), and fig3-sketch-size.png with Fig. 3. */
  png?: boolean;
  /** Fig. 1's regret axis on a log scale (in the SVG, the PNG and report.html). */
  logY?: boolean;
}

/** The file names `writeReport` writes (results/layout.ts, where labels are kept off them). */
export { REPORT_FILES };

/** Fig. 3, m_t against t: written when an experiment has an adaptive sketch size (params.m: adaptive). */
export const SKETCH_SIZE_FIGURE = 'fig3-sketch-size.svg';
/** Fig. 3 as PNG, with `png: true` beside the PNG_FILES when Fig. 3 is written. */
export const SKETCH_SIZE_PNG = 'fig3-sketch-size.png';

/** The files `writeReport` adds with `png: true`: the figures at PNG_SCALE pixels per SVG unit. */
export const PNG_FILES = ['fig1-regret.png', 'fig2-time.png'] as const;

/** Full-precision CSV cell: numbers as JavaScript prints them, null as empty. */
function cell(x: number | string | null): string {
  return x === null ? '' : typeof x === 'number' ? (Number.isFinite(x) ? String(x) : '') : x;
}

export function reportCsv(report: Report): string {
  const header = [
    'experiment', 'environment', 'd', 'K', 'horizon', 'trials', 'policy',
    'final_regret_mean', 'final_regret_std', 'round_ms_mean', 'round_ms_std', 'select_ms_mean', 'update_ms_mean',
    'state_bytes', 'sketch_error', 'projections', 'parameter_error_mean', 'parameter_error_std',
    'delta_T_mean', 'delta_T_std', 'beta_T_mean', 'beta_T_std', 'regret_overhead_pct', 'time_reduction_pct',
    'm_T_mean', 'm_T_std',
  ];
  const rows: string[][] = [header];
  for (const e of report.experiments) {
    const s = e.setting;
    for (const p of e.policies) {
      const versus = p.policy === eofdSide(e).label && e.comparison !== null ? e.comparison : null;
      rows.push(
        [
          e.name, s.environment, s.d, s.K, s.horizon, s.trials, p.policy,
          p.finalRegret.mean, p.finalRegret.std, p.roundMs.mean, p.roundMs.std, p.selectMs, p.updateMs,
          p.stateBytes, p.sketchError, p.projections, p.parameterError?.mean ?? null, p.parameterError?.std ?? null,
          p.deltaT?.mean ?? null, p.deltaT?.std ?? null, p.betaT?.mean ?? null, p.betaT?.std ?? null,
          versus?.regretOverheadPct ?? null, versus?.timeReductionPct ?? null,
          p.mT?.mean ?? null, p.mT?.std ?? null,
        ].map(cell),
      );
    }
  }
  return stringify(rows);
}

/**
 * The columns of claims.csv (EOFD-MLogB vs OFUL-MLogB, paired 95% intervals from per-trial log ratios):
 * each half's interval, direction and where the paper's number lies relative to it; the negative
 * control (Random in EOFD-MLogB's place against the same OFUL-MLogB: its regret overhead and whether it
 * passes the regret rule); the verdict and its reason.
 */
export const CLAIMS_CSV_COLUMNS = [
  'claim', 'paper', 'trials',
  'time_reduction_pct', 'time_reduction_ci_low', 'time_reduction_ci_high', 'time_direction', 'time_paper_position',
  'regret_overhead_pct', 'regret_overhead_ci_low', 'regret_overhead_ci_high', 'regret_direction', 'regret_paper_position',
  'random_control', 'random_regret_overhead_pct', 'random_regret_overhead_ci_low', 'random_regret_overhead_ci_high',
  'verdict', 'reason',
] as const;

export function claimsCsv(report: Report): string {
  const rows: string[][] = [[...CLAIMS_CSV_COLUMNS]];
  for (const c of report.claims) {
    const r = c.regretOverheadPct;
    const t = c.timeReductionPct;
    const control = c.randomControl;
    const rr = control?.regretOverheadPct ?? null;
    rows.push(
      [
        claimLabel(c), c.paper, c.trials,
        t?.estimate ?? null, t?.low ?? null, t?.high ?? null, c.timeDirection, c.timePaperPosition,
        r?.estimate ?? null, r?.low ?? null, r?.high ?? null, c.regretDirection, c.regretPaperPosition,
        control === null ? (c.trials === null ? null : 'not run') : controlWord(control.outcome), rr?.estimate ?? null, rr?.low ?? null, rr?.high ?? null,
        c.verdict, c.reason,
      ].map(cell),
    );
  }
  return stringify(rows);
}

/**
 * Writes the REPORT_FILES (and with `png` the PNG_FILES) into `outDir` (created if needed). A folder
 * that holds only report files is replaced as a whole (built beside, swapped by renames; leftovers of a
 * killed report cleaned first), so it never holds a mix of two reports; into a folder that holds other
 * files too, each file is written atomically. Returns their paths.
 * Throws ResultsError with exit code 1 when the folder or a file cannot be written.
 */
export function writeReport(given: Report, outDir: string, options: WriteOptions = {}): string[] {
  const report: Report = { ...given, band: options.band ?? given.band, timeAxis: options.timeAxis ?? given.timeAxis };
  const fig1 = renderRegretFigure(report.experiments, { band: report.band, logY: options.logY });
  const fig2 = renderTimeFigure(report.experiments, { timeAxis: report.timeAxis, claims: report.claims });
  const contents: [string, string | Buffer][] = [
    ['report.csv', reportCsv(report)],
    ['claims.csv', claimsCsv(report)],
    ['fig1-regret.svg', fig1],
    ['fig2-time.svg', fig2],
    ['report.html', renderHtml(report, { logY: options.logY })],
    ['report.json', JSON.stringify(report, null, 2) + '\n'],
  ];
  const fig3 = renderSketchSizeFigure(report.experiments, { band: report.band });
  if (fig3 !== null) contents.push([SKETCH_SIZE_FIGURE, fig3]);
  if (options.png === true) {
    contents.push(['fig1-regret.png', svgToPng(fig1)], ['fig2-time.png', svgToPng(fig2)]);
    if (fig3 !== null) contents.push([SKETCH_SIZE_PNG, svgToPng(fig3)]);
  }
  if (outDir.trim() === '') throw new ResultsError('--out: expected a folder, got an empty string');
  // Never into a folder a run uses: its files are a run's, and readers would take the report for results.
  const role = runFolderRole(outDir);
  if (role !== null) throw new ResultsError(`${outDir}: ${role}; write the report to another folder with --out`);
  // The working folder (or one holding it) is never swapped out from under the user's shell.
  const target = path.resolve(outDir);
  const relative = path.relative(target, process.cwd());
  const holdsCwd = relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  try {
    if (!holdsCwd && holdsOnlyReport(outDir)) {
      // All of one report or all of the other: built beside, swapped in by renames (results/write.ts).
      replaceFolder(
        target,
        (staging) => {
          makeFolders(staging);
          for (const [name, content] of contents) writeFileAtomic(path.join(staging, name), content);
        },
        { word: 'building', held: false },
      );
    } else {
      // A folder that holds other files too: file by file, each atomically; a killed report's temporary files go first.
      removeReportLeftovers(outDir);
      for (const [name, content] of contents) writeFileAtomic(path.join(outDir, name), content);
    }
  } catch (err) {
    if (err instanceof EofdError) throw err;
    const code = (err as { code?: string }).code;
    throw new ResultsError(`cannot write the report to ${outDir}${code ? ` (${code})` : ''}`, 1);
  }
  return contents.map(([name]) => path.join(outDir, name));
}

/** The names of the files a report writes. */
const REPORT_NAMES: ReadonlySet<string> = new Set<string>([...REPORT_FILES, ...PNG_FILES, SKETCH_SIZE_FIGURE]);

/** A unit's files in a policy's folder (results/layout.ts unitFiles). */
const UNIT_FILE = /^trial-\d+\.(csv|csv\.partial|summary\.json)$/;

/**
 * What a run uses `dir` for, or null: an experiment folder, a policy's folder (its name is a label of
 * the experiment in the folder above: `eofd report <experiment>`'s default `<experiment>/report` when
 * a label is `report`), or a folder holding a unit's files.
 */
function runFolderRole(dir: string): string | null {
  if (fs.existsSync(path.join(dir, MANIFEST_FILE))) return `holds ${MANIFEST_FILE} (an experiment folder)`;
  const parent = path.dirname(path.resolve(dir));
  const name = path.basename(path.resolve(dir));
  if (fs.existsSync(path.join(parent, MANIFEST_FILE))) {
    let labels: readonly string[] = [];
    try {
      labels = readManifest(parent).config.policies;
    } catch {
      // An unreadable manifest: the folder's own files decide below.
    }
    if (labels.includes(name)) return `is the folder of the policy labelled ${JSON.stringify(name)} in the experiment ${path.dirname(dir)}`;
  }
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const unit = names.find((n) => UNIT_FILE.test(n));
  return unit === undefined ? null : `holds ${unit} (a policy's folder)`;
}

/** Removes the temporary files (`<report file>.tmp-<pid>`) a killed report left in `dir`; nothing else. */
function removeReportLeftovers(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const base = name.replace(/\.tmp-\d+$/, '');
    if (base !== name && REPORT_NAMES.has(base)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** Whether `dir` is missing or holds nothing but report files (and a killed report's temporary files). */
function holdsOnlyReport(dir: string): boolean {
  try {
    if (!fs.lstatSync(dir).isDirectory()) return false;
    return fs.readdirSync(dir).every((name) => REPORT_NAMES.has(name.replace(/\.tmp-\d+$/, '')));
  } catch {
    return true;
  }
}
