/**
 * The paper's three experimental claims (Section 4, "Results") as data, and their evaluation on the
 * measured numbers. Each claim pairs a per-round time reduction of EOFD-MLogB against OFUL-MLogB with
 * its regret overhead; each half is judged in two parts, apart:
 *
 * - direction, from the paired 95% interval (per-trial log ratios of EOFD-MLogB to OFUL-MLogB,
 *   Student-t interval of their mean, back-transformed: summarize.ts): time `faster` (the time ratio's
 *   interval entirely below 1), `slower` (entirely above) or `inconclusive`; regret `more` / `less` /
 *   `inconclusive`, or `identical` (the same final regret in every trial);
 * - magnitude: where the paper's number lies relative to that interval, `inside`, `below` (the
 *   interval lies above the paper's number) or `above`.
 *
 * What the paper states sets the rule of each half (PaperNumber):
 *
 * | setting                          | paper                              | time rule                   | regret rule                     |
 * |----------------------------------|------------------------------------|-----------------------------|---------------------------------|
 * | MNIST (environment.type = mnist) | ≈80% less time, ≈10% more regret   | faster, 80% inside          | 10% inside                      |
 * | synthetic multinomial (K ≥ 2)    | >35% less time, comparable regret  | 35% below (interval > 35%)  | interval within ±20%            |
 * | synthetic binary (K = 1)         | >80% less time, comparable regret  | 80% below (interval > 80%)  | interval within ±20%            |
 *
 * A half `agrees` when its rule is met, `disagrees` when the interval excludes it (slower; ≈X outside
 * the interval; >X above the interval's upper end; entirely outside ±20%), else it is `inconclusive`.
 * "Comparable regret" is two-sided: a regret 30% lower is as far from the paper as 30% higher.
 *
 * The regret rule's negative control: the same rule applied to Random in EOFD-MLogB's place, paired
 * against the same OFUL-MLogB label on the same trials. Unless Random fails it (its interval excludes
 * the rule), the rule cannot tell a learner from guessing at this size: `cannot judge at this size`.
 *
 * Verdicts, in order of precedence (each claim is one prespecified comparison and `holds` needs both
 * halves: an intersection–union test, so the intervals are not adjusted for multiplicity):
 *
 * - `not measured`: no experiment of that setting, EOFD-MLogB or every OFUL-MLogB label absent, or a
 *   log ratio undefined (a final regret or time that is not > 0 in some trial);
 * - `not judged`: the run is still in progress; fewer than 3 trials; a learner (EOFD-MLogB, the
 *   OFUL-MLogB label) whose regret is not shown below Random's (the report's Random check) when Random
 *   ran; Random did not run (no negative control); or timings taken with more than one unit at once,
 *   or not recorded (manifest `timing`); several labels running EOFD-MLogB with none its side (no
 *   numbers then). The numbers are still given;
 * - `does not hold`: a half disagrees;
 * - `cannot judge at this size`: the regret half agrees, and Random in EOFD-MLogB's place agrees too
 *   or is inconclusive (not shown to fail);
 * - `inconclusive`: a half is inconclusive (or the control's ratio is undefined);
 * - `holds`: both halves agree and Random in EOFD-MLogB's place fails the regret rule.
 *
 * Every side is chosen by the policy its label runs (the manifest's config.variants, else the label's
 * own name), never by the label (summarize.ts sideOf): EOFD-MLogB's side is the one label running
 * EOFD-MLogB, of several the one labelled EOFD-MLogB, else the one with no params of its own, else
 * the claim is `not judged`; Random's is the first label running Random. Against which OFUL-MLogB:
 * every label of the experiment whose policy is OFUL-MLogB, one row each, in policy order, each judged
 * on its own paired log ratios by the rules above. The paper costs OFUL-MLogB at O(K³d³) per round (`oful_solver:
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
import { describeRandomCheck, describeRegretOverhead, describeTimeReduction, formatInterval, formatShort } from './format.js';
import { EOFD, OFUL, eofdSide, type Comparison, type Estimate, type ExperimentSummary, type OfulComparison, type OfulSolverName } from './summarize.js';

export type Verdict = 'holds' | 'does not hold' | 'cannot judge at this size' | 'inconclusive' | 'not judged' | 'not measured';

/** Every verdict, in the order the docs define them. */
export const VERDICTS: readonly Verdict[] = ['holds', 'does not hold', 'cannot judge at this size', 'inconclusive', 'not judged', 'not measured'];

/** Fewest trials a claim is judged on. */
export const MIN_TRIALS = 3;

/**
 * A number as the paper states it, in % (a time reduction or a regret overhead):
 * `about` ≈X (X must lie inside the interval), `over` >X (the interval must lie above X),
 * `comparable` (the interval must lie within ±X).
 */
export type PaperNumber = { kind: 'about'; pct: number } | { kind: 'over'; pct: number } | { kind: 'comparable'; withinPct: number };

export interface PaperClaim {
  id: 'mnist' | 'synthetic-multinomial' | 'synthetic-binary';
  /** The claim in the paper's words (Section 4). */
  text: string;
  /** Which experiments it is about: environment type and a range of K. */
  setting: { environment: string; minK: number; maxK: number; paperD: number; label: string };
  /** Paper value, as the paper states it. */
  paper: string;
  /** The per-round time reduction the paper states (about or over). */
  time: PaperNumber & { kind: 'about' | 'over' };
  /** The regret overhead the paper states. */
  regret: PaperNumber;
}

export const PAPER_CLAIMS: readonly PaperClaim[] = [
  {
    id: 'mnist',
    text: 'On MNIST, EOFD-MLogB cuts the per-round time of OFUL-MLogB by about 80% with about 10% regret overhead',
    setting: { environment: 'mnist', minK: 1, maxK: Infinity, paperD: 785, label: 'MNIST' },
    paper: '≈80% less time, ≈10% more regret',
    time: { kind: 'about', pct: 80 },
    regret: { kind: 'about', pct: 10 },
  },
  {
    id: 'synthetic-multinomial',
    text: 'On synthetic multinomial data, EOFD-MLogB cuts the per-round time by over 35% with comparable regret',
    setting: { environment: 'synthetic', minK: 2, maxK: Infinity, paperD: 100, label: 'synthetic, K ≥ 2' },
    paper: '>35% less time, comparable regret',
    time: { kind: 'over', pct: 35 },
    regret: { kind: 'comparable', withinPct: 20 },
  },
  {
    id: 'synthetic-binary',
    text: 'On synthetic binary data, EOFD-MLogB cuts the per-round time by over 80% with comparable regret',
    setting: { environment: 'synthetic', minK: 1, maxK: 1, paperD: 400, label: 'synthetic, K = 1' },
    paper: '>80% less time, comparable regret',
    time: { kind: 'over', pct: 80 },
    regret: { kind: 'comparable', withinPct: 20 },
  },
];

/** EOFD-MLogB's per-round time against OFUL-MLogB's: the time ratio's interval below 1, above 1, or neither. */
export type TimeDirection = 'faster' | 'slower' | 'inconclusive';
/** EOFD-MLogB's final regret against OFUL-MLogB's: the regret ratio's interval above 1, below, neither, or 1 in every trial. */
export type RegretDirection = 'more' | 'less' | 'inconclusive' | 'identical';
/** Where the paper's number lies relative to the measured interval. */
export type PaperPosition = 'inside' | 'below' | 'above';
/** A half of a claim (or the control) against its rule. */
export type RuleOutcome = 'agrees' | 'disagrees' | 'inconclusive';

/** The regret rule applied to Random in EOFD-MLogB's place (the negative control). */
export interface ControlRow {
  /** The Random label. */
  random: string;
  trials: number;
  /** Random's regret overhead over the same OFUL-MLogB label in %, paired 95% interval; null when undefined. */
  regretOverheadPct: Estimate | null;
  /** The regret rule on it: `agrees` means Random would pass too; null when the ratio is undefined. */
  outcome: RuleOutcome | null;
}

/** One claim evaluated on one experiment (or on none: then `experiment` is null). */
export interface ClaimRow {
  id: PaperClaim['id'];
  claim: string;
  /** The setting the claim is about, e.g. "synthetic, K = 1". */
  setting: string;
  /** The experiment measured, or null when no experiment matched. */
  experiment: string | null;
  paper: string;
  /** The rules applied, in words. */
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
  /** Is EOFD-MLogB faster; null when not measured. */
  timeDirection: TimeDirection | null;
  /** Where the paper's time reduction lies relative to the interval; null when not measured. */
  timePaperPosition: PaperPosition | null;
  /** More or less regret than OFUL-MLogB; null when not measured. */
  regretDirection: RegretDirection | null;
  /** Where the paper's regret overhead (0% for "comparable") lies relative to the interval; null when not measured. */
  regretPaperPosition: PaperPosition | null;
  /** Random in EOFD-MLogB's place; null when not measured or Random did not run. */
  randomControl: ControlRow | null;
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

/** The paper's number of a half, as it is compared: X for ≈X and >X, 0 for "comparable". */
function paperPct(n: PaperNumber): number {
  return n.kind === 'comparable' ? 0 : n.pct;
}

/** A rule in words: "faster, 80% inside", "interval above 35%", "within ±20%". */
function ruleText(n: PaperNumber, faster: boolean): string {
  if (n.kind === 'comparable') return `95% CI within ±${n.withinPct}%`;
  const rule = n.kind === 'about' ? `${n.pct}% inside the 95% CI` : `95% CI above ${n.pct}%`;
  return faster && n.kind === 'about' ? `faster and ${rule}` : rule;
}

function ruleOf(claim: PaperClaim): string {
  return `time reduction: ${ruleText(claim.time, true)}; regret overhead: ${ruleText(claim.regret, false)}, and Random in EOFD-MLogB's place not passing it`;
}

/** The ends of a 95% interval. */
export type Interval = Pick<Estimate, 'low' | 'high'>;

/** Where `x` lies relative to [low, high]: inside (ends included), below or above. */
export function positionOf(x: number, ci: Interval): PaperPosition {
  return x < ci.low ? 'below' : x > ci.high ? 'above' : 'inside';
}

/** The direction of a time reduction's interval: above 0 is faster. */
export function timeDirectionOf(ci: Interval): TimeDirection {
  return ci.low > 0 ? 'faster' : ci.high < 0 ? 'slower' : 'inconclusive';
}

/** The direction of a regret overhead's interval; identical when it is 0 with no spread. */
export function regretDirectionOf(ci: Interval): RegretDirection {
  if (ci.low === 0 && ci.high === 0) return 'identical';
  return ci.low > 0 ? 'more' : ci.high < 0 ? 'less' : 'inconclusive';
}

/** A regret overhead's interval against the paper's regret number (the same rule for EOFD-MLogB and for Random). */
export function regretOutcome(n: PaperNumber, ci: Interval): RuleOutcome {
  if (n.kind === 'comparable') {
    const b = n.withinPct;
    if (ci.low >= -b && ci.high <= b) return 'agrees';
    return ci.high < -b || ci.low > b ? 'disagrees' : 'inconclusive';
  }
  return halfOutcome(n, ci);
}

/** A time reduction's interval against the paper's time number: also faster when the paper gives ≈X. */
export function timeOutcome(n: PaperClaim['time'], ci: Interval): RuleOutcome {
  const magnitude = halfOutcome(n, ci);
  if (n.kind === 'over') return magnitude;
  const direction = timeDirectionOf(ci);
  if (direction === 'slower' || magnitude === 'disagrees') return 'disagrees';
  return direction === 'faster' ? magnitude : 'inconclusive';
}

/** ≈X: X inside the interval; >X: the interval entirely above X (disagrees when entirely at or below it). */
function halfOutcome(n: { kind: 'about' | 'over'; pct: number }, ci: Interval): RuleOutcome {
  if (n.kind === 'about') return positionOf(n.pct, ci) === 'inside' ? 'agrees' : 'disagrees';
  return ci.low > n.pct ? 'agrees' : ci.high <= n.pct ? 'disagrees' : 'inconclusive';
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

type Evaluation = Omit<ClaimRow, 'id' | 'claim' | 'setting' | 'experiment' | 'paper' | 'rule' | 'reference' | 'solver' | 'versus'>;

function notMeasured(reason: string): Evaluation {
  return {
    trials: null,
    regretOverheadPct: null,
    timeReductionPct: null,
    timeDirection: null,
    timePaperPosition: null,
    regretDirection: null,
    regretPaperPosition: null,
    randomControl: null,
    measured: '–',
    note: null,
    verdict: 'not measured',
    reason,
  };
}

/** The claim on one experiment against one OFUL-MLogB label (null: the experiment has none). */
function evaluate(claim: PaperClaim, experiment: ExperimentSummary, oful: OfulComparison | null): Evaluation {
  const eofd = eofdSide(experiment);
  const missing = [...(eofd.label === null && eofd.note === null ? [EOFD] : []), ...(oful === null ? [OFUL] : [])];
  if (missing.length > 0 || oful === null) return notMeasured(`${missing.join(' and ')} did not run in this experiment`);
  // Several labels run EOFD-MLogB and none is its side (sideOf): the numbers would be one variant's.
  if (eofd.label === null) return { ...notMeasured(eofd.note as string), verdict: 'not judged' };
  const eofdLabel = eofd.label;
  const pair = oful.comparison;
  if (pair === null) {
    const p = experiment.progress;
    return notMeasured(
      p.complete
        ? `${eofdLabel} and ${oful.label} share no trial`
        : `run in progress (${p.finishedUnits} of ${p.plannedUnits} units finished): no trial has finished for both ${eofdLabel} and ${oful.label} yet`,
    );
  }
  const { regretOverhead: regret, timeReduction: time } = pair;
  if (time === null || regret === null) return notMeasured(`${pair.timeRatioNote ?? pair.regretRatioNote}, so the percentage is undefined`);
  const d = experiment.setting.d;
  const c = oful.randomControl;
  const control: ControlRow | null =
    c === null
      ? null
      : { random: c.random, trials: c.trials, regretOverheadPct: c.regretOverhead, outcome: c.regretOverhead === null ? null : regretOutcome(claim.regret, c.regretOverhead) };
  const unjudged = notJudgedReasons(experiment, pair, eofdLabel, oful.label, control);
  const judged = unjudged.length > 0 ? { verdict: 'not judged' as const, reason: unjudged.join('; ') } : judge(claim, time, regret, control as ControlRow, sameDecisions(experiment, eofdLabel, oful.label));
  return {
    trials: pair.trials,
    regretOverheadPct: regret,
    timeReductionPct: time,
    timeDirection: timeDirectionOf(time),
    timePaperPosition: positionOf(claim.time.pct, time),
    regretDirection: regretDirectionOf(regret),
    regretPaperPosition: positionOf(paperPct(claim.regret), regret),
    randomControl: control,
    measured: `${describeTimeReduction(time.estimate)}, ${describeRegretOverhead(regret.estimate)}`,
    note: d === claim.setting.paperD ? null : `d = ${d}; the paper used d = ${claim.setting.paperD}`,
    ...judged,
  };
}

/** The EOFD-MLogB label played the same action as `label` in every round of every trial. */
function sameDecisions(experiment: ExperimentSummary, eofdLabel: string, label: string): boolean {
  return experiment.identical.some((g) => g.includes(eofdLabel) && g.includes(label));
}

/** Why the experiment cannot support a verdict, if it cannot: every applicable reason, in order. */
function notJudgedReasons(experiment: ExperimentSummary, pair: Comparison, eofdLabel: string, ofulLabel: string, control: ControlRow | null): string[] {
  const reasons: string[] = [];
  const progress = experiment.progress;
  if (!progress.complete) {
    reasons.push(`run in progress (${progress.finishedUnits} of ${progress.plannedUnits} units finished): numbers so far, nothing is judged until it completes`);
  }
  if (pair.trials < MIN_TRIALS) reasons.push(`only ${pair.trials} trial${pair.trials === 1 ? '' : 's'}, at least ${MIN_TRIALS} are needed`);
  for (const learner of [eofdLabel, ofulLabel]) {
    const check = experiment.randomCheck.find((c) => c.policy === learner);
    // With one trial there is no interval; the trial count above already says why.
    if (check !== undefined && check.regret.n >= 2 && check.flagged) reasons.push(`${learner}'s regret is not shown below ${check.random}'s (${describeRandomCheck(check)})`);
  }
  if (control === null) reasons.push('Random did not run, so the regret rule has no negative control');
  else if (control.trials < MIN_TRIALS && pair.trials >= MIN_TRIALS) reasons.push(`${control.random} has only ${control.trials} trial${control.trials === 1 ? '' : 's'} paired with ${ofulLabel}, at least ${MIN_TRIALS} are needed for the negative control`);
  const jobs = experiment.timing.jobs;
  if (jobs === null) reasons.push('how the timings were taken is not recorded, so time is not judged');
  else if (jobs > 1) reasons.push(`timings were taken with ${jobs} units at once (rerun with --timing), so time is not judged`);
  return reasons;
}

/** "the paper's 80% lies below the 95% CI [87.2, 92.2]". */
function positionText(what: string, pct: number, ci: Estimate): string {
  const position = positionOf(pct, ci);
  return `the paper's ${formatShort(pct)}% lies ${position === 'inside' ? 'inside' : position} the ${what} 95% CI ${formatInterval(ci.low, ci.high)}`;
}

function timeText(claim: PaperClaim, ci: Estimate): string {
  const direction = timeDirectionOf(ci);
  const head = direction === 'inconclusive' ? 'not shown faster or slower' : direction;
  return `${head}: ${positionText('time reduction', claim.time.pct, ci)}`;
}

function regretText(n: PaperNumber, ci: Estimate, subject = 'regret overhead'): string {
  const interval = `${subject} 95% CI ${formatInterval(ci.low, ci.high)}`;
  if (n.kind !== 'comparable') return positionText(subject, n.pct, ci);
  const b = n.withinPct;
  if (ci.low >= -b && ci.high <= b) return `${interval} lies within ±${b}%`;
  if (ci.high < -b) return `${interval} lies below −${b}%`;
  if (ci.low > b) return `${interval} lies above +${b}%`;
  const straddled = [ci.low < -b ? `−${b}%` : null, ci.high > b ? `+${b}%` : null].filter((x) => x !== null);
  return `${interval} straddles ${straddled.join(' and ')}`;
}

/** The verdict from both halves and the control, in the order of precedence above. */
function judge(claim: PaperClaim, time: Estimate, regret: Estimate, control: ControlRow, same: boolean): Pick<ClaimRow, 'verdict' | 'reason'> {
  const timeResult = timeOutcome(claim.time, time);
  const regretResult = regretOutcome(claim.regret, regret);
  const parts = { time: `time: ${timeText(claim, time)}`, regret: `regret: ${regretText(claim.regret, regret)}${same ? ` (${EOFD} decided as OFUL-MLogB in every round)` : ''}` };
  const ci = control.regretOverheadPct;
  const controlText =
    ci === null
      ? `${control.random}'s regret ratio is undefined, so the regret rule has no negative control`
      : `${control.random} in ${EOFD}'s place ${controlWord(control.outcome) === 'inconclusive' ? 'is not shown to fail' : `${controlWord(control.outcome)}`} the same rule (${regretText(claim.regret, ci)})`;
  const disagreeing = [timeResult === 'disagrees' ? parts.time : null, regretResult === 'disagrees' ? parts.regret : null].filter((x) => x !== null);
  if (disagreeing.length > 0) return { verdict: 'does not hold', reason: disagreeing.join('; ') };
  // A rule that Random does not fail tells no learner from guessing at this size.
  if (regretResult === 'agrees' && (control.outcome === 'agrees' || control.outcome === 'inconclusive')) {
    return { verdict: 'cannot judge at this size', reason: `${parts.regret}, but ${controlText}` };
  }
  const open = [timeResult === 'inconclusive' ? parts.time : null, regretResult === 'inconclusive' ? parts.regret : null].filter((x) => x !== null);
  if (control.outcome === null) open.push(controlText);
  if (open.length > 0) return { verdict: 'inconclusive', reason: open.join('; ') };
  return { verdict: 'holds', reason: `${parts.time}; ${parts.regret}; ${controlText}` };
}

/** The control's outcome as a word about Random: it passes the regret rule, fails it, or neither. */
export function controlWord(outcome: RuleOutcome | null): string {
  return outcome === null ? 'undefined' : outcome === 'agrees' ? 'passes' : outcome === 'disagrees' ? 'fails' : 'inconclusive';
}

/** "faster; paper's 80% below" (time) or "identical; paper's 0% inside" (regret); "–" when not measured. */
export function halfSummary(c: ClaimRow, half: 'time' | 'regret'): string {
  const claim = PAPER_CLAIMS.find((p) => p.id === c.id) as PaperClaim;
  const direction = half === 'time' ? c.timeDirection : c.regretDirection;
  const position = half === 'time' ? c.timePaperPosition : c.regretPaperPosition;
  if (direction === null || position === null) return '–';
  return `${direction}; paper's ${formatShort(paperPct(half === 'time' ? claim.time : claim.regret))}% ${position}`;
}

/** "fails: +150.0% [140.1, 160.2]"; "not run" without Random, "–" when not measured. */
export function controlSummary(c: ClaimRow, formatEstimate: (x: Estimate) => string): string {
  if (c.experiment === null || c.trials === null) return '–';
  const r = c.randomControl;
  if (r === null) return 'not run';
  return r.regretOverheadPct === null ? controlWord(null) : `${controlWord(r.outcome)}: ${formatEstimate(r.regretOverheadPct)}`;
}
