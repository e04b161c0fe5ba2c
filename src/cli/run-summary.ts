/**
 * The closing summary of a run, computed by the report's own reader and summaries from the files the
 * run wrote (so it also proves they read back): per experiment and policy mean ± std final regret and
 * ms per round; then each policy against the experiment's reference (its first learner) — final regret
 * difference and per-round time ratio, paired by trial, each with its Holm-adjusted 95% interval and
 * the verdict read from it (lower / higher / inconclusive), never a bare point estimate; and every
 * learner whose final regret is not shown below Random's.
 */
import path from 'node:path';
import type { RunResult } from '../experiment/runner.js';
import { describeRandomCheck, differenceDecimals, formatAdjusted, formatMeanStd, formatShort, signedFixed } from '../report/format.js';
import { summarizeExperiment, type Comparison, type PolicySummary, type RandomCheck, type TestedComparison } from '../report/summarize.js';
import { formatTable } from '../report/table.js';
import { readExperiment, type Setting } from '../results/read.js';
import { ratioEstimate } from '../stats/ratio.js';
import { hinter, type Hint } from './hint.js';

export interface ExperimentRunSummary {
  name: string;
  dir: string;
  /** Every unit finished (else the numbers are absent). */
  complete: boolean;
  setting: Setting | null;
  derived: Record<string, unknown>;
  policies: PolicySummary[];
  /**
   * EOFD-MLogB vs OFUL-MLogB (raw 95% intervals), with `timeRatio` = the geometric mean over trials of
   * t_EOFD / t_OFUL per round; null if either is absent.
   */
  comparison: (Comparison & { timeRatio: number | null }) | null;
  /** The reference of `comparisons` (the first learner); null when nothing ran. */
  reference: string | null;
  /** Each other policy against `reference`, Holm-adjusted per quantity. */
  comparisons: TestedComparison[];
  /** Every learner against Random (empty without Random). */
  randomCheck: RandomCheck[];
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
      return {
        ...base,
        complete: false,
        setting: null,
        derived: { ...e.resolved.derived },
        policies: [],
        comparison: null,
        reference: null,
        comparisons: [],
        randomCheck: [],
      };
    }
    const summary = summarizeExperiment(readExperiment(e.dir));
    const c = summary.comparison;
    return {
      ...base,
      complete: true,
      setting: summary.setting,
      derived: summary.derived,
      policies: summary.policies,
      comparison: c === null ? null : { ...c, timeRatio: c.timeLogRatio === null ? null : ratioEstimate(c.timeLogRatio).estimate },
      reference: summary.reference,
      comparisons: summary.comparisons,
      randomCheck: summary.randomCheck,
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

/**
 * "OFUL-MLogB: final regret +0.312, Holm-adjusted CI [−2.10, 2.72] (97.5%), inconclusive; time per
 * round ×1.91 of EOFD-MLogB's, Holm-adjusted CI [1.62, 2.25] (95%), higher".
 */
function comparisonLine(c: TestedComparison): string {
  const regret = c.regretTest;
  const decimals = differenceDecimals(c.regret);
  const parts = [
    `final regret ${signedFixed(c.regret.mean, decimals)}, Holm-adjusted CI ${formatAdjusted(regret.adjusted, decimals)}, ${regret.verdict}`,
  ];
  const time = c.timeTest;
  if (time !== null && c.timeLogRatio !== null) {
    const ratio = ratioEstimate(c.timeLogRatio).estimate;
    const adjusted = ratioEstimate(time.adjusted);
    const interval = formatAdjusted(adjusted, differenceDecimals({ ...adjusted, estimate: ratio }));
    parts.push(`time per round ×${formatShort(ratio, 3)} of ${c.reference}'s, Holm-adjusted CI ${interval}, ${time.verdict}`);
  }
  return `  ${c.policy}: ${parts.join('; ')}`;
}

/** The comparisons of one experiment as lines: a heading stating the family, then one line per policy. */
function comparisonLines(e: ExperimentRunSummary): string[] {
  if (e.reference === null || e.comparisons.length === 0) return [];
  const n = [...new Set(e.comparisons.map((c) => c.trials))].join('/');
  return [
    `${e.name}: against ${e.reference} (reference), paired by trial, n = ${n}; Holm-adjusted 95% intervals over the ` +
      `${e.comparisons.length} comparison${e.comparisons.length === 1 ? '' : 's'} of final regret and those of time per round (not against Random):`,
    ...e.comparisons.map(comparisonLine),
  ];
}

/** The summary as terminal text: one table, then the comparisons per experiment and where the files are. */
/** `hint` prints the closing command as the user can run it (hint.ts; default: this process's PATH and folder). */
export function formatRunSummary(summary: RunSummary, hint: Hint = hinter(process.env)): string {
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
    notes.push(...comparisonLines(e));
    for (const c of e.randomCheck.filter((x) => x.flagged)) {
      notes.push(`${e.name}: warning: ${c.policy}'s final regret is not shown below ${c.random}'s: ${describeRandomCheck(c)}`);
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
    parts.push(`Full report (tables, comparisons, figures; the paper's claims for its settings): ${hint('report', ...complete.map((e) => e.dir))}`);
  }
  return parts.join('\n') + '\n';
}
