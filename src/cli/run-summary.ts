/**
 * The closing summary of a run, computed by the report's own reader and summaries from the files the
 * run wrote (so it also proves they read back): per experiment and policy mean ± std final regret and
 * ms per round, and EOFD-MLogB against OFUL-MLogB (time ratio, regret overhead).
 */
import path from 'node:path';
import type { RunResult } from '../experiment/runner.js';
import { formatMeanStd, formatPct, formatShort } from '../report/format.js';
import { summarizeExperiment, type Comparison, type PolicySummary } from '../report/summarize.js';
import { formatTable } from '../report/table.js';
import { readExperiment, type Setting } from '../results/read.js';

export interface ExperimentRunSummary {
  name: string;
  dir: string;
  /** Every unit finished (else the numbers are absent). */
  complete: boolean;
  setting: Setting | null;
  derived: Record<string, unknown>;
  policies: PolicySummary[];
  /** EOFD-MLogB vs OFUL-MLogB, with `timeRatio` = t_EOFD / t_OFUL per round; null if either is absent. */
  comparison: (Comparison & { timeRatio: number | null }) | null;
  /** One line per failed unit. */
  failures: string[];
}

/** The `--json` document. */
export interface RunSummary {
  out: string;
  interrupted: boolean;
  units: { run: number; skipped: number; failed: number };
  jobs: number;
  experiments: ExperimentRunSummary[];
}

export function summarizeRun(result: RunResult, out: string): RunSummary {
  const experiments = result.experiments.map((e): ExperimentRunSummary => {
    const base = { name: e.name, dir: e.dir, failures: e.failures.map((f) => f.message) };
    if (!e.complete) {
      return { ...base, complete: false, setting: null, derived: { ...e.resolved.derived }, policies: [], comparison: null };
    }
    const summary = summarizeExperiment(readExperiment(e.dir));
    const eofd = summary.policies.find((p) => p.policy === 'EOFD-MLogB');
    const oful = summary.policies.find((p) => p.policy === 'OFUL-MLogB');
    const timeRatio = eofd && oful && oful.roundMs.mean > 0 ? eofd.roundMs.mean / oful.roundMs.mean : null;
    return {
      ...base,
      complete: true,
      setting: summary.setting,
      derived: summary.derived,
      policies: summary.policies,
      comparison: summary.comparison === null ? null : { ...summary.comparison, timeRatio },
    };
  });
  return {
    out,
    interrupted: result.interrupted,
    units: { run: result.unitsRun, skipped: result.unitsSkipped, failed: result.unitsFailed },
    jobs: result.jobs,
    experiments,
  };
}

/** The summary as terminal text: one table, then a comparison line per experiment and where the files are. */
/** `eofd` is how the user runs this program (`eofd` or `npx eofd`), for the closing hint. */
export function formatRunSummary(summary: RunSummary, eofd = 'eofd'): string {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const e of summary.experiments) {
    if (!e.complete) {
      notes.push(`${e.name}: incomplete (${e.failures.length} unit${e.failures.length === 1 ? '' : 's'} failed); no summary.csv`);
      continue;
    }
    const s = e.setting as Setting;
    for (const p of e.policies) {
      rows.push([e.name, `d=${s.d} K=${s.K} T=${s.horizon}`, p.policy, String(p.trials), formatMeanStd(p.finalRegret), formatMeanStd(p.roundMs, 3)]);
    }
    const c = e.comparison;
    if (c !== null) {
      const ratio = c.timeRatio === null ? '–' : `${formatShort(c.timeRatio, 3)}`;
      notes.push(`${e.name}: EOFD-MLogB/OFUL-MLogB time per round ${ratio}×, EOFD-MLogB regret overhead ${formatPct(c.regretOverheadPct)}`);
    }
  }
  const parts: string[] = [];
  if (rows.length > 0) {
    parts.push(
      formatTable(['experiment', 'setting', 'policy', 'trials', 'final regret (mean ± std)', 'ms/round (mean ± std)'], rows, {
        align: ['left', 'left', 'left', 'right', 'right', 'right'],
      }),
    );
  }
  parts.push(...notes);
  const complete = summary.experiments.filter((e) => e.complete);
  if (complete.length > 0) {
    parts.push('');
    parts.push(`Per-round CSVs: ${path.join(summary.out, '<experiment>', '<policy>', 'trial-<i>.csv')}; per-trial summaries: ${complete.map((e) => path.join(e.dir, 'summary.csv')).join(', ')}`);
    parts.push(`Full report (tables, the paper's claims, figures): ${eofd} report ${complete.map((e) => e.dir).join(' ')}`);
  }
  return parts.join('\n') + '\n';
}
