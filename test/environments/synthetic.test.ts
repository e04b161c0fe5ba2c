import { describe, expect, it } from 'vitest';
import { RandomStream } from '../../src/random/stream.js';
import { createSyntheticEnvironment, type SyntheticSpec } from '../../src/environments/synthetic.js';

const spec = (overrides: Partial<SyntheticSpec> = {}): SyntheticSpec => ({
  d: 6,
  K: 3,
  reward: Float64Array.from([0.25, 0.5, 1]),
  actionsMin: 10,
  actionsMax: 30,
  normStar: 2,
  horizon: 5_000,
  ...overrides,
});

/** Dense, obvious rᵀσ(W*x) for action i of the round (the independent reference). */
function referenceExpectedReward(wStar: Float64Array, reward: Float64Array, d: number, x: Float64Array, i: number): number {
  const K = reward.length;
  const exps: number[] = [];
  for (let k = 0; k < K; k++) {
    let z = 0;
    for (let j = 0; j < d; j++) z += wStar[k * d + j] * x[i * d + j];
    exps.push(Math.exp(z));
  }
  const total = 1 + exps.reduce((a, b) => a + b, 0);
  return exps.reduce((sum, e, k) => sum + (reward[k] * e) / total, 0);
}

describe('createSyntheticEnvironment: bad arguments', () => {
  const stream = () => new RandomStream('bad');
  it('rejects bad dimensions, rewards, action ranges, norms and horizons', () => {
    expect(() => createSyntheticEnvironment(spec({ d: 0 }), stream())).toThrow(/d must be/);
    expect(() => createSyntheticEnvironment(spec({ K: 1.5 }), stream())).toThrow(/K must be/);
    expect(() => createSyntheticEnvironment(spec({ reward: Float64Array.from([1]) }), stream())).toThrow(/reward/);
    expect(() => createSyntheticEnvironment(spec({ reward: Float64Array.from([1, -1, 1]) }), stream())).toThrow(/≥ 0/);
    expect(() => createSyntheticEnvironment(spec({ actionsMin: 0 }), stream())).toThrow(/actionsMin/);
    expect(() => createSyntheticEnvironment(spec({ actionsMin: 5, actionsMax: 4 }), stream())).toThrow(/actionsMax/);
    expect(() => createSyntheticEnvironment(spec({ normStar: -1 }), stream())).toThrow(/normStar/);
    expect(() => createSyntheticEnvironment(spec({ normStar: Number.NaN }), stream())).toThrow(/normStar/);
    expect(() => createSyntheticEnvironment(spec({ horizon: 0 }), stream())).toThrow(/horizon/);
  });
  it('rejects rounds out of order, past the horizon, and plays out of turn or range', () => {
    const env = createSyntheticEnvironment(spec({ horizon: 2 }), stream());
    expect(() => env.play(0)).toThrow(/must follow actions/);
    expect(() => env.actions(2)).toThrow(/expected round 1/);
    const { count } = env.actions(1);
    expect(() => env.play(count)).toThrow(RangeError);
    expect(() => env.play(-1)).toThrow(RangeError);
    expect(() => env.play(0.5)).toThrow(RangeError);
    env.play(0);
    expect(() => env.play(0)).toThrow(/once per round/);
    env.actions(2);
    expect(() => env.actions(3)).toThrow(/past the horizon/);
    expect(() => env.parameterError(new Float64Array(3))).toThrow(/K·d = 18/);
  });
});

describe('createSyntheticEnvironment', () => {
  it('scales W* to ‖W*‖_F = S* and reports ‖W − W*‖_F', () => {
    for (const normStar of [0.5, 1, 5]) {
      const env = createSyntheticEnvironment(spec({ normStar, d: 100, K: 4, reward: Float64Array.from([0.25, 0.5, 0.75, 1]) }), new RandomStream(`w${normStar}`));
      expect(env.trueWeights.length).toBe(400);
      expect(Math.abs(env.parameterError(new Float64Array(400)) - normStar)).toBeLessThan(1e-12 * normStar);
      expect(env.parameterError(Float64Array.from(env.trueWeights))).toBe(0);
    }
    const zero = createSyntheticEnvironment(spec({ normStar: 0 }), new RandomStream('zero'));
    expect(zero.parameterError(new Float64Array(18))).toBe(0);
    expect(zero.maxActionNorm).toBe(1);
  });

  it('draws unit-norm actions, |A_t| within [min, max] hitting both ends', () => {
    const env = createSyntheticEnvironment(spec(), new RandomStream('sizes'));
    const seen = new Set<number>();
    for (let t = 1; t <= 2_000; t++) {
      const set = env.actions(t);
      expect(set.count >= 10 && set.count <= 30).toBe(true);
      expect(set.d).toBe(6);
      expect(set.features.length).toBe(30 * 6);
      seen.add(set.count);
      for (let i = 0; i < set.count; i++) {
        let s = 0;
        for (let j = 0; j < 6; j++) s += set.features[i * 6 + j] ** 2;
        expect(Math.abs(Math.sqrt(s) - 1)).toBeLessThanOrEqual(1e-12);
      }
      env.play(0);
    }
    expect(seen.has(10) && seen.has(30)).toBe(true);
    expect(seen.size).toBe(21);
  });

  it('spreads actions over the sphere (coordinate means ≈ 0, second moments ≈ 1/d)', () => {
    const d = 6;
    const env = createSyntheticEnvironment(spec({ d }), new RandomStream('sphere'));
    const mean = new Float64Array(d);
    const second = new Float64Array(d);
    let n = 0;
    for (let t = 1; t <= 1_000; t++) {
      const set = env.actions(t);
      for (let i = 0; i < set.count; i++, n++)
        for (let j = 0; j < d; j++) {
          mean[j] += set.features[i * d + j];
          second[j] += set.features[i * d + j] ** 2;
        }
    }
    for (let j = 0; j < d; j++) {
      expect(Math.abs(mean[j] / n)).toBeLessThan(0.02);
      expect(Math.abs(second[j] / n - 1 / d)).toBeLessThan(0.01);
    }
  });

  it('gives identical rounds and feedback for the same seed, different ones for another', () => {
    const record = (seed: string): number[] => {
      const env = createSyntheticEnvironment(spec(), new RandomStream(seed));
      const out: number[] = [...env.trueWeights];
      for (let t = 1; t <= 50; t++) {
        const set = env.actions(t);
        out.push(set.count, ...set.features.subarray(0, set.count * set.d), env.roundUniform);
        const f = env.play(t % set.count);
        out.push(f.outcome, f.reward, f.regret);
      }
      return out;
    };
    expect(record('same')).toEqual(record('same'));
    expect(record('same')).not.toEqual(record('other'));
  });

  it('consumes the stream in the documented order: W*, then per round count, actions, u', () => {
    const d = 4;
    const K = 2;
    const env = createSyntheticEnvironment(spec({ d, K, reward: Float64Array.from([0.5, 1]), normStar: 1 }), new RandomStream('order'));
    const replay = new RandomStream('order');
    const w = Array.from({ length: K * d }, () => replay.normal());
    const norm = Math.hypot(...w);
    w.forEach((value, i) => expect(env.trueWeights[i]).toBeCloseTo(value / norm, 14));
    for (let t = 1; t <= 5; t++) {
      const set = env.actions(t);
      expect(set.count).toBe(replay.integer(10, 30));
      for (let i = 0; i < set.count; i++) {
        const x = Array.from({ length: d }, () => replay.normal());
        const xn = Math.hypot(...x);
        x.forEach((value, j) => expect(set.features[i * d + j]).toBeCloseTo(value / xn, 14));
      }
      expect(env.roundUniform).toBe(replay.uniform());
      env.play(0);
    }
  });

  it('reports pseudo-regret ≥ 0, exactly 0 for the best action, and the best expected reward, matching a dense reference', () => {
    const s = spec();
    const a = createSyntheticEnvironment(s, new RandomStream('regret'));
    const b = createSyntheticEnvironment(s, new RandomStream('regret'));
    const pick = new RandomStream('picker');
    for (let t = 1; t <= 300; t++) {
      const set = a.actions(t);
      b.actions(t);
      const values = Array.from({ length: set.count }, (_, i) => referenceExpectedReward(a.trueWeights, a.reward, s.d, set.features, i));
      const best = values.indexOf(Math.max(...values));
      expect(a.play(best).regret).toBe(0);
      const other = pick.integer(0, set.count - 1);
      const { regret, bestReward } = b.play(other);
      expect(regret).toBeGreaterThanOrEqual(0);
      expect(Math.abs(regret - (values[best] - values[other]))).toBeLessThan(1e-12);
      // The best expected reward regret is measured against: regret = bestReward − the played action's.
      expect(Math.abs((bestReward as number) - values[best])).toBeLessThan(1e-12);
    }
  });

  it('samples outcomes with the σ(W*x) probabilities and pays r_y', () => {
    const K = 2;
    const env = createSyntheticEnvironment(spec({ d: 3, K, reward: Float64Array.from([0.5, 1]), normStar: 3, horizon: Infinity }), new RandomStream('outcomes'));
    let paid = 0;
    let expected = 0;
    const T = 20_000;
    for (let t = 1; t <= T; t++) {
      const set = env.actions(t);
      expected += referenceExpectedReward(env.trueWeights, env.reward, 3, set.features, 0);
      const f = env.play(0);
      expect([0, 1, 2]).toContain(f.outcome);
      expect(f.reward).toBe(f.outcome === 0 ? 0 : env.reward[f.outcome - 1]);
      paid += f.reward;
    }
    // Standard deviation of the mean reward is below 0.5/√T ≈ 0.0035.
    expect(Math.abs(paid - expected) / T).toBeLessThan(0.015);
  });

  it('handles the binary case K = 1 with r = [1]', () => {
    const env = createSyntheticEnvironment(spec({ K: 1, d: 400, reward: Float64Array.of(1), normStar: 1 }), new RandomStream('binary'));
    expect(env.K).toBe(1);
    expect(Array.from(env.reward)).toEqual([1]);
    for (let t = 1; t <= 20; t++) {
      env.actions(t);
      const f = env.play(0);
      expect(f.reward).toBe(f.outcome);
      expect(f.regret).toBeGreaterThanOrEqual(0);
    }
  });
});
