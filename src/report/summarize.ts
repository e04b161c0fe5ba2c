/**
 * The numbers of the report, per experiment and policy (Section 4: "means over 10 trials; shaded
 * regions and error bars show one sample standard deviation").
 *
 * - final regret: summary.csv's final_regret, mean ± sample std over trials;
 * - per-round time: per trial mean_select_ms + mean_update_ms (time spent inside the policy,
 *   DESIGN §4), then mean ± sample std over trials;
 * - state bytes, ρ_{1:T} (sketch_error) and projections taken: means over trials; Δ_T and β_T
 *   (eq. (27)/(36)) mean ± std;
 * - paired comparisons (DESIGN §4 "Statistics"): every trial gives all policies the same actions and
 *   outcome uniforms, so policy A and reference B are compared trial by trial. Final regret as the
 *   difference A − B (95% Student-t interval of the mean difference); ratios — regret as % of B, the
 *   per-round time reduction — as per-trial log ratios ln(A/B), Student-t interval of their mean,
 *   back-transformed (src/stats/ratio.ts), so a reduction stays below 100%. A log ratio needs every
 *   value > 0: regret can be 0, so the regret ratio may be undefined (then the comparison says why);
 * - the comparisons reported: each policy against ONE reference (default the first learner of the
 *   experiment's policy list), or every pair; per quantity (final regret, per-round time) they form
 *   one family, adjusted by Holm (src/stats/holm.ts), and the verdict lower / higher / inconclusive
 *   is read from the adjusted interval. Time is not compared with Random (no model: a time ratio
 *   against it says nothing);
 * - the Random check: every learner (any policy but Random) against Random, final regret difference,
 *   Holm over the learners; flagged when the adjusted interval does not lie below 0;
 * - a Holm family counts distinct decision sequences: policies that played the same action in every
 *   round of every trial (`identical`) have the same final regrets, so their tests are one test, made
 *   once and shared (a copy of OFUL-MLogB with another solver is not a second learner), and a policy
 *   against one that decided as it did is no test at all (family 0, verdict identical);
 * - EOFD-MLogB against OFUL-MLogB (`comparison`): that pair's raw 95% intervals; and against every
 *   label whose policy is OFUL-MLogB (`ofulComparisons`, the paper's claims: e.g. OFUL-MLogB and a
 *   variant with params.oful_solver: textbook), each with the solver it ran and the negative control of
 *   the regret rule: Random's regret ratio against the same label on the same trials;
 * - Fig. 1's curves: mean cumulative regret, its sample std and the half-width of the 95% interval
 *   of the mean at each round, over trials, downsampled to at most 500 evenly spaced rounds that
 *   include the first and the last.
 *
 * - a run in progress: its units still running (or cut short) are listed apart (`partial`: rounds so
 *   far, cumulative regret and time per round there); they enter no number above, no comparison and
 *   no claim.
 *
 * Policy strings are labels (several variants of one policy may run under their own labels);
 * policies are listed in the experiment's configured order (the manifest's config.policies).
 */
import { ofulSolverOption, type OfulSolver } from '../base/policy-catalogue.js';
import { POLICY_ORDER } from '../base/policy-catalogue.js';
import { readManifest, type ExperimentData, type Progress, type Provenance, type Setting, type Timing } from '../results/read.js';
import type { SummaryRow } from '../results/records.js';
import { mean, sampleStd } from '../stats/descriptive.js';
import { holm, type HolmResult } from '../stats/holm.js';
import { pairedDifference, pairedLogRatio, tTestP, type PairedInterval } from '../stats/paired.js';
import { percentChange, percentReduction, type Estimate } from '../stats/ratio.js';

export type { PairedInterval } from '../stats/paired.js';
export type { Estimate } from '../stats/ratio.js';

/** Policy labels as the paper spells them. */
export const EOFD = 'EOFD-MLogB';
export const OFUL = 'OFUL-MLogB';
export const RANDOM = 'Random';

/** Most points a curve keeps (Fig. 1). */
export const MAX_CURVE_POINTS = 500;

/** Confidence level of every interval in the report (before Holm's adjustment). */
export const CONFIDENCE = 0.95;
/** Family-wise error rate of Holm's adjustment. */
export const ALPHA = 1 - CONFIDENCE;

export interface MeanStd {
  mean: number;
  /** Sample standard deviation (divisor n − 1); 0 for a single trial, which shows no spread. */
  std: number;
  /** Trials behind the mean (with one, `std` says nothing and is not printed). */
  n: number;
}

export interface PolicySummary {
  policy: string;
  trials: number;
  finalRegret: MeanStd;
  /** Per-round time in ms (select + update), mean ± std over trials of each trial's mean. */
  roundMs: MeanStd;
  /** Mean over trials of the mean select time (ms). */
  selectMs: number;
  /** Mean over trials of the mean update time (ms). */
  updateMs: number;
  /** Bytes of numerical state, mean over trials. */
  stateBytes: number;
  /** ρ_{1:T}, mean over trials (0 for exact policies). */
  sketchError: number;
  /** Projections taken (eq. (9)), mean over trials. */
  projections: number;
  /** ‖W_T − W*‖_F mean ± std, or null when any trial lacks it (W* unknown). */
  parameterError: MeanStd | null;
  /** Δ_T = 1 + ρ_{1:T}/λ mean ± std, or null when any trial lacks it (Random). */
  deltaT: MeanStd | null;
  /** β_T, the confidence radius at T, mean ± std, or null when any trial lacks it (Random). */
  betaT: MeanStd | null;
  /** m_T, the final sketch size (an adaptive m: the size reached), mean ± std, or null when any trial lacks it (unsketched policies, older files). */
  mT: MeanStd | null;
}

/**
 * Policy A against reference B over the trials both ran, paired by trial index, with raw 95%
 * Student-t intervals (ends NaN for fewer than 2 trials).
 */
export interface PairedComparison {
  policy: string;
  reference: string;
  /** Number of pairs. */
  trials: number;
  /** Final regret A − B. */
  regret: PairedInterval;
  /** ln(regret_A/regret_B) per trial, interval of the mean on the log scale; null when a final regret is not > 0. */
  regretLogRatio: PairedInterval | null;
  /** 100·(exp(·) − 1) of `regretLogRatio`: A's regret overhead in % of B's (> −100%); null with it. */
  regretOverhead: Estimate | null;
  /** Why `regretLogRatio` is null (which trial's regret is not > 0); null when it is defined. */
  regretRatioNote: string | null;
  /** ln(t_A/t_B) per trial, t the per-round time; null when a time is not > 0. */
  timeLogRatio: PairedInterval | null;
  /** 100·(1 − exp(·)) of `timeLogRatio`: A's per-round time reduction in % of B's (< 100%: positive when A is faster). */
  timeReduction: Estimate | null;
  /** Why `timeLogRatio` is null; null when it is defined. */
  timeRatioNote: string | null;
}

/**
 * lower / higher: the adjusted interval lies below / above 0 (ratio 1); inconclusive: it does not (or
 * there is none); identical: the difference is exactly 0 in every trial.
 */
export type ComparisonVerdict = 'lower' | 'higher' | 'inconclusive' | 'identical';

/** One quantity of a comparison within its family: raw p, Holm's adjustment (src/stats/holm.ts) and the verdict. */
export interface HolmTest extends HolmResult {
  verdict: ComparisonVerdict;
}

/** A reported comparison: the paired one, each quantity tested within its family. */
export interface TestedComparison extends PairedComparison {
  /** Final regret A − B; family: every reported comparison of the experiment. */
  regretTest: HolmTest;
  /**
   * ln(t_A/t_B); family: the reported comparisons that compare time (neither side Random, times > 0).
   * null when this one does not.
   */
  timeTest: HolmTest | null;
}

/** A learner against Random: final regret difference, Holm over the experiment's learners. */
export interface RandomCheck {
  policy: string;
  /** The Random label compared with. */
  random: string;
  /** Final regret learner − Random, raw 95% interval. */
  regret: PairedInterval;
  test: HolmTest;
  /** Not shown below Random's regret: the adjusted interval's upper end is ≥ 0, or there is no interval. */
  flagged: boolean;
}

/** EOFD-MLogB against OFUL-MLogB (raw 95% intervals), with the two point estimates the figures and report.csv print. */
export interface Comparison extends PairedComparison {
  /** `regretOverhead.estimate`: 100·(geometric mean ratio − 1); null when undefined. */
  regretOverheadPct: number | null;
  /** `timeReduction.estimate`: 100·(1 − geometric mean ratio); null when undefined. */
  timeReductionPct: number | null;
}

/** How an OFUL-MLogB label computed its round (params.oful_solver; base/policy-catalogue.ts OFUL_SOLVERS). */
export type OfulSolverName = OfulSolver;

/** EOFD-MLogB against one label whose policy is OFUL-MLogB (raw 95% intervals). */
export interface OfulComparison {
  /** The OFUL-MLogB label, e.g. "OFUL-MLogB" or "OFUL-textbook". */
  label: string;
  /** Its params.oful_solver (the manifest's derived.policies, else its params; absent: its declared default). */
  solver: OfulSolverName;
  /** null when EOFD-MLogB or this label has no finished trial, or they share none. */
  comparison: Comparison | null;
  /**
   * The negative control of the claims' regret rule: Random in EOFD-MLogB's place, paired against this
   * label on the trials of `comparison`; null when Random did not run (or shares none of them).
   */
  randomControl: RandomControl | null;
}

/** Random's final regret against an OFUL-MLogB label, as a ratio (the claims' regret rule applied to it). */
export interface RandomControl {
  /** The Random label. */
  random: string;
  trials: number;
  /** 100·(exp(·) − 1) of the log ratio's interval: Random's regret overhead in % of the label's; null when undefined. */
  regretOverhead: Estimate | null;
  /** Why `regretOverhead` is null; null when it is defined. */
  regretRatioNote: string | null;
}

/** A unit of a run in progress that has not finished: what its rounds so far show (never judged). */
export interface PartialUnit {
  policy: string;
  trial: number;
  /** Rounds written so far (of the experiment's T). */
  rounds: number;
  /** Cumulative regret at round `rounds`. */
  cumRegret: number;
  /** Mean per-round time so far (select + update, ms). */
  roundMs: number;
}

/** Fig. 1 data for one policy: rounds t (1-based) and the mean and spread of cumulative regret there. */
export interface RegretCurve {
  policy: string;
  t: number[];
  mean: number[];
  std: number[];
  /** Half-width of the 95% Student-t interval of the mean; null for fewer than 2 trials. */
  ci95: number[] | null;
}

/** Which comparisons are reported (`eofd report --reference LABEL`, `--all-pairs`). */
export interface SummaryOptions {
  /** Compare each policy with this label; default, and where it did not run, the first learner that ran. */
  reference?: string;
  /** Compare every pair of policies instead. */
  allPairs?: boolean;
}

export interface ExperimentSummary {
  name: string;
  dir: string;
  setting: Setting;
  derived: Record<string, unknown>;
  provenance: Provenance;
  /** How the units were timed (most units at once, load, cores); nulls when not recorded. */
  timing: Timing;
  /** Finished units of the planned ones; a run in progress is summarised on its finished units. */
  progress: Progress;
  /** The policies with at least one finished trial (all of them once the run is complete), in configured order. */
  policies: PolicySummary[];
  /** Units of a run in progress not finished yet, with rounds written (manifest order); never judged. */
  partial: PartialUnit[];
  /** The labels whose policy is Random (the manifest's config.variants, else the label "Random"). */
  randomLabels: string[];
  /** null when EOFD-MLogB or OFUL-MLogB did not run in this experiment (each side chosen by sideOf). */
  comparison: Comparison | null;
  /**
   * The claims' and `comparison`'s EOFD-MLogB side (sideOf) when it is not the label EOFD-MLogB; absent
   * when it is (so a report of the usual labels reads as before): see eofdSide.
   */
  eofd?: Side;
  /**
   * EOFD-MLogB against each configured label whose policy is OFUL-MLogB (manifest config.variants, else
   * the label "OFUL-MLogB"), in policy order; empty when there is none. The claims are judged on these.
   */
  ofulComparisons: OfulComparison[];
  /** The reference of `comparisons`; null with all pairs, or when no policy ran. */
  reference: string | null;
  /** Why `reference` is not the one asked for (it did not run here); null otherwise. */
  referenceNote: string | null;
  /**
   * Each other policy against `reference` (policy order), or with all pairs every pair (A, B), A after
   * B in policy order. Holm over these, per quantity.
   */
  comparisons: TestedComparison[];
  /** Every learner against Random (empty when Random did not run). */
  randomCheck: RandomCheck[];
  curves: RegretCurve[];
  /**
   * Groups (two or more, policy order) of policies that played the same action in every round of every
   * trial, all trials finished (so one curve of Fig. 1 hides the others); empty when none did.
   */
  identical: string[][];
  /**
   * m_t against t (mean over trials, as a RegretCurve) of each policy whose sketch size changed within a
   * trial (params.m: adaptive), read from the trial files' column m; empty when none did.
   */
  sketchCurves: RegretCurve[];
}

export function meanStd(xs: ArrayLike<number>): MeanStd {
  return { mean: mean(xs), std: sampleStd(xs), n: xs.length };
}

/** mean ± std of per-trial values, or null when any trial lacks the value. */
function meanStdOrNull(values: readonly (number | null)[]): MeanStd | null {
  return values.every((v): v is number => v !== null) ? meanStd(values) : null;
}

/**
 * 0-based indices of at most `maxPoints` evenly spaced rounds out of `length`, always including the
 * first and the last: i_j = round(j·(length − 1)/(maxPoints − 1)). All rounds when length ≤ maxPoints.
 */
export function downsampleIndices(length: number, maxPoints: number = MAX_CURVE_POINTS): number[] {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`length must be an integer ≥ 0, got ${length}`);
  if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`maxPoints must be an integer ≥ 2, got ${maxPoints}`);
  if (length <= maxPoints) return Array.from({ length }, (_, i) => i);
  const out: number[] = [];
  for (let j = 0; j < maxPoints; j++) out.push(Math.round((j * (length - 1)) / (maxPoints - 1)));
  return out;
}

/**
 * Compares policy labels for lists that span experiments (the figures' legends): the registry's
 * policies in its order (POLICY_ORDER), then other labels (variants, unknown policies) by name.
 * Within one experiment policies keep its configured order.
 */
export function comparePolicies(a: string, b: string): number {
  const ia = POLICY_ORDER.indexOf(a);
  const ib = POLICY_ORDER.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A trial's per-round time: time inside the policy, select + update (ms). */
function roundMsOf(row: SummaryRow): number {
  return row.meanSelectMs + row.meanUpdateMs;
}

function summarizePolicy(policy: string, rows: SummaryRow[]): PolicySummary {
  const pick = (f: (r: SummaryRow) => number) => rows.map(f);
  return {
    policy,
    trials: rows.length,
    finalRegret: meanStd(pick((r) => r.finalRegret)),
    roundMs: meanStd(pick(roundMsOf)),
    selectMs: mean(pick((r) => r.meanSelectMs)),
    updateMs: mean(pick((r) => r.meanUpdateMs)),
    stateBytes: mean(pick((r) => r.stateBytes)),
    sketchError: mean(pick((r) => r.sketchError)),
    projections: mean(pick((r) => r.projections)),
    parameterError: meanStdOrNull(rows.map((r) => r.parameterError)),
    deltaT: meanStdOrNull(rows.map((r) => r.deltaT)),
    betaT: meanStdOrNull(rows.map((r) => r.betaT)),
    mT: meanStdOrNull(rows.map((r) => r.mT ?? null)),
  };
}

type Pair = readonly [SummaryRow, SummaryRow];

/** Why the log ratio of `what` is undefined on these pairs (the first value not > 0), or null. */
function ratioNote(pairs: readonly Pair[], value: (r: SummaryRow) => number, what: string): string | null {
  for (const r of pairs.flat()) {
    const v = value(r);
    if (!(v > 0 && v < Infinity)) return `${r.policy}'s ${what} is ${v} in trial ${r.trial}; a log ratio needs values > 0`;
  }
  return null;
}

/**
 * A against B over the trials both ran, paired by trial index; null when they share no trial.
 * `rowsA` and `rowsB` are one policy's summary rows each.
 */
export function pairedComparison(rowsA: readonly SummaryRow[], rowsB: readonly SummaryRow[]): PairedComparison | null {
  const byTrial = new Map(rowsB.map((r) => [r.trial, r]));
  const pairs = rowsA.flatMap((a): Pair[] => {
    const b = byTrial.get(a.trial);
    return b === undefined ? [] : [[a, b]];
  });
  const first = pairs[0];
  if (first === undefined) return null;
  const column = (side: 0 | 1, f: (r: SummaryRow) => number) => pairs.map((p) => f(p[side]));
  const finalRegret = (r: SummaryRow) => r.finalRegret;
  const regretLogRatio = pairedLogRatio(column(0, finalRegret), column(1, finalRegret), CONFIDENCE);
  const timeLogRatio = pairedLogRatio(column(0, roundMsOf), column(1, roundMsOf), CONFIDENCE);
  return {
    policy: first[0].policy,
    reference: first[1].policy,
    trials: pairs.length,
    regret: pairedDifference(column(0, finalRegret), column(1, finalRegret), CONFIDENCE),
    regretLogRatio,
    regretOverhead: regretLogRatio === null ? null : percentChange(regretLogRatio),
    regretRatioNote: regretLogRatio === null ? ratioNote(pairs, finalRegret, 'final regret') : null,
    timeLogRatio,
    timeReduction: timeLogRatio === null ? null : percentReduction(timeLogRatio),
    timeRatioNote: timeLogRatio === null ? ratioNote(pairs, roundMsOf, 'per-round time') : null,
  };
}

/** The verdict an adjusted interval gives (of a difference, or of a log ratio: 0 is ratio 1). */
export function verdictOf(x: PairedInterval): ComparisonVerdict {
  return x.high < 0 ? 'lower' : x.low > 0 ? 'higher' : 'inconclusive';
}

/** Every trial's difference is exactly 0 (mean and sample std both 0 over at least one pair). */
export function zeroDifference(x: PairedInterval): boolean {
  return x.n >= 1 && x.mean === 0 && x.std === 0;
}

/**
 * Holm over one family (one quantity), each result with its verdict. Members with the same key are one
 * test (the same decisions, so the same numbers): made once, by the first of them, and shared. A member
 * whose key is null compares a decision sequence with itself: no test, in no family (family 0, its raw
 * interval, verdict identical).
 */
export function holmTests(intervals: readonly PairedInterval[], keys?: readonly (string | null)[]): HolmTest[] {
  const first = intervals.map((_, i) => (keys === undefined ? i : keys[i] === null ? -1 : keys.indexOf(keys[i] as string)));
  const members = [...new Set(first.filter((i) => i >= 0))];
  const tested = holm(members.map((i) => intervals[i] as PairedInterval), ALPHA);
  return intervals.map((x, i) => {
    if (first[i] === -1) return { family: 0, p: tTestP(x), adjustedP: tTestP(x), adjusted: x, rejected: false, verdict: 'identical' };
    const k = members.indexOf(first[i] as number);
    const r = tested[k] as HolmResult;
    return { ...r, verdict: zeroDifference(intervals[members[k] as number] as PairedInterval) ? 'identical' : verdictOf(r.adjusted) };
  });
}

/** Label → the first label (policy order) of its group of identical decisions, or itself. */
export function decisionKeys(identical: readonly (readonly string[])[]): (label: string) => string {
  return (label) => identical.find((g) => g.includes(label))?.[0] ?? label;
}

/**
 * Tests each comparison's quantities within their families: final regret over all (a pair of decision
 * sequences counted once; a sequence against itself not at all), time over those that compare time
 * (every pair: timings differ even where decisions do not).
 */
function testComparisons(pairs: readonly PairedComparison[], isRandom: (label: string) => boolean, key: (label: string) => string): TestedComparison[] {
  const regret = holmTests(
    pairs.map((c) => c.regret),
    pairs.map((c) => (key(c.policy) === key(c.reference) ? null : `${key(c.policy)}\u0000${key(c.reference)}`)),
  );
  const timed = pairs.filter((c) => c.timeLogRatio !== null && !isRandom(c.policy) && !isRandom(c.reference));
  const time = holmTests(timed.map((c) => c.timeLogRatio as PairedInterval));
  return pairs.map((c, i) => {
    const t = timed.indexOf(c);
    return { ...c, regretTest: regret[i] as HolmTest, timeTest: t < 0 ? null : (time[t] as HolmTest) };
  });
}

/** The comparison of `policy` against `reference`, if reported. */
export function findComparison<C extends PairedComparison>(comparisons: readonly C[], policy: string, reference: string): C | undefined {
  return comparisons.find((c) => c.policy === policy && c.reference === reference);
}

/** A variant as the manifest's `config.variants` records it: the policy a label runs and its own params. */
export interface Variant {
  policy: string;
  params: Readonly<Record<string, unknown>>;
}

/** label → {policy, params} from the manifest's `config.variants`; empty when it has none. */
export function variantEntries(dir: string): Map<string, Variant> {
  const variants = (readManifest(dir).config as { variants?: unknown }).variants;
  const out = new Map<string, Variant>();
  if (typeof variants !== 'object' || variants === null) return out;
  for (const [label, spec] of Object.entries(variants)) {
    const { policy, params } = (spec ?? {}) as { policy?: unknown; params?: unknown };
    if (typeof policy === 'string') out.set(label, { policy, params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {} });
  }
  return out;
}

/** label → policy from the manifest's `config.variants` ({label: {policy, …}}); empty when it has none. */
export function variantPolicies(dir: string): Map<string, string> {
  return new Map([...variantEntries(dir)].map(([label, v]) => [label, v.policy]));
}

/** The label that plays one side of a comparison (EOFD-MLogB, OFUL-MLogB, Random), or why none does. */
export interface Side {
  label: string | null;
  /** Why no label was chosen when some run the policy; null otherwise. */
  note: string | null;
}

/**
 * The side of `policy` among `labels`, chosen by the policy each label runs (a label absent from
 * `variants` runs the policy of its name with no params of its own), never by a label's name alone: the
 * one label that runs it; of several, the one named after the policy, else the one with no params of
 * its own (the defaults); else none, with the reason.
 */
export function sideOf(policy: string, labels: readonly string[], variants: ReadonlyMap<string, Variant>): Side {
  const running = labels.filter((label) => (variants.get(label)?.policy ?? label) === policy);
  if (running.length <= 1) return { label: running[0] ?? null, note: null };
  if (running.includes(policy)) return { label: policy, note: null };
  const plain = running.filter((label) => Object.keys(variants.get(label)?.params ?? {}).length === 0);
  if (plain.length === 1) return { label: plain[0] as string, note: null };
  return {
    label: null,
    note: `${running.length} labels run ${policy} (${running.join(', ')}): none is labelled ${policy} and ${plain.length === 0 ? 'each has params of its own' : 'several have no params of their own'}, so none is its side`,
  };
}

/** The experiment's EOFD-MLogB side: `eofd`, absent meaning the label EOFD-MLogB. */
export function eofdSide(summary: Pick<ExperimentSummary, 'eofd'>): Side {
  return summary.eofd ?? { label: EOFD, note: null };
}

/**
 * The params.oful_solver of `label`: the manifest's derived.policies[label] (recorded only when
 * given), else the entry's own params (config.variants), else the experiment's params; else its
 * declared default (ofulSolverOption).
 */
export function ofulSolverOf(dir: string, derived: Record<string, unknown>, label: string): OfulSolverName {
  const config = readManifest(dir).config as { variants?: Record<string, { params?: Record<string, unknown> } | null>; params?: Record<string, unknown> };
  const policies = derived.policies as Record<string, Record<string, unknown> | undefined> | undefined;
  const given = [policies?.[label], config.variants?.[label]?.params, config.params].find((layer) => layer?.oful_solver !== undefined);
  return ofulSolverOption(given);
}

/** A paired comparison with its two point estimates. */
function withEstimates(p: PairedComparison): Comparison {
  return { ...p, regretOverheadPct: p.regretOverhead?.estimate ?? null, timeReductionPct: p.timeReduction?.estimate ?? null };
}

/** The default reference: the first learner (a policy other than Random) among `policies`, else the first. */
export function defaultReference(policies: readonly string[], isRandom: (label: string) => boolean): string | null {
  return policies.find((p) => !isRandom(p)) ?? policies[0] ?? null;
}

/**
 * Mean, std and 95% half-width per kept round. The interval of a mean is the paired interval
 * against zero (one-sample t), so src/stats computes all three.
 */
function regretCurve(policy: string, series: Float64Array[], horizon: number): RegretCurve {
  const curve: RegretCurve = { policy, t: [], mean: [], std: [], ci95: series.length >= 2 ? [] : null };
  if (series.length === 0) return curve;
  const column = new Float64Array(series.length);
  const zeros = new Float64Array(series.length);
  for (const i of downsampleIndices(horizon)) {
    for (let k = 0; k < series.length; k++) column[k] = (series[k] as Float64Array)[i] as number;
    const interval = pairedDifference(column, zeros, CONFIDENCE);
    curve.t.push(i + 1);
    curve.mean.push(interval.mean);
    curve.std.push(interval.std);
    curve.ci95?.push(interval.high - interval.mean);
  }
  return curve;
}

/**
 * Rank of an experiment in the paper's order (Section 4, Fig. 1 and 2 panels (a), (b), (c)): MNIST
 * (real data) 0, synthetic multinomial (K ≥ 2) 1, synthetic binary (K = 1) 2, anything else 3.
 */
export function paperRank(setting: Setting): number {
  if (setting.environment === 'mnist') return 0;
  if (setting.environment === 'synthetic') return setting.K >= 2 ? 1 : 2;
  return 3;
}

/** The experiments in the paper's order; the given order within a rank (a stable sort). */
export function inPaperOrder<E extends { setting: Setting }>(experiments: readonly E[]): E[] {
  return [...experiments].sort((a, b) => paperRank(a.setting) - paperRank(b.setting));
}

/**
 * The numbers of one experiment. Policies in the configured order (config.policies); labels whose
 * policy is Random per the manifest's config.variants (else the label "Random") count as Random.
 */
export function summarizeExperiment(data: ExperimentData, options: SummaryOptions = {}): ExperimentSummary {
  const policies = policiesThatRan(data);
  return {
    ...summarizeRows(data, sameDecisions(data, policies), options),
    sketchCurves: policies.flatMap((p) => {
      const series = data.trials.filter((s) => s.policy === p).map((s) => s.sketchSize);
      const grown = series.some((m) => m !== null && m[0] !== m[m.length - 1]);
      return grown && series.every((m): m is Float64Array => m !== null) ? [regretCurve(p, series, data.setting.horizon)] : [];
    }),
    curves: policies.map((p) =>
      regretCurve(
        p,
        data.trials.filter((s) => s.policy === p).map((s) => s.cumRegret),
        data.setting.horizon,
      ),
    ),
  };
}

/** The configured policies with at least one finished trial, in configured order. */
function policiesThatRan(data: Pick<ExperimentData, 'summary' | 'setting'>): string[] {
  const ran = new Set(data.summary.map((r) => r.policy));
  return data.setting.policies.filter((p) => ran.has(p));
}

/** What an experiment's numbers are made of besides summary.csv: the per-round series. */
export type RoundData = 'curves' | 'sketchCurves';

/**
 * Every number of `summarizeExperiment` that summary.csv's rows give, the groups of identical decisions
 * given (they come from the per-round actions): all but Fig. 1's and Fig. 3's curves.
 */
export function summarizeRows(
  data: Omit<ExperimentData, 'trials'>,
  identical: string[][],
  options: SummaryOptions = {},
): Omit<ExperimentSummary, RoundData> {
  const policies = policiesThatRan(data);
  const ran = new Set(policies);
  const rowsOf = (p: string) => data.summary.filter((r) => r.policy === p);
  const entries = variantEntries(data.dir);
  const variants = new Map([...entries].map(([label, v]) => [label, v.policy]));
  const isRandom = (label: string) => (variants.get(label) ?? label) === RANDOM;
  const compare = (a: string, b: string) => pairedComparison(rowsOf(a), rowsOf(b)) ?? [];
  const key = decisionKeys(identical);

  let reference: string | null = null;
  let referenceNote: string | null = null;
  let pairs: PairedComparison[];
  if (options.allPairs === true) {
    pairs = policies.flatMap((b, i) => policies.slice(i + 1).flatMap((a) => compare(a, b)));
  } else {
    const asked = options.reference;
    reference = asked !== undefined && policies.includes(asked) ? asked : defaultReference(policies, isRandom);
    if (asked !== undefined && reference !== asked) {
      referenceNote = `${asked} did not run in this experiment: compared with its default reference instead`;
    }
    const ref = reference;
    pairs = policies.filter((p) => p !== ref).flatMap((p) => (ref === null ? [] : compare(p, ref)));
  }

  const random = policies.find(isRandom);
  const versusRandom = random === undefined ? [] : policies.filter((p) => !isRandom(p)).flatMap((p) => compare(p, random));
  const randomTests = holmTests(versusRandom.map((c) => c.regret), versusRandom.map((c) => key(c.policy)));
  const randomCheck = versusRandom.map((c, i): RandomCheck => {
    const test = randomTests[i] as HolmTest;
    return { policy: c.policy, random: c.reference, regret: c.regret, test, flagged: !(test.adjusted.high < 0) };
  });

  // Each side is the label running that policy (sideOf), whatever the labels are called.
  const eofd = sideOf(EOFD, data.setting.policies, entries);
  const oful = sideOf(OFUL, data.setting.policies, entries);
  const eofdRan = eofd.label !== null && ran.has(eofd.label) ? eofd.label : null;
  const headline = eofdRan !== null && oful.label !== null && ran.has(oful.label) ? pairedComparison(rowsOf(eofdRan), rowsOf(oful.label)) : null;
  const ofulComparisons = data.setting.policies
    .filter((label) => (variants.get(label) ?? label) === OFUL)
    .map((label): OfulComparison => {
      const pair = eofdRan !== null && ran.has(label) ? pairedComparison(rowsOf(eofdRan), rowsOf(label)) : null;
      // Random on the trials EOFD-MLogB and this label share.
      const shared = new Set(pair === null || eofdRan === null ? [] : rowsOf(eofdRan).map((r) => r.trial));
      const control = random === undefined || pair === null ? null : pairedComparison(rowsOf(random).filter((r) => shared.has(r.trial)), rowsOf(label));
      return {
        label,
        solver: ofulSolverOf(data.dir, data.derived, label),
        comparison: pair === null ? null : withEstimates(pair),
        randomControl:
          control === null
            ? null
            : { random: control.policy, trials: control.trials, regretOverhead: control.regretOverhead, regretRatioNote: control.regretRatioNote },
      };
    });
  return {
    name: data.name,
    dir: data.dir,
    setting: data.setting,
    derived: data.derived,
    provenance: data.provenance,
    timing: data.timing,
    progress: data.progress,
    policies: policies.map((p) => summarizePolicy(p, rowsOf(p))),
    partial: data.partial.map((s) => ({
      policy: s.policy,
      trial: s.trial,
      rounds: s.cumRegret.length,
      cumRegret: s.cumRegret[s.cumRegret.length - 1] as number,
      roundMs: mean(s.selectMs) + mean(s.updateMs),
    })),
    randomLabels: policies.filter(isRandom),
    comparison: headline === null ? null : withEstimates(headline),
    ...(eofd.label === EOFD ? {} : { eofd }),
    ofulComparisons,
    reference,
    referenceNote,
    comparisons: testComparisons(pairs, isRandom, key),
    randomCheck,
    identical,
  };
}

/** The groups of `policies` whose actions agree in every round of every trial (each with every trial finished). */
function sameDecisions(data: ExperimentData, policies: readonly string[]): string[][] {
  const trials = data.setting.trials;
  const actionsOf = new Map<string, Int32Array[]>();
  for (const p of policies) {
    const series = data.trials.filter((s) => s.policy === p).sort((a, b) => a.trial - b.trial);
    if (series.length === trials && series.every((s, i) => s.trial === i)) actionsOf.set(p, series.map((s) => s.actions));
  }
  const same = (a: Int32Array[], b: Int32Array[]): boolean =>
    a.every((x, i) => {
      const y = b[i] as Int32Array;
      return x.length === y.length && x.every((v, t) => v === y[t]);
    });
  const groups: string[][] = [];
  for (const [p, actions] of actionsOf) {
    const group = groups.find((g) => same(actionsOf.get(g[0] as string) as Int32Array[], actions));
    if (group === undefined) groups.push([p]);
    else group.push(p);
  }
  return groups.filter((g) => g.length > 1);
}
