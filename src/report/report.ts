/** The report as plain JSON-serialisable data (report.json, `--json`); index.ts builds it. */
import type { ClaimRow } from './claims.js';
import type { ExperimentSummary } from './summarize.js';

/** Version of the report.json layout. */
export const REPORT_FORMAT = 'eofd-report/1';

/** Everything the report shows, as plain JSON-serialisable data (report.json, `--json`). */
export interface Report {
  format: typeof REPORT_FORMAT;
  /** The results folders as given. */
  sources: string[];
  experiments: ExperimentSummary[];
  claims: ClaimRow[];
}

