import { describe, expect, it } from 'vitest';
import { experimentConfigSchema, listAllowed } from '../../src/config/schema.js';

const minimal = {
  name: 'quick',
  environment: { type: 'mnist' },
  horizon: 10,
  trials: 2,
  policies: ['Random'],
};

describe('experimentConfigSchema: bad arguments', () => {
  it('rejects unknown keys at every level', () => {
    for (const bad of [
      { ...minimal, extra: 1 },
      { ...minimal, params: { unknown: 1 } },
      { ...minimal, environment: { type: 'mnist', extra: 1 } },
      { ...minimal, environment: { type: 'trace', file: 'x', extra: 1 } },
    ]) {
      const result = experimentConfigSchema.safeParse(bad);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0].code).toBe('unrecognized_keys');
      expect(result.error?.issues[0].message).toMatch(/^unknown key "(extra|unknown)" \(allowed: /);
    }
  });
  it('rejects non-finite numbers', () => {
    expect(experimentConfigSchema.safeParse({ ...minimal, horizon: Infinity }).success).toBe(false);
    expect(experimentConfigSchema.safeParse({ ...minimal, params: { l: Number.NaN } }).success).toBe(false);
    expect(experimentConfigSchema.safeParse({ ...minimal, params: { beta: Infinity } }).success).toBe(false);
  });
});

describe('experimentConfigSchema', () => {
  it('fills defaults for seed, params and the mnist target', () => {
    const parsed = experimentConfigSchema.parse(minimal);
    expect(parsed.seed).toBe(0);
    expect(parsed.environment).toEqual({ type: 'mnist', target: 1, normalize: 'per-image' });
    expect(parsed.params).toEqual({ S: 1, l: 0.75, e: 0.75, m: 'auto', beta: 'order', beta_scale: 1, beta_rank: 'sketch', delta: 'auto' });
  });
  it('accepts each beta mode, a numeric beta, explicit lambda and eta', () => {
    for (const beta of ['theory', 'order', 2.5]) {
      expect(experimentConfigSchema.parse({ ...minimal, params: { beta } }).params.beta).toBe(beta);
    }
    expect(experimentConfigSchema.parse({ ...minimal, params: { lambda: 3, eta: 0.1, l: -0.5 } }).params).toMatchObject({
      lambda: 3,
      eta: 0.1,
      l: -0.5,
    });
  });
  it('lists allowed values the way messages print them', () => {
    expect(listAllowed(['a'])).toBe("'a'");
    expect(listAllowed(['a', 'b'])).toBe("'a' or 'b'");
    expect(listAllowed(['a', 'b', 'c'])).toBe("'a', 'b' or 'c'");
  });
});
