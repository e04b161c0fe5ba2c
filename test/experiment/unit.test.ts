/**
 * The units of one trial in lock-step (unit.ts executeTrial, trial.ts runTrialsInStep): block b of
 * every policy before block b + 1, the order reversed every other block and rotating, each policy's
 * records the bytes it writes alone, a failing policy leaving the others to finish; what a unit writes
 * of each round (|A_t|, the best expected reward); a unit continued from its checkpoint, or started again
 * when its partial CSV has an older version's columns.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { writeCheckpoint } from '../../src/experiment/checkpoint.js';
import { trialGroups, type UnitRef } from '../../src/experiment/plan.js';
import { createTrialEnvironment, createUnitPolicy, policySpecFor, resolveExperiment, type ResolvedExperiment } from '../../src/experiment/setup.js';
import { LOCK_STEP_ROUNDS, runTrialsInStep, TrialError, turnOrder, type TrialSide } from '../../src/experiment/trial.js';
import { executeTrial, executeUnit, type TrialHandlers, type UnitResult, type UnitTask } from '../../src/experiment/unit.js';
import { snapshotPolicy } from '../../src/policies/snapshot.js';
import { createPolicy } from '../../src/policies/registry.js';
import { unitFiles } from '../../src/results/layout.js';
import { readTrial } from '../../src/results/read-csv.js';
import { roundCells, TRIAL_COLUMNS, type RoundRecord } from '../../src/results/records.js';
import { TrialCsvWriter, type CsvMark } from '../../src/results/write.js';
import { tempDir, tinyConfig, withoutTimings, writeFile } from './fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-unit-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const HORIZON = 30;
const POLICIES = ['EOFD-MLogB', 'OFUL-MLogB', 'Random'];

function experiment(horizon = HORIZON): ResolvedExperiment {
  return resolveExperiment(parseConfig(tinyConfig('lockstep', { horizon, trials: 2 }), 'lockstep.yaml'), { split: 'report' });
}

function tasks(resolved: ResolvedExperiment, dir: string, trial: number): UnitTask[] {
  return POLICIES.map((policy, id) => ({ id, experiment: resolved, dir, policy, trial }));
}

/** Handlers that keep every result and failure, and each turn's (policy, t, time). */
function recorder() {
  const turns: { policy: string; t: number; ns: bigint }[] = [];
  const results = new Map<string, UnitResult>();
  const failures = new Map<string, Error>();
  const handlers: TrialHandlers = {
    progress: () => {},
    done: (unit, result) => results.set(unit.policy, result),
    failed: (unit, error) => failures.set(unit.policy, error),
    turn: (unit, t) => turns.push({ policy: unit.policy, t, ns: process.hrtime.bigint() }),
  };
  return { turns, results, failures, handlers };
}

describe('lock-step: bad arguments and edges', () => {
  it('turnOrder: a permutation of the k players in every block, reversed in even blocks', () => {
    for (const k of [1, 2, 3, 5]) {
      for (let t = 1; t <= 4 * k; t++) {
        const order = Array.from({ length: k }, (_, j) => turnOrder(t, j, k));
        expect([...order].sort()).toEqual(Array.from({ length: k }, (_, i) => i));
        if (t % 2 === 0) expect(order).toEqual(Array.from({ length: k }, (_, j) => turnOrder(t - 1, j, k)).reverse());
      }
    }
    expect([1, 2, 3, 4].map((t) => turnOrder(t, 0, 2))).toEqual([0, 1, 1, 0]);
  });

  it('no sides play no rounds; no units make no groups; a block is a whole number of rounds ≥ 1', async () => {
    expect(await runTrialsInStep([], 5, 0)).toEqual([]);
    await expect(runTrialsInStep([], 5, 0, undefined, undefined, 0)).rejects.toThrow(/block must be an integer ≥ 1, got 0/);
    await expect(runTrialsInStep([], 5, 0, undefined, undefined, 1.5)).rejects.toThrow(RangeError);
    expect(trialGroups([])).toEqual([]);
  });
});

describe('trialGroups', () => {
  it("groups a trial's units in the order given, trials by experiment order then ascending", () => {
    const u = (experiment: string, policy: string, trial: number, order: number) => ({ unit: { experiment, policy, trial, horizon: 1 } as UnitRef, order });
    const units = [u('b', 'P', 0, 1), u('a', 'P', 1, 0), u('a', 'Q', 1, 0), u('a', 'P', 0, 0), u('b', 'Q', 0, 1), u('a', 'Q', 0, 0)];
    const names = trialGroups(units).map((g) => g.map((x) => `${x.unit.experiment}/${x.unit.policy}/${x.unit.trial}`));
    expect(names).toEqual([['a/P/0', 'a/Q/0'], ['a/P/1', 'a/Q/1'], ['b/P/0', 'b/Q/0']]);
  });
});

describe("a trial's units in lock-step", () => {
  it('interleave in time, block by block: every block of every policy before the next block of any, any two swapping places every second block', async () => {
    const resolved = experiment(6 * LOCK_STEP_ROUNDS);
    const horizon = resolved.config.horizon;
    const dir = path.join(root, 'interleave');
    const { turns, results, failures, handlers } = recorder();
    await executeTrial({ experiment: resolved, dir, trial: 0, units: tasks(resolved, dir, 0) }, handlers);
    expect(failures.size).toBe(0);
    expect([...results.keys()].sort()).toEqual([...POLICIES].sort());
    expect(turns).toHaveLength(POLICIES.length * horizon);
    // The recorded times are in call order.
    for (let i = 1; i < turns.length; i++) expect(turns[i]!.ns >= turns[i - 1]!.ns).toBe(true);
    const size = POLICIES.length * LOCK_STEP_ROUNDS;
    const blocks = Array.from({ length: horizon / LOCK_STEP_ROUNDS }, (_, b) => turns.slice(b * size, (b + 1) * size));
    const orders = blocks.map((block, b) => {
      // Block b + 1 holds rounds b·B + 1 … (b + 1)·B of every policy, each policy's rounds in one run, in order.
      const order = POLICIES.map((_, j) => block[j * LOCK_STEP_ROUNDS]!.policy);
      expect(new Set(order).size).toBe(POLICIES.length);
      for (const [j, policy] of order.entries()) {
        const run = block.slice(j * LOCK_STEP_ROUNDS, (j + 1) * LOCK_STEP_ROUNDS);
        expect(run.map((turn) => [turn.policy, turn.t])).toEqual(run.map((_, r) => [policy, b * LOCK_STEP_ROUNDS + r + 1]));
      }
      return order;
    });
    // Every two policies: one plays first in block 2s − 1 and the other in block 2s.
    for (const a of POLICIES) {
      for (const c of POLICIES.filter((p) => p !== a)) {
        for (let s = 0; s + 1 < orders.length; s += 2) {
          const before = (order: string[]) => order.indexOf(a) < order.indexOf(c);
          expect(before(orders[s]!)).toBe(!before(orders[s + 1]!));
        }
      }
    }
    // Each policy starts as many blocks as the others over 2k blocks.
    expect(POLICIES.map((p) => orders.filter((order) => order[0] === p).length)).toEqual([2, 2, 2]);
  });

  it('each unit writes the bytes (timings aside) and the summary it writes alone', async () => {
    const resolved = experiment();
    const together = path.join(root, 'together');
    const alone = path.join(root, 'alone');
    const { results, handlers } = recorder();
    await executeTrial({ experiment: resolved, dir: together, trial: 1, units: tasks(resolved, together, 1) }, handlers);
    for (const task of tasks(resolved, alone, 1)) {
      const single = await executeUnit(task);
      const paired = results.get(task.policy)!;
      expect(paired.summary.finalRegret).toBe(single.summary.finalRegret);
      expect(paired.summary.stateBytes).toBe(single.summary.stateBytes);
      const a = fs.readFileSync(unitFiles(together, task.policy, 1).csv, 'utf8');
      const b = fs.readFileSync(unitFiles(alone, task.policy, 1).csv, 'utf8');
      expect(withoutTimings(a)).toBe(withoutTimings(b));
      expect(a.split('\n').length).toBe(HORIZON + 2);
    }
  });

  it('a policy that fails stops alone: its partial CSV is removed, the others play every round', async () => {
    const resolved = experiment();
    const dir = path.join(root, 'failing');
    const { turns, results, failures, handlers } = recorder();
    const units = tasks(resolved, dir, 0);
    // OFUL-MLogB's side throws in round 7: a wrapper around the real policy.
    const wrapped: TrialHandlers = { ...handlers };
    const sides: TrialSide[] = units.map((unit) => {
      const policy = createPolicy(unit.policy, policySpecFor(resolved, unit.policy, 0));
      const failing = unit.policy === 'OFUL-MLogB';
      return {
        environment: createTrialEnvironment(resolved, 0),
        policy: failing
          ? { ...policy, name: policy.name, select: (a, t) => (t === 7 ? (() => { throw new Error('boom'); })() : policy.select(a, t)), update: (x, y) => policy.update(x, y), stats: () => policy.stats(), estimate: () => policy.estimate() }
          : policy,
        onRound: () => {},
      };
    });
    const outcomes = await runTrialsInStep(sides, HORIZON, 0, undefined, (i, t) => wrapped.turn?.(units[i]!, t));
    expect(outcomes[1]!.error).toBeInstanceOf(TrialError);
    expect(outcomes[1]!.error!.message).toBe('OFUL-MLogB, trial 0, round 7: boom');
    expect(outcomes[0]!.summary).not.toBeNull();
    expect(outcomes[2]!.summary).not.toBeNull();
    expect(turns.filter((turn) => turn.policy === 'OFUL-MLogB').map((turn) => turn.t).at(-1)).toBe(7);
    expect(turns.filter((turn) => turn.policy === 'Random')).toHaveLength(HORIZON);
    expect(results.size + failures.size).toBe(0);
  });

  it('a unit that cannot start is reported, and the others run', async () => {
    const resolved = experiment();
    const dir = path.join(root, 'unknown');
    const { results, failures, handlers } = recorder();
    const units = [...tasks(resolved, dir, 0), { id: 9, experiment: resolved, dir, policy: 'No-Such-Label', trial: 0 }];
    await executeTrial({ experiment: resolved, dir, trial: 0, units }, handlers);
    expect([...failures.keys()]).toEqual(['No-Such-Label']);
    expect(results.size).toBe(POLICIES.length);
  });
});

describe('what a unit writes of each round', () => {
  /** A trace (DESIGN §3) with W* and every action set given, |A_t| from 1 to 5: K = 2, d = 3, r = [0.5, 1]. */
  const trace = {
    K: 2, d: 3, reward: [0, 0.5, 1], W_star: [[1.5, -0.75, 0.25], [-0.5, 1.25, 1]],
    rounds: Array.from({ length: 12 }, (_, i) => ({
      actions: Array.from({ length: 1 + ((i * 3) % 5) }, (_, a) => [0, 1, 2].map((j) => Math.sin(7 * i + 3 * a + j + 1))),
      u: (Math.sin(11 * i) + 1) / 2.5,
    })),
  };

  /** rᵀσ(W*x), computed densely: σ_k = exp(w_k·x) / (1 + Σ_j exp(w_j·x)), outcome 0 the null one. */
  const expectedReward = (x: number[]): number => {
    const e = trace.W_star.map((w) => Math.exp(w.reduce((sum, v, j) => sum + v * (x[j] as number), 0)));
    const total = 1 + e.reduce((a, b) => a + b, 0);
    return e.reduce((sum, v, k) => sum + (trace.reward[k + 1] as number) * (v / total), 0);
  };

  it('actions is |A_t| and best_reward the largest expected reward among A_t (computed here from W*); best_reward − regret is the played action\'s', async () => {
    const dir = path.join(root, 'rounds');
    fs.mkdirSync(dir, { recursive: true });
    const traceFile = writeFile(dir, 'trace.json', JSON.stringify(trace));
    const config = ['name: rounds', `environment: {type: trace, file: ${JSON.stringify(traceFile)}}`, 'horizon: 12', 'trials: 1', 'seed: 0', 'policies: [EOFD-MLogB, Random]', 'params: {S: 2, m: 3, beta: order}', ''].join('\n');
    const resolved = resolveExperiment(parseConfig(config, path.join(dir, 'rounds.yaml')), { split: 'report' });
    const { failures, handlers } = recorder();
    await executeTrial({ experiment: resolved, dir, trial: 0, units: ['EOFD-MLogB', 'Random'].map((policy, id) => ({ id, experiment: resolved, dir, policy, trial: 0 })) }, handlers);
    expect(failures.size).toBe(0);
    const played = new Set<string>();
    for (const policy of ['EOFD-MLogB', 'Random']) {
      const rows = parse(fs.readFileSync(unitFiles(dir, policy, 0).csv, 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(12);
      rows.forEach((row, i) => {
        const actions = trace.rounds[i]!.actions;
        const expected = actions.map(expectedReward);
        const action = Number(row.action);
        const best = Number(row.best_reward);
        expect(Number(row.actions), `${policy} t = ${row.t}`).toBe(actions.length);
        expect(action).toBeLessThan(actions.length);
        expect(Math.abs(best - Math.max(...expected)), `${policy} t = ${row.t}`).toBeLessThan(1e-14);
        expect(Math.abs(best - Number(row.regret) - (expected[action] as number)), `${policy} t = ${row.t}`).toBeLessThan(1e-14);
        played.add(`${actions.length}:${Number(row.regret) > 0}`);
      });
    }
    // Rounds of one action and of several, and a played action that was not the best: the checks above are not vacuous.
    expect(played).toContain('1:false');
    expect([...played].some((p) => p.endsWith(':true'))).toBe(true);
  });
});

describe('a unit continued from its checkpoint', () => {
  const POLICY = 'EOFD-MLogB';
  const ROUNDS = 12;
  /** The columns of the trial CSVs eofd wrote before actions and best_reward. */
  const OLD_COLUMNS = TRIAL_COLUMNS.filter((c) => c !== 'actions' && c !== 'best_reward');

  /**
   * A stopped unit of trial 0: ROUNDS rounds played, its partial CSV (with `columns`, as an older
   * version wrote it; null: this version's, through TrialCsvWriter) and a checkpoint marking them.
   */
  async function stoppedUnit(resolved: ResolvedExperiment, dir: string, columns: readonly string[] | null, edit?: (records: RoundRecord[]) => void): Promise<void> {
    const files = unitFiles(dir, POLICY, 0);
    fs.mkdirSync(files.folder, { recursive: true });
    const policy = createUnitPolicy(resolved, POLICY, 0);
    const records: RoundRecord[] = [];
    await runTrialsInStep([{ environment: createTrialEnvironment(resolved, 0), policy, onRound: (r) => records.push(r) }], ROUNDS, 0);
    edit?.(records);
    let csv: CsvMark;
    if (columns === null) {
      const writer = new TrialCsvWriter(files.partial, POLICY, 0);
      for (const record of records) writer.add(record);
      csv = writer.mark();
      writer.close();
    } else {
      const keep = TRIAL_COLUMNS.map((c) => columns.includes(c));
      const text = stringify([columns, ...records.map((r) => roundCells('0', POLICY, r).filter((_, i) => keep[i]))]);
      fs.writeFileSync(files.partial, text);
      csv = { bytes: Buffer.byteLength(text), rows: ROUNDS, sha256: createHash('sha256').update(text).digest('hex') };
    }
    writeCheckpoint(files, { policy: POLICY, trial: 0, rounds: ROUNDS, csv }, snapshotPolicy(policy));
  }

  async function resume(dir: string, resolved: ResolvedExperiment): Promise<{ notes: string[]; resumed: number[] }> {
    const notes: string[] = [];
    const resumed: number[] = [];
    await executeUnit({ id: 0, experiment: resolved, dir, policy: POLICY, trial: 0 }, { note: (_, m) => notes.push(m), resumed: (_, rounds) => resumed.push(rounds) });
    return { notes, resumed };
  }

  it("continues this version's partial CSV after the checkpoint's round; one with an older version's columns starts again from round 1, saying why; both end as the uninterrupted CSV", async () => {
    const resolved = experiment();
    const clean = path.join(root, 'resume-clean');
    await executeUnit({ id: 0, experiment: resolved, dir: clean, policy: POLICY, trial: 0 });
    const uninterrupted = withoutTimings(fs.readFileSync(unitFiles(clean, POLICY, 0).csv, 'utf8'));

    const current = path.join(root, 'resume-current');
    await stoppedUnit(resolved, current, null);
    expect(await resume(current, resolved)).toEqual({ notes: [], resumed: [ROUNDS] });
    expect(withoutTimings(fs.readFileSync(unitFiles(current, POLICY, 0).csv, 'utf8'))).toBe(uninterrupted);

    const old = path.join(root, 'resume-old');
    await stoppedUnit(resolved, old, OLD_COLUMNS);
    const { notes, resumed } = await resume(old, resolved);
    expect(resumed).toEqual([]);
    expect(notes).toEqual([
      `its checkpoint cannot be used, so it starts again from round 1: ${unitFiles(old, POLICY, 0).partial} does not start with the header this eofd writes (${TRIAL_COLUMNS.join(',')}): rows of other columns cannot be continued`,
    ]);
    const written = fs.readFileSync(unitFiles(old, POLICY, 0).csv, 'utf8');
    expect(written.split('\n')[0]).toBe(TRIAL_COLUMNS.join(','));
    expect(withoutTimings(written)).toBe(uninterrupted);
    expect(readTrial(unitFiles(old, POLICY, 0).csv, POLICY, 0, HORIZON).cumRegret).toHaveLength(HORIZON);
    expect(fs.existsSync(unitFiles(old, POLICY, 0).checkpoint)).toBe(false);
  });

  it('replays the environment round by round: a CSV whose |A_t| or regret of some round the environment does not reproduce is not continued, and the note names the round', async () => {
    const resolved = experiment();
    const clean = path.join(root, 'replay-clean');
    await executeUnit({ id: 0, experiment: resolved, dir: clean, policy: POLICY, trial: 0 });
    const uninterrupted = withoutTimings(fs.readFileSync(unitFiles(clean, POLICY, 0).csv, 'utf8'));

    const offered = path.join(root, 'replay-offered');
    let truth = 0;
    await stoppedUnit(resolved, offered, null, (records) => {
      const round = records[4] as RoundRecord;
      truth = round.actions;
      round.actions += 1;
    });
    const first = await resume(offered, resolved);
    expect(first.resumed).toEqual([]);
    expect(first.notes).toEqual([`its checkpoint cannot be used, so it starts again from round 1: the environment replayed offers ${truth} actions in round 5, the CSV says ${truth + 1}`]);
    expect(withoutTimings(fs.readFileSync(unitFiles(offered, POLICY, 0).csv, 'utf8'))).toBe(uninterrupted);

    // Regret moved from round 3 on, its running sum kept (so the CSV itself reads as whole).
    const regret = path.join(root, 'replay-regret');
    await stoppedUnit(resolved, regret, null, (records) => {
      (records[2] as RoundRecord).regret += 0.5;
      for (const record of records.slice(2)) record.cumRegret += 0.5;
    });
    const second = await resume(regret, resolved);
    expect(second.resumed).toEqual([]);
    expect(second.notes).toHaveLength(1);
    expect(second.notes[0]).toMatch(/^its checkpoint cannot be used, so it starts again from round 1: the environment replayed to a regret of \S+ after round 3, the CSV says \S+$/);
    expect(withoutTimings(fs.readFileSync(unitFiles(regret, POLICY, 0).csv, 'utf8'))).toBe(uninterrupted);
  });
});
