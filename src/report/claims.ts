/**
 * The paper's three experimental claims (Section 4, "Results") as data, and their evaluation on the
 * measured numbers. Each claim pairs a per-round time reduction of EOFD-MLogB against OFUL-MLogB with
 * a bound on its regret overhead; the paper gives approximate numbers, so each carries an explicit
 * threshold:
 *
 * | setting                          | paper                              | holds here when                  |
 * |----------------------------------|------------------------------------|----------------------------------|
 * | MNIST (environment.type = mnist) | ≈80% less time, ≈10% more regret   | reduction ≥ 70%, overhead ≤ 20%  |
 * | synthetic multinomial (K ≥ 2)    | >35% less time, comparable regret  | reduction > 35%, overhead ≤ 20%  |
 * | synthetic binary (K = 1)         | >80% less time, comparable regret  | reduction > 80%, overhead ≤ 20%  |
 *
 * "Comparable regret" is read as at most 20% more final regret (a lower regret always passes).
 * Settings are recognised from the manifest (environment type and K), never from folder names; the
 * paper's d (785, 100, 400) is not required, but a different d is said in the row's note.
 * A claim is evaluated once per matching experiment; with none, or without both policies, or when a
 * percentage is undefined (OFUL-MLogB's mean is 0), its verdict is "not measured".
 */
import { describeRegretOverhead, describeTimeReduction, fixed } from './format.js';
import type { Setting } from '../results/read.js';
import { EOFD, OFUL, type ExperimentSummary } from './summarize.js';

export type Verdict = 'holds' | 'does not hold' | 'not measured';

export interface PaperClaim {
  id: 'mnist' | 'synthetic-multinomial' | 'synthetic-binary';
  /** The claim in the paper's words (Section 4). */
  text: string;
  /** Which experiments it is about: environment type and a range of K. */
  setting: { environment: string; minK: number; maxK: number; paperD: number; label: string };
  /** Paper value, as the paper states it. */
  paper: string;
  /** Per-round time reduction in % that the measurement must reach (≥, or > when strict). */
  minTimeReductionPct: number;
  strictTimeReduction: boolean;
  /** Largest regret overhead in % that still counts. */
  maxRegretOverheadPct: number;
}

export const PAPER_CLAIMS: readonly PaperClaim[] = [
  {
    id: 'mnist',
    text: 'On MNIST, EOFD-MLogB cuts the per-round time of OFUL-MLogB by about 80% with about 10% regret overhead',
    setting: { environment: 'mnist', minK: 1, maxK: Infinity, paperD: 785, label: 'MNIST' },
    paper: '≈80% less time, ≈10% more regret',
    minTimeReductionPct: 70,
    strictTimeReduction: false,
    maxRegretOverheadPct: 20,
  },
  {
    id: 'synthetic-multinomial',
    text: 'On synthetic multinomial data, EOFD-MLogB cuts the per-round time by over 35% with comparable regret',
    setting: { environment: 'synthetic', minK: 2, maxK: Infinity, paperD: 100, label: 'synthetic, K ≥ 2' },
    paper: '>35% less time, comparable regret',
    minTimeReductionPct: 35,
    strictTimeReduction: true,
    maxRegretOverheadPct: 20,
  },
  {
    id: 'synthetic-binary',
    text: 'On synthetic binary data, EOFD-MLogB cuts the per-round time by over 80% with comparable regret',
    setting: { environment: 'synthetic', minK: 1, maxK: 1, paperD: 400, label: 'synthetic, K = 1' },
    paper: '>80% less time, comparable regret',
    minTimeReductionPct: 80,
    strictTimeReduction: true,
    maxRegretOverheadPct: 20,
  },
];

/** One claim evaluated on one experiment (or on none: then `experiment` is null). */
export interface ClaimRow {
  id: PaperClaim['id'];
  claim: string;
  /** The setting the claim is about, e.g. "synthetic, K = 1". */
  setting: string;
  /** The experiment measured, or null when no experiment matched. */
  experiment: string | null;
  paper: string;
  /** The threshold applied, in words. */
  rule: string;
  timeReductionPct: number | null;
  regretOverheadPct: number | null;
  /** The measurement in words, e.g. "78.2% less time, 12.3% more regret"; "–" when not measured. */
  measured: string;
  verdict: Verdict;
  /** Why, in plain words. */
  note: string;
}

export function matchesClaim(claim: PaperClaim, setting: Setting): boolean {
  return (
    setting.environment === claim.setting.environment && setting.K >= claim.setting.minK && setting.K <= claim.setting.maxK
  );
}

function ruleOf(claim: PaperClaim): string {
  const op = claim.strictTimeReduction ? '>' : '≥';
  return `time reduction ${op} ${claim.minTimeReductionPct}%, regret overhead ≤ ${claim.maxRegretOverheadPct}%`;
}

/** Evaluates every claim on every experiment whose setting it is about. */
export function evaluateClaims(experiments: readonly ExperimentSummary[]): ClaimRow[] {
  const rows: ClaimRow[] = [];
  for (const claim of PAPER_CLAIMS) {
    const base = { id: claim.id, claim: claim.text, setting: claim.setting.label, paper: claim.paper, rule: ruleOf(claim) };
    const matching = experiments.filter((e) => matchesClaim(claim, e.setting));
    if (matching.length === 0) {
      const kText = claim.setting.maxK === 1 ? 'K = 1' : claim.setting.maxK === Infinity && claim.setting.minK > 1 ? `K ≥ ${claim.setting.minK}` : '';
      rows.push({
        ...base,
        experiment: null,
        timeReductionPct: null,
        regretOverheadPct: null,
        measured: '–',
        verdict: 'not measured',
        note: `no experiment with environment ${claim.setting.environment}${kText ? `, ${kText}` : ''} among the results`,
      });
      continue;
    }
    for (const experiment of matching) rows.push({ ...base, experiment: experiment.name, ...evaluate(claim, experiment) });
  }
  return rows;
}

function evaluate(
  claim: PaperClaim,
  experiment: ExperimentSummary,
): Pick<ClaimRow, 'timeReductionPct' | 'regretOverheadPct' | 'measured' | 'verdict' | 'note'> {
  const missing = [EOFD, OFUL].filter((p) => !experiment.setting.policies.includes(p));
  const dNote =
    experiment.setting.d === claim.setting.paperD ? '' : ` (measured at d = ${experiment.setting.d}; the paper used d = ${claim.setting.paperD})`;
  if (missing.length > 0 || experiment.comparison === null) {
    return {
      timeReductionPct: null,
      regretOverheadPct: null,
      measured: '–',
      verdict: 'not measured',
      note: `${missing.join(' and ')} did not run in this experiment`,
    };
  }
  const { timeReductionPct: time, regretOverheadPct: regret } = experiment.comparison;
  if (time === null || regret === null) {
    const what = time === null ? 'per-round time' : 'final regret';
    return {
      timeReductionPct: time,
      regretOverheadPct: regret,
      measured: '–',
      verdict: 'not measured',
      note: `OFUL-MLogB's mean ${what} is 0, so the percentage is undefined`,
    };
  }
  const timeHolds = claim.strictTimeReduction ? time > claim.minTimeReductionPct : time >= claim.minTimeReductionPct;
  const regretHolds = regret <= claim.maxRegretOverheadPct;
  const reasons: string[] = [];
  if (!timeHolds) {
    reasons.push(
      `time reduction ${fixed(time, 1)}% is ${claim.strictTimeReduction ? 'not above' : 'below'} the ${claim.minTimeReductionPct}% threshold`,
    );
  }
  if (!regretHolds) {
    reasons.push(`regret overhead ${fixed(regret, 1)}% is above the ${claim.maxRegretOverheadPct}% threshold`);
  }
  const holds = timeHolds && regretHolds;
  return {
    timeReductionPct: time,
    regretOverheadPct: regret,
    measured: `${describeTimeReduction(time)}, ${describeRegretOverhead(regret)}`,
    verdict: holds ? 'holds' : 'does not hold',
    note: (holds ? `both thresholds met (${ruleOf(claim)})` : reasons.join('; ')) + dNote,
  };
}
