/**
 * The units of one trial in lock-step (unit.ts executeTrial, trial.ts runTrialsInStep): block b of
 * every policy before block b + 1, the order reversed every other block and rotating, each policy's
 * records the bytes it writes alone, a failing policy leaving the others to finish.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { trialGroups, type UnitRef } from '../../src/experiment/plan.js';
import { createTrialEnvironment, policySpecFor, resolveExperiment, type ResolvedExperiment } from '../../src/experiment/setup.js';
import { LOCK_STEP_ROUNDS, runTrialsInStep, TrialError, turnOrder, type TrialSide } from '../../src/experiment/trial.js';
import { executeTrial, executeUnit, type TrialHandlers, type UnitResult, type UnitTask } from '../../src/experiment/unit.js';
import { createPolicy } from '../../src/policies/registry.js';
import { unitFiles } from '../../src/results/layout.js';
import { tempDir, tinyConfig, withoutTimings } from './fixtures.js';

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
