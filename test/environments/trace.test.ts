import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTraceEnvironment, TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import { softmaxDense, timesX } from '../helpers/dense.js';

const dir = mkdtempSync(join(tmpdir(), 'eofd-trace-'));

function writeTrace(name: string, content: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

const good: Trace = {
  K: 2,
  d: 3,
  reward: [0, 0.5, 1],
  W_star: [
    [1, 0, -1],
    [0.5, 2, 0],
  ],
  rounds: [
    { actions: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], u: 0.05 },
    { actions: [[0.6, 0.8, 0], [0, 0, -1]], u: 0.97 },
  ],
};

function variant(mutate: (t: any) => void): string {
  const copy = structuredClone(good) as any;
  mutate(copy);
  return JSON.stringify(copy);
}

describe('trace environment: bad input names the file and the field', () => {
  const cases: [string, string | Buffer, RegExp][] = [
    ['short-row.json', variant((t) => t.rounds[1].actions[0].pop()), /short-row\.json: rounds\[1\]\.actions\[0\]: expected 3 numbers, got 2/],
    ['missing-u.json', variant((t) => delete t.rounds[0].u), /missing-u\.json: rounds\[0\]\.u: expected a number in \[0, 1\), got nothing/],
    ['missing-field.json', variant((t) => delete t.W_star), /missing-field\.json: W_star: missing field/],
    ['nan.json', variant((t) => (t.rounds[0].actions[2][1] = 'NaN')), /nan\.json: rounds\[0\]\.actions\[2\]\[1\]: expected a finite number, got "NaN"/],
    ['null.json', variant((t) => (t.W_star[1][0] = null)), /null\.json: W_star\[1\]\[0\]: expected a finite number, got null/],
    ['r0.json', variant((t) => (t.reward[0] = 0.1)), /r0\.json: reward\[0\]: r_0 must be 0/],
    ['reward-length.json', variant((t) => t.reward.pop()), /reward-length\.json: reward: expected 3 numbers, got 2/],
    ['empty-actions.json', variant((t) => (t.rounds[1].actions = [])), /rounds\[1\]\.actions: expected a non-empty array/],
    ['k0.json', variant((t) => (t.K = 0)), /k0\.json: K: expected an integer in 1\.\.64, got 0/],
    ['unknown.json', variant((t) => (t.extra = 1)), /unknown\.json: extra: unknown field/],
    ['truncated.json', JSON.stringify(good).slice(0, 40), /truncated\.json: invalid JSON/],
    ['latin1.json', Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]), /latin1\.json: not valid UTF-8 text/],
  ];
  for (const [name, content, message] of cases) {
    it(name, () => {
      const file = writeTrace(name, content);
      expect(() => loadTraceEnvironment(file)).toThrow(message);
      try {
        loadTraceEnvironment(file);
      } catch (error) {
        expect((error as { exitCode?: number }).exitCode).toBe(2);
        expect((error as Error).message).not.toMatch(/\n/);
      }
    });
  }
  it('a missing file', () => {
    expect(() => loadTraceEnvironment(join(dir, 'nope.json'))).toThrow(/nope\.json: cannot read trace: no such file/);
  });
});

describe('trace environment: replay', () => {
  it('replays the recorded actions, samples y with the recorded u, and reports pseudo-regret', () => {
    const env = loadTraceEnvironment(writeTrace('good.json', JSON.stringify(good)));
    expect(env.horizon).toBe(2);
    expect(env.maxActionNorm).toBeCloseTo(1, 15);
    const w = good.W_star.flat();
    for (let t = 1; t <= 2; t++) {
      const round = good.rounds[t - 1];
      const actions = env.actions(t);
      expect(Array.from(actions.features.subarray(0, actions.count * 3))).toEqual(round.actions.flat());
      const expected = round.actions.map((x) => softmaxDense(timesX(w, 2, x)).reduce((s, p, k) => s + p * good.reward[k + 1], 0));
      for (const index of [0, actions.count - 1]) {
        const p = softmaxDense(timesX(w, 2, round.actions[index]));
        const cumulative = [1 - p[0] - p[1], 1 - p[1], 1];
        const outcome = cumulative.findIndex((c) => round.u < c);
        env.actions(t);
        const feedback = env.play(index);
        expect(feedback.outcome).toBe(outcome);
        expect(feedback.reward).toBe(good.reward[outcome]);
        expect(feedback.regret).toBeCloseTo(Math.max(...expected) - expected[index], 14);
        expect(feedback.bestReward).toBeCloseTo(Math.max(...expected), 14);
      }
    }
    expect(() => env.actions(3)).toThrow(/rounds 1\.\.2, asked for round 3/);
  });
  it('measures ‖W − W*‖_F', () => {
    const env = new TraceEnvironment(good);
    expect(env.parameterError!(new Float64Array(6))).toBeCloseTo(Math.hypot(1, 0, -1, 0.5, 2, 0), 14);
  });
});

describe('trace environment: large traces', () => {
  it('takes 200,000 rounds and d = 150,000 (no argument spreading over rounds or coordinates)', () => {
    const rounds = Array.from({ length: 200_000 }, (_, t) => ({ actions: [[0.6, 0.8], [0.3, -0.4]], u: (t % 97) / 97 }));
    const long = new TraceEnvironment({ K: 1, d: 2, reward: [0, 1], W_star: [[0.5, 0.5]], rounds });
    expect(long.horizon).toBe(200_000);
    expect(long.maxActionNorm).toBe(1);
    const d = 150_000;
    const wide = new Float64Array(d).fill(1 / Math.sqrt(d));
    const trace: Trace = { K: 1, d, reward: [0, 1], W_star: [Array.from(wide)], rounds: [{ actions: [Array.from(wide)], u: 0.5 }] };
    expect(new TraceEnvironment(trace).maxActionNorm).toBeCloseTo(1, 12);
  });
});
