import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentConfig } from '../../src/config/schema.js';
import { RandomStream } from '../../src/random/stream.js';
import { createEnvironment } from '../../src/environments/registry.js';
import type { SyntheticEnvironment } from '../../src/environments/synthetic.js';

let dir: string;
let traceFile: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'eofd-registry-'));
  traceFile = path.join(dir, 'trace.json');
  writeFileSync(
    traceFile,
    JSON.stringify({
      K: 1,
      d: 2,
      reward: [0, 1],
      W_star: [[1, 0]],
      rounds: [
        { actions: [[1, 0], [0, 1]], u: 0.5 },
        { actions: [[0, 1], [1, 0]], u: 0.1 },
      ],
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synthetic: EnvironmentConfig = { type: 'synthetic', d: 5, K: 2, reward: [0, 0.5, 1], actions: [3, 4], S_star: 2 };

describe('createEnvironment: bad arguments', () => {
  it('rejects an unknown type', () => {
    const config = { type: 'nope' } as unknown as EnvironmentConfig;
    expect(() => createEnvironment(config, { horizon: 1, stream: new RandomStream('x') })).toThrow(/unknown environment type "nope"/);
  });
  it('rejects an environment shorter than the horizon', () => {
    expect(() => createEnvironment({ type: 'trace', file: traceFile }, { horizon: 3, stream: new RandomStream('x') })).toThrow(
      /trace environment has 2 rounds, fewer than the horizon 3/,
    );
  });
});

describe('createEnvironment', () => {
  it('builds a synthetic environment with r_1..r_K, S* and the horizon from the config', () => {
    const env = createEnvironment(synthetic, { horizon: 7, stream: new RandomStream('registry') }) as SyntheticEnvironment;
    expect([env.d, env.K, env.horizon, env.maxActionNorm]).toEqual([5, 2, 7, 1]);
    expect(Array.from(env.reward)).toEqual([0.5, 1]);
    expect(env.parameterError(new Float64Array(10))).toBeCloseTo(2, 12);
    const count = env.actions(1).count;
    expect(count >= 3 && count <= 4).toBe(true);
  });
  it('builds the same instance from the same seed', () => {
    const a = createEnvironment(synthetic, { horizon: 7, stream: new RandomStream('same') }) as SyntheticEnvironment;
    const b = createEnvironment(synthetic, { horizon: 7, stream: new RandomStream('same') }) as SyntheticEnvironment;
    expect(Array.from(a.trueWeights)).toEqual(Array.from(b.trueWeights));
  });
  it('builds an mnist environment with the target', () => {
    const env = createEnvironment({ type: 'mnist', target: 3, normalize: 'global' }, { horizon: 4, stream: new RandomStream('m') });
    expect([env.d, env.K, env.horizon]).toEqual([785, 1, 4]);
    expect(env.actions(1).count).toBe(10);
  });
  it('builds a trace environment from its file', () => {
    const env = createEnvironment({ type: 'trace', file: traceFile }, { horizon: 2, stream: new RandomStream('t') });
    expect([env.d, env.K, env.horizon]).toEqual([2, 1, 2]);
  });
});
