import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MIN_TRIALS,
  PAPER_CLAIMS,
  VERDICTS,
  claimLabel,
  evaluateClaims,
  matchesClaim,
  positionOf,
  regretDirectionOf,
  regretOutcome,
  timeDirectionOf,
  timeOutcome,
  type ClaimRow,
} from '../../src/report/claims.js';
import { readResults } from '../../src/results/read.js';
import { summarizeExperiment, type ExperimentSummary } from '../../src/report/summarize.js';
import { tempDir, writeExperiment, writeFixtureResults, type FixturePolicy } from './fixture.js';

/**
 * t_{0.975, 2} in closed form (df = 2: t_p = (2p − 1)/√(2p(1 − p))) = 0.95/√0.04875 = 4.302652729749463,
 * so with 3 trials a 95% half-width is t·std/√3 = 2.4841377·std.
 */
const HALF_PER_STD = 0.95 / Math.sqrt(2 * 0.975 * 0.025) / Math.sqrt(3);

/** [mean, low, high] of ln r over three trials, by hand: mean ∓ 2.4841377·std (log scale). */
function logInterval(ratios: number[]): [number, number, number] {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const std = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / (logs.length - 1));
  return [mean, mean - HALF_PER_STD * std, mean + HALF_PER_STD * std];
}

/** A regret overhead in %, 100·(ratio − 1), and its interval: [estimate, low, high]. */
const overhead = (ratios: number[]) => logInterval(ratios).map((x) => 100 * Math.expm1(x));

/** A time reduction in %, 100·(1 − ratio), and its interval (ends swapped): [estimate, low, high]. */
function reduction(ratios: number[]): number[] {
  const [mean, low, high] = logInterval(ratios);
  return [mean, high, low].map((x) => -100 * Math.expm1(x));
}

/** A policy with given final regrets and per-round times (select only), nothing else. */
function policy(name: string, finals: number[], roundMs: number[]): FixturePolicy {
  const zeros = finals.map(() => 0);
  return { name, finals, selectMs: roundMs, updateMs: zeros, stateBytes: 0, sketchError: zeros, projections: zeros, parameterError: null };
}

interface Case {
  eofd?: { finals: number[]; ms: number[] };
  oful?: { finals: number[]; ms: number[] };
  /** Random's final regrets (its time is irrelevant); null: Random did not run. */
  random?: number[] | null;
  jobs?: number | null;
  environment?: { type: string; d: number; K: number };
}

/**
 * A synthetic binary experiment (K = 1, d = 400: the "> 80% less time, comparable regret" claim),
 * written to disk and read back. By default OFUL-MLogB has regret 100 and 1 ms/round in every trial,
 * so EOFD-MLogB's values are directly its ratios; EOFD-MLogB has regret 105, 104, 106 (ratios 1.05,
 * 1.04, 1.06: overhead 5.00% [2.54, 7.51] on the log scale, within ±20%) and 0.1, 0.11, 0.09 ms/round
 * (reductions 90.03% [87.21, 92.23], above 80%); Random has regret 300.
 */
function binary(c: Case = {}): ExperimentSummary {
  const eofd = c.eofd ?? { finals: [105, 104, 106], ms: [0.1, 0.11, 0.09] };
  const n = eofd.finals.length;
  const oful = c.oful ?? { finals: Array(n).fill(100), ms: Array(n).fill(1) };
  const random = c.random === undefined ? Array(n).fill(300) : c.random;
  const policies = [policy('EOFD-MLogB', eofd.finals, eofd.ms), policy('OFUL-MLogB', oful.finals, oful.ms)];
  if (random !== null) policies.push(policy('Random', random, Array(n).fill(0.001)));
  const dir = writeExperiment(path.join(tempDir(), 'binary'), {
    name: 'binary',
    environment: c.environment ?? { type: 'synthetic', d: 400, K: 1 },
    horizon: 10,
    policies,
    jobs: c.jobs,
  });
  return summarizeExperiment(readResults([dir])[0]!);
}

function only(rows: ClaimRow[], id: ClaimRow['id']): ClaimRow {
  const matching = rows.filter((r) => r.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

const binaryRow = (c: Case = {}) => only(evaluateClaims([binary(c)]), 'synthetic-binary');

describe('claims: settings and policies that are absent', () => {
  it('no claims at all when no experiment is in a paper setting; "not measured" for an absent setting otherwise', () => {
    const trace = binary({ environment: { type: 'trace', d: 10, K: 4 } });
    expect(evaluateClaims([trace])).toEqual([]);
    const rows = evaluateClaims([trace, binary()]);
    expect(rows.map((r) => [r.id, r.verdict, r.experiment, r.trials, r.regretOverheadPct])).toEqual([
      ['mnist', 'not measured', null, null, null],
      ['synthetic-multinomial', 'not measured', null, null, null],
      ['synthetic-binary', 'holds', 'binary', 3, rows[2]!.regretOverheadPct],
    ]);
    expect(rows.slice(0, 2).map((r) => r.reason)).toEqual([
      'no MNIST experiment among the results',
      'no synthetic, K ≥ 2 experiment among the results',
    ]);
  });

  it('"not measured" when OFUL-MLogB did not run, or its mean time is 0', () => {
    const dir = writeExperiment(path.join(tempDir(), 'm'), {
      name: 'm',
      environment: { type: 'mnist', d: 785, K: 1 },
      horizon: 10,
      policies: [policy('EOFD-MLogB', [1, 2, 3], [1, 1, 1]), policy('Random', [5, 5, 5], [0, 0, 0])],
    });
    let row = only(evaluateClaims(readResults([dir]).map((d) => summarizeExperiment(d))), 'mnist');
    expect([row.verdict, row.reason]).toEqual(['not measured', 'OFUL-MLogB did not run in this experiment']);
    row = binaryRow({ oful: { finals: [100, 100, 100], ms: [1, 0, 1] } });
    expect([row.verdict, row.reason]).toEqual([
      'not measured',
      "OFUL-MLogB's per-round time is 0 in trial 1; a log ratio needs values > 0, so the percentage is undefined",
    ]);
    // A final regret of 0 leaves the regret overhead undefined (log scale), with the same kind of reason.
    row = binaryRow({ eofd: { finals: [105, 0, 106], ms: [0.1, 0.11, 0.09] } });
    expect(row.reason).toBe("EOFD-MLogB's final regret is 0 in trial 1; a log ratio needs values > 0, so the percentage is undefined");
  });
});

/** The time half's direction and the paper's number's position, the regret half's, and the control's outcome. */
const halves = (r: ClaimRow) => [r.timeDirection, r.timePaperPosition, r.regretDirection, r.regretPaperPosition, r.randomControl?.outcome ?? null];

describe('claims', () => {
  it('are three, each half with the number the paper states', () => {
    expect(PAPER_CLAIMS.map((c) => [c.id, c.time, c.regret])).toEqual([
      ['mnist', { kind: 'about', pct: 80 }, { kind: 'about', pct: 10 }],
      ['synthetic-multinomial', { kind: 'over', pct: 35 }, { kind: 'comparable', withinPct: 20 }],
      ['synthetic-binary', { kind: 'over', pct: 80 }, { kind: 'comparable', withinPct: 20 }],
    ]);
    expect(MIN_TRIALS).toBe(3);
    expect(VERDICTS).toEqual(['holds', 'does not hold', 'cannot judge at this size', 'inconclusive', 'not judged', 'not measured']);
  });

  it('recognise the setting from the manifest, not the folder name', () => {
    const [mnist, multi, bin] = PAPER_CLAIMS as unknown as [(typeof PAPER_CLAIMS)[0], (typeof PAPER_CLAIMS)[0], (typeof PAPER_CLAIMS)[0]];
    const e = { ...binary(), name: 'mnist' };
    expect([matchesClaim(mnist, e.setting), matchesClaim(multi, e.setting), matchesClaim(bin, e.setting)]).toEqual([false, false, true]);
    const rows = evaluateClaims([e]);
    expect(only(rows, 'mnist').verdict).toBe('not measured');
    expect(only(rows, 'synthetic-binary').experiment).toBe('mnist');
  });

  it('holds: faster, the interval above >80%, regret within ±20%, and Random fails the regret rule; numbers by hand', () => {
    const row = binaryRow();
    expect(row.verdict).toBe('holds');
    expect(row.trials).toBe(3);
    // regret: ln 1.05, ln 1.04, ln 1.06 → mean 0.0487381, std 0.0096170, ∓ 2.4841377·std, back-transformed:
    // 100·(exp(·) − 1) = 4.99683% [2.54183, 7.51059]
    const [regret, regretLow, regretHigh] = overhead([1.05, 1.04, 1.06]);
    expect(row.regretOverheadPct!.estimate).toBeCloseTo(regret!, 9);
    expect(row.regretOverheadPct!.low).toBeCloseTo(regretLow!, 9);
    expect(row.regretOverheadPct!.high).toBeCloseTo(regretHigh!, 9);
    expect(row.regretOverheadPct!.high).toBeCloseTo(7.510592, 6);
    // time: ln 0.1, ln 0.11, ln 0.09 → 100·(1 − exp(·)) = 90.0334% [87.2110, 92.2330]
    const [time, timeLow, timeHigh] = reduction([0.1, 0.11, 0.09]);
    expect(row.timeReductionPct!.estimate).toBeCloseTo(time!, 9);
    expect(row.timeReductionPct!.low).toBeCloseTo(timeLow!, 9);
    expect(row.timeReductionPct!.high).toBeCloseTo(timeHigh!, 9);
    expect(row.timeReductionPct!.low).toBeCloseTo(87.210993, 6);
    // Random 300 vs 100 in every trial: +200% [200, 200], far above +20%.
    expect(row.randomControl).toEqual({ random: 'Random', trials: 3, regretOverheadPct: expect.anything(), outcome: 'disagrees' });
    expect(row.randomControl!.regretOverheadPct!.low).toBeCloseTo(200, 9);
    // faster; the paper's 80% below the time interval; more regret; 0% ("comparable") below the regret interval
    expect(halves(row)).toEqual(['faster', 'below', 'more', 'below', 'disagrees']);
    expect(row.measured).toBe('90.0% less time, 5.0% more regret');
    expect(row.reason).toBe(
      "time: faster: the paper's 80% lies below the time reduction 95% CI [87.2, 92.2]; regret: regret overhead 95% CI [2.5, 7.5] " +
        "lies within ±20%; Random in EOFD-MLogB's place fails the same rule (regret overhead 95% CI [200.0, 200.0] lies above +20%)",
    );
  });

  it('does not hold: faster, but the interval lies at or below the paper\'s >80%', () => {
    // time 0.5, 0.51, 0.49 ms vs 1 ms: reductions 50.0% [47.46, 52.43] (log scale)
    const row = binaryRow({ eofd: { finals: [105, 104, 106], ms: [0.5, 0.51, 0.49] } });
    expect(row.verdict).toBe('does not hold');
    expect(halves(row).slice(0, 2)).toEqual(['faster', 'above']);
    expect(row.reason).toBe("time: faster: the paper's 80% lies above the time reduction 95% CI [47.5, 52.4]");
  });

  it('two-sided: a 30% LOWER regret does not hold (it is not "comparable")', () => {
    // regret 70, 69, 71 vs 100: ratios 0.70, 0.69, 0.71 → −30.00% [−32.45, −27.48] (log scale), below −20%
    const row = binaryRow({ eofd: { finals: [70, 69, 71], ms: [0.1, 0.11, 0.09] } });
    expect(row.verdict).toBe('does not hold');
    expect(row.regretOverheadPct!.high).toBeCloseTo(overhead([0.7, 0.69, 0.71])[2]!, 9);
    expect(halves(row).slice(2, 4)).toEqual(['less', 'above']);
    expect(row.measured).toBe('90.0% less time, 30.0% less regret');
    expect(row.reason).toBe('regret: regret overhead 95% CI [−32.4, −27.5] lies below −20%');
    // and 30% more regret does not hold either: 1.30, 1.29, 1.31 → [27.54, 32.51] above +20%
    expect(binaryRow({ eofd: { finals: [130, 129, 131], ms: [0.1, 0.11, 0.09] } }).reason).toBe(
      'regret: regret overhead 95% CI [27.5, 32.5] lies above +20%',
    );
  });

  it('inconclusive: an interval straddles a rule\'s edge, and the reason names it', () => {
    // time 0.1, 0.15, 0.05 ms: ratios 0.1, 0.15, 0.05 → 90.91% [63.88, 97.71] (log scale; never above 100%)
    let row = binaryRow({ eofd: { finals: [105, 104, 106], ms: [0.1, 0.15, 0.05] } });
    expect(row.verdict).toBe('inconclusive');
    expect(row.timeReductionPct!.low).toBeCloseTo(reduction([0.1, 0.15, 0.05])[1]!, 9);
    expect(halves(row).slice(0, 2)).toEqual(['faster', 'inside']);
    expect(row.reason).toBe("time: faster: the paper's 80% lies inside the time reduction 95% CI [63.9, 97.7]");
    // regret 115, 110, 120: ratios 1.15, 1.10, 1.20 → 14.93% [3.15, 28.05]
    row = binaryRow({ eofd: { finals: [115, 110, 120], ms: [0.1, 0.11, 0.09] } });
    expect(row.verdict).toBe('inconclusive');
    expect(row.reason).toBe('regret: regret overhead 95% CI [3.2, 28.0] straddles +20%');
    // regret 100, 75, 125: ratios 1, 0.75, 1.25 → −2.13% [−48.19, 84.90]: both edges
    row = binaryRow({ eofd: { finals: [100, 75, 125], ms: [0.1, 0.11, 0.09] } });
    expect(row.reason).toBe('regret: regret overhead 95% CI [−48.2, 84.9] straddles −20% and +20%');
    expect(halves(row).slice(2, 4)).toEqual(['inconclusive', 'inside']);
  });

  it('an excluded half beats a straddling one: does not hold', () => {
    const row = binaryRow({ eofd: { finals: [70, 69, 71], ms: [0.1, 0.15, 0.05] } });
    expect(row.verdict).toBe('does not hold');
    expect(row.reason).toBe('regret: regret overhead 95% CI [−32.4, −27.5] lies below −20%');
  });

  it('not judged with fewer than 3 trials (the numbers are still given)', () => {
    const row = binaryRow({ eofd: { finals: [105, 104], ms: [0.1, 0.11] } });
    expect(row.verdict).toBe('not judged');
    expect(row.reason).toBe('only 2 trials, at least 3 are needed');
    expect(row.trials).toBe(2);
    // ratios 1.05, 1.04 → 100·(exp((ln 1.05 + ln 1.04)/2) − 1) = 100·(√(1.05·1.04) − 1) = 4.49880%
    expect(row.regretOverheadPct!.estimate).toBeCloseTo(100 * (Math.sqrt(1.05 * 1.04) - 1), 9);
    // one trial: no interval at all, so only the trial count is given as the reason
    const one = binaryRow({ eofd: { finals: [105], ms: [0.1] } });
    expect([one.verdict, one.reason, one.trials]).toEqual(['not judged', 'only 1 trial, at least 3 are needed', 1]);
    expect(one.regretOverheadPct!.low).toBeNaN();
  });

  it('not judged when a learner is not shown below Random (Holm over the learners)', () => {
    // Random 102, 101, 103: EOFD − Random = 3, 3, 3 (std 0, p = 0); OFUL − Random = −2, −1, −3 (t = 2√3,
    // p = 1 − √(12/14) = 0.0742). Holm over the 2 learners: EOFD first, level 1 − 0.05/2: [3, 3], not below 0;
    // OFUL: p̃ = 0.0742 ≥ 0.05, level 0.95: −2 ∓ 2.484 = [−4.48, 0.48], straddles 0.
    const row = binaryRow({ random: [102, 101, 103] });
    expect(row.verdict).toBe('not judged');
    expect(row.reason).toBe(
      "EOFD-MLogB's regret is not shown below Random's (difference 3.00, 95% CI [3.00, 3.00]; Holm-adjusted over 2 learners [3.00, 3.00] (97.5%)); " +
        "OFUL-MLogB's regret is not shown below Random's (difference −2.00, 95% CI [−4.48, 0.48]; Holm-adjusted over 2 learners [−4.48, 0.48] (95%))",
    );
  });

  it('not judged without Random: the regret rule would have no negative control', () => {
    const row = binaryRow({ random: null });
    expect([row.verdict, row.reason, row.randomControl]).toEqual(['not judged', 'Random did not run, so the regret rule has no negative control', null]);
  });

  it('not judged when timings were taken with more than one unit at once, or not recorded', () => {
    let row = binaryRow({ jobs: 2 });
    expect(row.verdict).toBe('not judged');
    expect(row.reason).toBe('timings were taken with 2 units at once (rerun with --timing), so time is not judged');
    expect(row.timeReductionPct!.estimate).toBeCloseTo(reduction([0.1, 0.11, 0.09])[0]!, 9);
    row = binaryRow({ jobs: null });
    expect(row.verdict).toBe('not judged');
    expect(row.reason).toBe('how the timings were taken is not recorded, so time is not judged');
  });

  it('names every reason not to judge', () => {
    const row = binaryRow({ eofd: { finals: [105, 104], ms: [0.1, 0.11] }, jobs: 3 });
    expect(row.reason).toBe(
      'only 2 trials, at least 3 are needed; timings were taken with 3 units at once (rerun with --timing), so time is not judged',
    );
  });

  it('MNIST ≈80%: the paper\'s number inside the interval, faster; 99.6% is faster but does not hold', () => {
    const mnist = (ms: number[], finals = [110, 109, 111]) =>
      only(evaluateClaims([binary({ environment: { type: 'mnist', d: 785, K: 1 }, eofd: { finals, ms }, oful: { finals: [100, 100, 100], ms: [10, 10, 10] } })]), 'mnist');
    // 2, 2.1, 1.9 ms vs 10: ratios 0.2, 0.21, 0.19 → 80.0% [77.4, 82.4], 80 inside; regret 1.10, 1.09, 1.11 → 10.0% [7.5, 12.5], 10 inside
    let row = mnist([2, 2.1, 1.9]);
    const [, timeLow, timeHigh] = reduction([0.2, 0.21, 0.19]);
    expect(timeLow! < 80 && 80 < timeHigh!).toBe(true);
    expect([row.verdict, ...halves(row)]).toEqual(['holds', 'faster', 'inside', 'more', 'inside', 'disagrees']);
    // 0.04 ms vs 10 ms in every trial: 99.6% [99.6, 99.6] — faster, but the paper's 80% lies below it
    row = mnist([0.04, 0.04, 0.04]);
    expect([row.verdict, ...halves(row).slice(0, 2)]).toEqual(['does not hold', 'faster', 'below']);
    expect(row.reason).toBe("time: faster: the paper's 80% lies below the time reduction 95% CI [99.6, 99.6]");
    // slower: 12 ms vs 10 ms, −20%
    row = mnist([12, 12, 12]);
    expect([row.verdict, ...halves(row).slice(0, 2)]).toEqual(['does not hold', 'slower', 'above']);
    // ratios 0.1, 0.5, 1.5: the interval holds 80% but also 0: inconclusive, not "holds"
    row = mnist([1, 5, 15]);
    expect([row.verdict, ...halves(row).slice(0, 2)]).toEqual(['inconclusive', 'inconclusive', 'inside']);
    expect(row.reason).toMatch(/^time: not shown faster or slower: the paper's 80% lies inside the time reduction 95% CI \[−\d+\.\d, 98\.6\]$/);
    // ≈10% more regret: 30% more does not hold, the paper's 10% below the interval
    row = mnist([2, 2.1, 1.9], [130, 129, 131]);
    expect([row.verdict, ...halves(row).slice(2, 4)]).toEqual(['does not hold', 'more', 'below']);
  });

  it('>35% is strict: an interval at exactly 35% does not hold', () => {
    // 13 ms vs 20 ms: −100·expm1(ln 0.65) = 35% exactly, not above 35
    const multi = binary({ environment: { type: 'synthetic', d: 100, K: 4 }, eofd: { finals: [105, 104, 106], ms: [13, 13, 13] }, oful: { finals: [100, 100, 100], ms: [20, 20, 20] } });
    const s = only(evaluateClaims([multi]), 'synthetic-multinomial');
    expect(s.verdict).toBe('does not hold');
    expect(s.reason).toBe("time: faster: the paper's 35% lies inside the time reduction 95% CI [35.0, 35.0]");
  });

  it('identical decisions: regret "identical", and the reason says the sketch changed no decision', () => {
    const dir = writeExperiment(path.join(tempDir(), 'same'), {
      name: 'same',
      environment: { type: 'synthetic', d: 400, K: 1 },
      horizon: 10,
      policies: [
        { ...policy('EOFD-MLogB', [100, 90, 110], [0.1, 0.11, 0.09]), actionShift: 1 },
        { ...policy('OFUL-MLogB', [100, 90, 110], [1, 1, 1]), actionShift: 1 },
        policy('Random', [300, 300, 300], [0.001, 0.001, 0.001]),
      ],
    });
    const row = only(evaluateClaims([summarizeExperiment(readResults([dir])[0]!)]), 'synthetic-binary');
    expect([row.verdict, ...halves(row)]).toEqual(['holds', 'faster', 'below', 'identical', 'inside', 'disagrees']);
    expect(row.reason).toContain('regret: regret overhead 95% CI [0.0, 0.0] lies within ±20% (EOFD-MLogB decided as OFUL-MLogB in every round)');
  });

  it("one row per matching experiment, and the paper's d is noted when it differs", () => {
    const rows = evaluateClaims([
      { ...binary(), name: 'b1' },
      { ...binary({ environment: { type: 'synthetic', d: 20, K: 1 } }), name: 'b2' },
    ]).filter((r) => r.id === 'synthetic-binary');
    expect(rows.map((r) => [r.experiment, r.verdict, r.note])).toEqual([
      ['b1', 'holds', null],
      ['b2', 'holds', 'd = 20; the paper used d = 400'],
    ]);
    expect(rows.map(claimLabel)).toEqual(['synthetic, K = 1 (b1)', 'synthetic, K = 1 (b2; d = 20; the paper used d = 400)']);
  });

  it('on the fixture: synthetic multinomial holds, MNIST does not (the paper\'s 80% just above the interval), binary not measured', () => {
    const rows = evaluateClaims(readResults([writeFixtureResults()]).map((d) => summarizeExperiment(d)));
    expect(rows.map((r) => [r.id, r.experiment, r.verdict])).toEqual([
      ['mnist', 'mnist', 'does not hold'],
      ['synthetic-multinomial', 'synthetic-k4', 'holds'],
      ['synthetic-binary', null, 'not measured'],
    ]);
    // MNIST: times 2, 3, 4 vs 6, 6, 6 ms: ratios 1/3, 1/2, 2/3 → reduction 100·(1 − 9^(−1/3)) = 51.9%
    // [−14.2, 79.8] (log scale): not shown faster, and the paper's 80% lies above it (just). Regret
    // 10/9, 11/10, 12/11 → 100·((4/3)^(1/3) − 1) = 10.06% [7.58, 12.61], the paper's 10% inside.
    const [mnistTime, mnistLow, mnistHigh] = reduction([1 / 3, 1 / 2, 2 / 3]);
    expect(mnistTime).toBeCloseTo(100 * (1 - 9 ** (-1 / 3)), 12);
    expect(rows[0]!.timeReductionPct!.low).toBeCloseTo(mnistLow!, 9);
    expect(rows[0]!.timeReductionPct!.high).toBeCloseTo(mnistHigh!, 9);
    expect(rows[0]!.measured).toBe('51.9% less time, 10.1% more regret');
    expect(halves(rows[0]!)).toEqual(['inconclusive', 'above', 'more', 'inside', 'disagrees']);
    expect(rows[0]!.reason).toBe("time: not shown faster or slower: the paper's 80% lies above the time reduction 95% CI [−14.2, 79.8]");
    expect(rows[0]!.paper).toBe('≈80% less time, ≈10% more regret');
    // synthetic K = 4: 67.1% [59.0, 73.5] less time (summarize.test.ts), regret 10.1% [7.6, 12.6]; Random
    // 20, 22, 24 vs 4.5, 5, 5.5: ratios 4.444, 4.4, 4.364 → +340.3% [330.3, 350.4].
    const [, randomLow, randomHigh] = overhead([20 / 4.5, 22 / 5, 24 / 5.5]);
    expect(rows[1]!.randomControl!.regretOverheadPct!.low).toBeCloseTo(randomLow!, 9);
    expect(rows[1]!.randomControl!.regretOverheadPct!.high).toBeCloseTo(randomHigh!, 9);
    expect(rows[1]!.reason).toBe(
      "time: faster: the paper's 35% lies below the time reduction 95% CI [59.0, 73.5]; regret: regret overhead 95% CI [7.6, 12.6] lies within ±20%; " +
        "Random in EOFD-MLogB's place fails the same rule (regret overhead 95% CI [330.3, 350.4] lies above +20%)",
    );
  });
});

describe('the negative control: Random in EOFD-MLogB\'s place', () => {
  it('the regret rule rejects Random where a learner is clearly better than Random (numbers by hand)', () => {
    // OFUL-MLogB 100 in every trial, Random 300, 290, 310: ratios 3, 2.9, 3.1 → Random's overhead ≈ +200%.
    const row = binaryRow({ random: [300, 290, 310] });
    const [estimate, low, high] = overhead([3, 2.9, 3.1]);
    const control = row.randomControl!;
    expect(control.regretOverheadPct!.estimate).toBeCloseTo(estimate!, 9);
    expect(control.regretOverheadPct!.low).toBeCloseTo(low!, 9);
    expect(control.regretOverheadPct!.high).toBeCloseTo(high!, 9);
    expect(low).toBeGreaterThan(170);
    // Both regret rules reject it: outside ±20% ("comparable"), and the paper's ≈10% below it (MNIST).
    expect(control.outcome).toBe('disagrees');
    expect(regretOutcome({ kind: 'comparable', withinPct: 20 }, control.regretOverheadPct!)).toBe('disagrees');
    expect(regretOutcome({ kind: 'about', pct: 10 }, control.regretOverheadPct!)).toBe('disagrees');
    expect(row.verdict).toBe('holds');
  });

  it('a learner that plays like Random in EOFD-MLogB\'s place: the regret rule fails it', () => {
    // EOFD-MLogB with Random-like regret 300, 290, 310 against OFUL-MLogB's 100 (Random itself a little worse).
    const row = binaryRow({ eofd: { finals: [300, 290, 310], ms: [0.1, 0.11, 0.09] }, random: [330, 320, 340] });
    expect(row.verdict).toBe('does not hold');
    expect(row.reason).toMatch(/^regret: regret overhead 95% CI \[1\d\d\.\d, 2\d\d\.\d\] lies above \+20%$/);
  });

  it('cannot judge at this size: Random would pass the regret rule too', () => {
    // Random 110, 108, 112 vs 100: ratios 1.10, 1.08, 1.12 → about +10%, within ±20% like EOFD-MLogB's 5%.
    let row = binaryRow({ random: [110, 108, 112] });
    expect([row.verdict, row.randomControl!.outcome]).toEqual(['cannot judge at this size', 'agrees']);
    const [, low, high] = overhead([1.1, 1.08, 1.12]);
    expect(low! > -20 && high! < 20).toBe(true);
    expect(row.reason).toMatch(
      /^regret: regret overhead 95% CI \[2\.5, 7\.5\] lies within ±20%, but Random in EOFD-MLogB's place passes the same rule \(regret overhead 95% CI \[\d\.\d, 1\d\.\d\] lies within ±20%\)$/,
    );
    // Random 118, 122, 120: ratios 1.18, 1.22, 1.20 → [15.1, 25.1], straddling +20%: not shown to fail, so not "holds" either
    row = binaryRow({ random: [118, 122, 120] });
    expect([row.verdict, row.randomControl!.outcome]).toEqual(['cannot judge at this size', 'inconclusive']);
    expect(row.reason).toContain("but Random in EOFD-MLogB's place is not shown to fail the same rule (regret overhead 95% CI [15.1, 25.1] straddles +20%)");
  });

  it('a half that does not hold is reported before the control', () => {
    const row = binaryRow({ eofd: { finals: [105, 104, 106], ms: [0.5, 0.51, 0.49] }, random: [110, 108, 112] });
    expect(row.verdict).toBe('does not hold');
  });
});

describe('the rules as functions', () => {
  const ci = (low: number, high: number) => ({ low, high });
  it('position of the paper\'s number: inside includes the ends', () => {
    expect([positionOf(80, ci(70, 90)), positionOf(80, ci(80, 90)), positionOf(80, ci(81, 90)), positionOf(80, ci(60, 79))]).toEqual(['inside', 'inside', 'below', 'above']);
  });
  it('directions', () => {
    expect([timeDirectionOf(ci(1, 2)), timeDirectionOf(ci(-2, -1)), timeDirectionOf(ci(-1, 1)), timeDirectionOf(ci(0, 1))]).toEqual(['faster', 'slower', 'inconclusive', 'inconclusive']);
    expect([regretDirectionOf(ci(1, 2)), regretDirectionOf(ci(-2, -1)), regretDirectionOf(ci(-1, 1)), regretDirectionOf(ci(0, 0))]).toEqual(['more', 'less', 'inconclusive', 'identical']);
  });
  it('≈X for time also needs faster; >X needs the interval above X', () => {
    const about = { kind: 'about', pct: 80 } as const;
    const over = { kind: 'over', pct: 80 } as const;
    expect([timeOutcome(about, ci(70, 90)), timeOutcome(about, ci(-10, 90)), timeOutcome(about, ci(85, 90)), timeOutcome(about, ci(-20, -10))]).toEqual(['agrees', 'inconclusive', 'disagrees', 'disagrees']);
    expect([timeOutcome(over, ci(81, 90)), timeOutcome(over, ci(70, 90)), timeOutcome(over, ci(70, 80))]).toEqual(['agrees', 'inconclusive', 'disagrees']);
  });
  it('comparable: within ±20% agrees, entirely outside disagrees, otherwise inconclusive', () => {
    const comparable = { kind: 'comparable', withinPct: 20 } as const;
    expect([regretOutcome(comparable, ci(-20, 20)), regretOutcome(comparable, ci(10, 30)), regretOutcome(comparable, ci(21, 30)), regretOutcome(comparable, ci(-30, -21))]).toEqual(['agrees', 'inconclusive', 'disagrees', 'disagrees']);
  });
});

describe("the claims' sides: chosen by the policy each label runs", () => {
  /** A synthetic binary experiment of the labels `policies` (name → finals, ms) with the manifest's `variants`. */
  const labelled = (policies: [string, number[], number[]][], variants: Record<string, { policy: string; params?: Record<string, unknown> }>): ClaimRow => {
    const dir = writeExperiment(path.join(tempDir(), 'sides'), {
      name: 'sides',
      environment: { type: 'synthetic', d: 400, K: 1 },
      horizon: 10,
      policies: policies.map(([name, finals, ms]) => policy(name, finals, ms)),
      variants,
    });
    return only(evaluateClaims(readResults([dir]).map((d) => summarizeExperiment(d))), 'synthetic-binary');
  };
  const eofd: [number[], number[]] = [[105, 104, 106], [0.1, 0.11, 0.09]];
  const oful: [number[], number[]] = [[100, 100, 100], [1, 1, 1]];
  const random: [number[], number[]] = [[300, 300, 300], [0.001, 0.001, 0.001]];

  it('reliability: swapped labels ({policy: OFUL-MLogB, label: EOFD-MLogB} and vice versa) compare the EOFD-MLogB run with the OFUL-MLogB run, not OFUL-MLogB with itself', () => {
    const swapped = labelled(
      [['EOFD-MLogB', ...oful], ['OFUL-MLogB', ...eofd], ['Random', ...random]],
      { 'EOFD-MLogB': { policy: 'OFUL-MLogB', params: {} }, 'OFUL-MLogB': { policy: 'EOFD-MLogB', params: {} } },
    );
    const plain = binaryRow();
    expect(swapped.reference).toBe('EOFD-MLogB');
    expect([swapped.verdict, swapped.timeReductionPct, swapped.regretOverheadPct, swapped.randomControl]).toEqual([plain.verdict, plain.timeReductionPct, plain.regretOverheadPct, plain.randomControl]);
    expect(swapped.verdict).toBe('holds');
  });

  it('reliability: a variant labelled Random that runs another policy is no Random side; the label running Random is', () => {
    const row = labelled(
      [['EOFD-MLogB', ...eofd], ['OFUL-MLogB', ...oful], ['Random', eofd[0], eofd[1]], ['guess', ...random]],
      { Random: { policy: 'EOFD-MLogB', params: { m: 2 } }, guess: { policy: 'Random', params: {} } },
    );
    expect(row.randomControl?.random).toBe('guess');
    expect([row.verdict, row.timeReductionPct]).toEqual(['holds', binaryRow().timeReductionPct]);
  });

  it('reliability: several labels running EOFD-MLogB: the one labelled EOFD-MLogB, else the one with no params of its own, is the side; else the claim is not judged, with the reason', () => {
    const variant = { policy: 'EOFD-MLogB', params: { m: 2 } };
    const tuned = { policy: 'EOFD-MLogB', params: { l: 0.5 } };
    const named = labelled([['EOFD-m2', oful[0], [0.5, 0.5, 0.5]], ['EOFD-MLogB', ...eofd], ['OFUL-MLogB', ...oful], ['Random', ...random]], { 'EOFD-m2': variant, 'EOFD-MLogB': tuned });
    expect([named.verdict, named.timeReductionPct]).toEqual(['holds', binaryRow().timeReductionPct]);
    const plain = labelled([['EOFD-m2', oful[0], [0.5, 0.5, 0.5]], ['eofd', ...eofd], ['OFUL-MLogB', ...oful], ['Random', ...random]], { 'EOFD-m2': variant, eofd: { policy: 'EOFD-MLogB' } });
    expect([plain.verdict, plain.timeReductionPct]).toEqual(['holds', binaryRow().timeReductionPct]);
    const none = labelled(
      [['EOFD-m2', ...eofd], ['EOFD-m4', ...eofd], ['OFUL-MLogB', ...oful], ['Random', ...random]],
      { 'EOFD-m2': variant, 'EOFD-m4': { policy: 'EOFD-MLogB', params: { m: 4 } } },
    );
    expect([none.verdict, none.trials, none.reason]).toEqual(['not judged', null, "2 labels run EOFD-MLogB (EOFD-m2, EOFD-m4): none is labelled EOFD-MLogB and each has params of its own, so none is its side"]);
  });
});
