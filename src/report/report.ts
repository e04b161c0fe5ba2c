/** The report as plain JSON-serialisable data (report.json, `--json`); index.ts builds it. */
import type { ClaimRow } from './claims.js';
import type { Band, TimeAxis } from './svg.js';
import type { ExperimentSummary } from './summarize.js';

/**
 * Version of the report.json layout (2: paired comparisons, interval verdicts, Δ_T/β_T, band;
 * 3: experiments in the paper's order, each with its progress, Fig. 2's time axis; 4: a title,
 * comparisons against one reference (or all pairs) with Holm-adjusted tests, ratios as back-transformed
 * log-scale intervals, the Random check, claims only for the paper's settings; 6: claims with each
 * half's direction and the paper's number's position apart, the Random control of the regret rule
 * (ofulComparisons[].randomControl, claims[].randomControl), the verdict "cannot judge at this size",
 * Holm families over distinct decision sequences).
 */
export const REPORT_FORMAT = 'eofd-report/6';

/** Everything the report shows, as plain JSON-serialisable data (report.json, `--json`). */
export interface Report {
  format: typeof REPORT_FORMAT;
  /** "EOFD-MLogB vs OFUL-MLogB: reproduction report" with the paper's claims, else from the experiments' names. */
  title: string;
  /** The results folders as given. */
  sources: string[];
  /** Which comparisons: against `reference` (null: each experiment's first learner), or all pairs. */
  comparisons: { reference: string | null; allPairs: boolean };
  /** What Fig. 1's band shows: ±1 sample std or the 95% interval of the mean. */
  band: Band;
  /** Fig. 2's time axis: linear, log, or auto (log in a panel whose learners' times span more than WIDE_TIMES; report.json of format 6 written before it says linear or log only). */
  timeAxis: TimeAxis;
  /** In the paper's order (MNIST, synthetic K ≥ 2, synthetic K = 1, others). */
  experiments: ExperimentSummary[];
  /** The paper's claims; empty when no experiment is in one of the paper's settings. */
  claims: ClaimRow[];
}
