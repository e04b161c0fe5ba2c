/** The report as plain JSON-serialisable data (report.json, `--json`); index.ts builds it. */
import type { ClaimRow } from './claims.js';
import type { Band } from './svg.js';
import type { ExperimentSummary } from './summarize.js';

/** Version of the report.json layout (2: paired comparisons, interval verdicts, Δ_T/β_T, band). */
export const REPORT_FORMAT = 'eofd-report/2';

/** Everything the report shows, as plain JSON-serialisable data (report.json, `--json`). */
export interface Report {
  format: typeof REPORT_FORMAT;
  /** The results folders as given. */
  sources: string[];
  /** What Fig. 1's band shows: ±1 sample std or the 95% interval of the mean. */
  band: Band;
  experiments: ExperimentSummary[];
  claims: ClaimRow[];
}
