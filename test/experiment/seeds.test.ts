import { describe, expect, it } from 'vitest';
import { trialSeed } from '../../src/experiment/seeds.js';

describe('trialSeed: bad arguments', () => {
  it('rejects an empty name or purpose, a bad trial index, split or experiment seed', () => {
    expect(() => trialSeed('', 0, 'environment')).toThrow(/experimentName/);
    expect(() => trialSeed('x', -1, 'environment')).toThrow(/trialIndex/);
    expect(() => trialSeed('x', 1.5, 'environment')).toThrow(/trialIndex/);
    expect(() => trialSeed('x', 0, '')).toThrow(/purpose/);
    expect(() => trialSeed('x', 0, 'environment', 'test' as 'report')).toThrow(/split/);
    expect(() => trialSeed('x', 0, 'environment', 'report', -2)).toThrow(/experimentSeed/);
  });
});

describe('trialSeed', () => {
  it('is a deterministic 64-hex-digit hash of the identity', () => {
    const seed = trialSeed('synthetic-k4', 3, 'environment');
    expect(seed).toMatch(/^[0-9a-f]{64}$/);
    expect(trialSeed('synthetic-k4', 3, 'environment')).toBe(seed);
    expect(trialSeed('synthetic-k4', 3, 'environment', 'report', 0)).toBe(seed);
    // Pinned: a change here changes every published run.
    expect(seed).toBe('238675294e2135ac4f89217d9345ccb91cdd2dd05e86b89571a64b98f45007bf');
  });

  it('differs for every change of name, trial, purpose, split or experiment seed', () => {
    const seeds = new Set<string>();
    for (const name of ['a', 'b', 'a1'])
      for (let trial = 0; trial < 12; trial++)
        for (const purpose of ['environment', 'policy:Random', 'policy:EOFD-MLogB'])
          for (const split of ['report', 'validation'] as const)
            for (const experimentSeed of [0, 1]) seeds.add(trialSeed(name, trial, purpose, split, experimentSeed));
    expect(seeds.size).toBe(3 * 12 * 3 * 2 * 2);
  });

  it('does not confuse fields that concatenate alike', () => {
    expect(trialSeed('a1', 1, 'x')).not.toBe(trialSeed('a', 11, 'x'));
    expect(trialSeed('a', 1, 'x:y')).not.toBe(trialSeed('a:x', 1, 'y'));
  });
});
