/**
 * The paper's three experimental claims (Section 4, "Results") as data, and their evaluation on the
 * measured numbers. Each claim pairs a per-round time reduction of EOFD-MLogB against OFUL-MLogB with
 * a bound on its regret overhead; the paper gives approximate numbers, so each carries an explicit
 * region:
 *
 * | setting                          | paper                              | region                              |
 * |----------------------------------|------------------------------------|-------------------------------------|
 * | MNIST (environment.type = mnist) | ≈80% less time, ≈10% more regret   | reduction ≥ 70%, overhead in ±20%   |
 * | synthetic multinomial (K ≥ 2)    | >35% less time, comparable regret  | reduction > 35%, overhead in ±20%   |
 * | synthetic binary (K = 1)         | >80% less time, comparable regret  | reduction > 80%, overhead in ±20%   |
 *
 * "Comparable regret" is two-sided: a regret 30% lower is as far from the paper as 30% higher.
 * Both numbers are ratios, judged by their paired 95% intervals on the log scale (per-trial log ratios
 * of EOFD-MLogB to OFUL-MLogB, Student-t interval of their mean, back-transformed: summarize.ts), not by
 * means. Each claim is one prespecified comparison and `holds` needs both of its intervals inside (an
 * intersection–union test), so the intervals are not adjusted for multiplicity:
 *
 * - `holds`: both intervals lie entirely inside their regions;
 * - `does not hold`: an interval lies entirely outside its region;
 * - `inconclusive`: otherwise (an interval straddles a threshold; the reason names it);
 * - `not judged`: the run is still in progress (partial data is never judged as if complete); fewer
 *   than 3 trials; a learner (EOFD-MLogB, OFUL-MLogB) whose regret is not shown below Random's (the
 *   report's Random check: Holm-adjusted paired interval not entirely below 0) when Random ran; or
 *   timings taken with more than one unit at once, or not recorded (manifest `timing`). The numbers
 *   are still given;
 * - `not measured`: no experiment of that setting, EOFD-MLogB or every OFUL-MLogB label absent, or a log ratio
 *   undefined (a final regret or time that is not > 0 in some trial).
 *
 * Against which OFUL-MLogB: every label of the experiment whose policy is OFUL-MLogB (the manifest's
 * config.variants, else the label "OFUL-MLogB"), one row each, in policy order, each judged on its own
 * paired log ratios by the rules above. The paper costs OFUL-MLogB at O(K³d³) per round (`oful_solver:
 * textbook`); eofd's default updates H⁻¹ incrementally, so an experiment that runs both, e.g.
 * `policies: [EOFD-MLogB, OFUL-MLogB, {policy: OFUL-MLogB, label: OFUL-textbook, params: {oful_solver:
 * textbook}}]`, gets each claim twice, the row naming the label and its solver (`versus`). An experiment
 * whose only one is the label OFUL-MLogB with the incremental solver gets one row that names nothing.
 *
 * Claims are evaluated only when some experiment is in one of the paper's settings: a report on other
 * experiments has no claims rows at all.
 * Settings are recognised from the manifest (environment type and K), never from folder names; the
 * paper's d (785, 100, 400) is not required, but a different d is said in the row's `note`.
 * A claim is evaluated once per matching experiment.
 */
import type { Setting } from '../results/read.js';
import { describeRandomCheck, describeRegretOverhead, describeTimeReduction, formatInterval } from './format.js';
import { EOFD, OFUL, type Comparison, type Estimate, type ExperimentSummary, type OfulComparison, type OfulSolverName } from './summarize.js';

export type Verdict = 'holds' | 'does not hold' | 'inconclusive' | 'not judged' | 'not measured';

/** Fewest trials a claim is judged on. */
export const MIN_TRIALS = 3;

export interface PaperClaim {
  id: 'mnist' | 'synthetic-multinomial' | 'synthetic-binary';
  /** The claim in the paper's words (Section 4). */
  text: string;
  /** Which experiments it is about: environment type and a range of K. */
  setting: { environment: string; minK: number; maxK: number; paperD: number; label: string };
  /** Paper value, as the paper states it. */
  paper: string;
  /** Per-round time reduction in % that the interval must lie above (≥, or > when strict). */
  minTimeReductionPct: number;
  strictTimeReduction: boolean;
  /** The regret overhead's interval must lie within ± this many % (two-sided). */
  maxAbsRegretOverheadPct: number;
}

export const PAPER_CLAIMS: readonly PaperClaim[] = [
  {
    id: 'mnist',
    text: 'On MNIST, EOFD-MLogB cuts the per-round time of OFUL-MLogB by about 80% with about 10% regret overhead',
    setting: { environment: 'mnist', minK: 1, maxK: Infinity, paperD: 785, label: 'MNIST' },
    paper: '≈80% less time, ≈10% more regret',
    minTimeReductionPct: 70,
    strictTimeReduction: false,
    maxAbsRegretOverheadPct: 20,
  },
  {
    id: 'synthetic-multinomial',
    text: 'On synthetic multinomial data, EOFD-MLogB cuts the per-round time by over 35% with comparable regret',
    setting: { environment: 'synthetic', minK: 2, maxK: Infinity, paperD: 100, label: 'synthetic, K ≥ 2' },
    paper: '>35% less time, comparable regret',
    minTimeReductionPct: 35,
    strictTimeReduction: true,
    maxAbsRegretOverheadPct: 20,
  },
  {
    id: 'synthetic-binary',
    text: 'On synthetic binary data, EOFD-MLogB cuts the per-round time by over 80% with comparable regret',
    setting: { environment: 'synthetic', minK: 1, maxK: 1, paperD: 400, label: 'synthetic, K = 1' },
    paper: '>80% less time, comparable regret',
    minTimeReductionPct: 80,
    strictTimeReduction: true,
    maxAbsRegretOverheadPct: 20,
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
  /** The region applied, in words. */
  rule: string;
  /** The OFUL-MLogB label compared against; null when there is none (not measured). */
  reference: string | null;
  /** Its solver (params.oful_solver): textbook is the paper's O(K³d³) round; null with `reference`. */
  solver: OfulSolverName | null;
  /**
   * The comparison in words, e.g. "vs OFUL-textbook, textbook solver"; null when the experiment's only
   * OFUL-MLogB label is OFUL-MLogB with the incremental solver (nothing to tell apart).
   */
  versus: string | null;
  /** Trials paired (EOFD-MLogB vs the OFUL-MLogB label); null when not measured. */
  trials: number | null;
  /** EOFD-MLogB's regret overhead over OFUL-MLogB in %, paired 95% interval (log scale, back-transformed). */
  regretOverheadPct: Estimate | null;
  /** EOFD-MLogB's per-round time reduction against OFUL-MLogB in %, paired 95% interval (log scale, back-transformed). */
  timeReductionPct: Estimate | null;
  /** The means in words, e.g. "78.2% less time, 12.3% more regret"; "–" when not measured. */
  measured: string;
  /** Set when the experiment's d differs from the paper's, e.g. "d = 20; the paper used d = 100". */
  note: string | null;
  verdict: Verdict;
  /** Why, in one short sentence. */
  reason: string;
}

/**
 * "synthetic, K ≥ 2 (synthetic-k4)": the claim's setting, the experiment measured, which OFUL-MLogB
 * when it has to be told apart ("synthetic-k4 vs OFUL-textbook, textbook solver") and any note.
 */
export function claimLabel(c: ClaimRow): string {
  if (c.experiment === null) return c.setting;
  const measured = c.versus === null ? c.experiment : `${c.experiment} ${c.versus}`;
  return `${c.setting} (${measured}${c.note === null ? '' : `; ${c.note}`})`;
}

/** "vs OFUL-textbook, textbook solver". */
export function versusText(label: string, solver: OfulSolverName): string {
  return `vs ${label}, ${solver} solver`;
}

export function matchesClaim(claim: PaperClaim, setting: Setting): boolean {
  return (
    setting.environment === claim.setting.environment && setting.K >= claim.setting.minK && setting.K <= claim.setting.maxK
  );
}

function ruleOf(claim: PaperClaim): string {
  const op = claim.strictTimeReduction ? '>' : '≥';
  return `time reduction ${op} ${claim.minTimeReductionPct}% and regret overhead within ±${claim.maxAbsRegretOverheadPct}%, both 95% CIs`;
}

/** Some experiment is in one of the paper's settings (then the report has the claims section). */
export function hasPaperExperiment(experiments: readonly ExperimentSummary[]): boolean {
  return experiments.some((e) => PAPER_CLAIMS.some((claim) => matchesClaim(claim, e.setting)));
}

/**
 * Evaluates every claim on every experiment whose setting it is about; a claim whose setting no
 * experiment has is "not measured". No rows at all when no experiment is in a paper setting.
 */
export function evaluateClaims(experiments: readonly ExperimentSummary[]): ClaimRow[] {
  const rows: ClaimRow[] = [];
  if (!hasPaperExperiment(experiments)) return rows;
  for (const claim of PAPER_CLAIMS) {
    const base = { id: claim.id, claim: claim.text, setting: claim.setting.label, paper: claim.paper, rule: ruleOf(claim) };
    const matching = experiments.filter((e) => matchesClaim(claim, e.setting));
    if (matching.length === 0) {
      rows.push({ ...base, experiment: null, ...NO_REFERENCE, ...notMeasured(`no ${claim.setting.label} experiment among the results`) });
      continue;
    }
    for (const experiment of matching) {
      const ofuls = experiment.ofulComparisons;
      if (ofuls.length === 0) {
        rows.push({ ...base, experiment: experiment.name, ...NO_REFERENCE, ...evaluate(claim, experiment, null) });
        continue;
      }
      const plain = ofuls.length === 1 && ofuls[0]?.label === OFUL && ofuls[0].solver === 'incremental';
      for (const oful of ofuls) {
        const reference = { reference: oful.label, solver: oful.solver, versus: plain ? null : versusText(oful.label, oful.solver) };
        rows.push({ ...base, experiment: experiment.name, ...reference, ...evaluate(claim, experiment, oful) });
      }
    }
  }
  return rows;
}

const NO_REFERENCE = { reference: null, solver: null, versus: null } as const;

type Evaluation = Pick<ClaimRow, 'trials' | 'regretOverheadPct' | 'timeReductionPct' | 'measured' | 'note' | 'verdict' | 'reason'>;

function notMeasured(reason: string): Evaluation {
  return { trials: null, regretOverheadPct: null, timeReductionPct: null, measured: '–', note: null, verdict: 'not measured', reason };
}

/** The claim on one experiment against one OFUL-MLogB label (null: the experiment has none). */
function evaluate(claim: PaperClaim, experiment: ExperimentSummary, oful: OfulComparison | null): Evaluation {
  const missing = [...(experiment.setting.policies.includes(EOFD) ? [] : [EOFD]), ...(oful === null ? [OFUL] : [])];
  if (missing.length > 0 || oful === null) return notMeasured(`${missing.join(' and ')} did not run in this experiment`);
  const pair = oful.comparison;
  if (pair === null) {
    const p = experiment.progress;
    return notMeasured(
      p.complete
        ? `${EOFD} and ${oful.label} share no trial`
        : `run in progress (${p.finishedUnits} of ${p.plannedUnits} units finished): no trial has finished for both ${EOFD} and ${oful.label} yet`,
    );
  }
  const { regretOverhead: regret, timeReduction: time } = pair;
  if (time === null || regret === null) return notMeasured(`${pair.timeRatioNote ?? pair.regretRatioNote}, so the percentage is undefined`);
  const d = experiment.setting.d;
  const unjudged = notJudgedReasons(experiment, pair, oful.label);
  const judged = unjudged.length > 0 ? { verdict: 'not judged' as const, reason: unjudged.join('; ') } : judge(claim, time, regret);
  return {
    trials: pair.trials,
    regretOverheadPct: regret,
    timeReductionPct: time,
    measured: `${describeTimeReduction(time.estimate)}, ${describeRegretOverhead(regret.estimate)}`,
    note: d === claim.setting.paperD ? null : `d = ${d}; the paper used d = ${claim.setting.paperD}`,
    ...judged,
  };
}

/** Why the experiment cannot support a verdict, if it cannot: every applicable reason, in order. */
function notJudgedReasons(experiment: ExperimentSummary, pair: Comparison, ofulLabel: string): string[] {
  const reasons: string[] = [];
  const progress = experiment.progress;
  if (!progress.complete) {
    reasons.push(`run in progress (${progress.finishedUnits} of ${progress.plannedUnits} units finished): numbers so far, nothing is judged until it completes`);
  }
  if (pair.trials < MIN_TRIALS) reasons.push(`only ${pair.trials} trial${pair.trials === 1 ? '' : 's'}, at least ${MIN_TRIALS} are needed`);
  for (const learner of [EOFD, ofulLabel]) {
    const check = experiment.randomCheck.find((c) => c.policy === learner);
    // With one trial there is no interval; the trial count above already says why.
    if (check !== undefined && check.regret.n >= 2 && check.flagged) reasons.push(`${learner}'s regret is not shown below ${check.random}'s (${describeRandomCheck(check)})`);
  }
  const jobs = experiment.timing.jobs;
  if (jobs === null) reasons.push('how the timings were taken is not recorded, so time is not judged');
  else if (jobs > 1) reasons.push(`timings were taken with ${jobs} units at once (rerun with --timing), so time is not judged`);
  return reasons;
}

type Position = 'inside' | 'outside' | 'straddles';

/** Where an interval lies relative to its region, and that in words. */
interface Check {
  position: Position;
  text: string;
}

function timeCheck(claim: PaperClaim, ci: Estimate): Check {
  const threshold = claim.minTimeReductionPct;
  const above = (x: number) => (claim.strictTimeReduction ? x > threshold : x >= threshold);
  const subject = `time reduction 95% CI ${formatInterval(ci.low, ci.high)}`;
  const [over, under] = claim.strictTimeReduction ? ['lies above', 'lies at or below'] : ['lies at or above', 'lies below'];
  if (above(ci.low)) return { position: 'inside', text: `${subject} ${over} the ${threshold}% threshold` };
  if (!above(ci.high)) return { position: 'outside', text: `${subject} ${under} the ${threshold}% threshold` };
  return { position: 'straddles', text: `${subject} straddles the ${threshold}% threshold` };
}

function regretCheck(claim: PaperClaim, ci: Estimate): Check {
  const bound = claim.maxAbsRegretOverheadPct;
  const subject = `regret overhead 95% CI ${formatInterval(ci.low, ci.high)}`;
  if (ci.low >= -bound && ci.high <= bound) return { position: 'inside', text: `${subject} lies within ±${bound}%` };
  if (ci.high < -bound) return { position: 'outside', text: `${subject} lies below −${bound}%` };
  if (ci.low > bound) return { position: 'outside', text: `${subject} lies above +${bound}%` };
  const straddled = [ci.low < -bound ? `−${bound}%` : null, ci.high > bound ? `+${bound}%` : null].filter((x) => x !== null);
  return { position: 'straddles', text: `${subject} straddles the ${straddled.join(' and ')} threshold${straddled.length > 1 ? 's' : ''}` };
}

/** Verdict of a claim whose intervals fall at these positions, in order of precedence. */
const VERDICT_OF: readonly (readonly [Position, Verdict])[] = [
  ['outside', 'does not hold'],
  ['straddles', 'inconclusive'],
  ['inside', 'holds'],
];

/** The verdict from both intervals: outside anywhere beats straddling, which beats inside. */
function judge(claim: PaperClaim, time: Estimate, regret: Estimate): Pick<ClaimRow, 'verdict' | 'reason'> {
  const checks = [timeCheck(claim, time), regretCheck(claim, regret)];
  const [position, verdict] = VERDICT_OF.find(([p]) => checks.some((c) => c.position === p)) as (typeof VERDICT_OF)[number];
  return { verdict, reason: checks.filter((c) => c.position === position).map((c) => c.text).join(' and ') };
}
