import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { integer, strictObject } from '../../src/base/fields.js';
import { describeIssue, describeValue, valueAt } from '../../src/base/zod-issues.js';

const schema = strictObject({ horizon: integer(1), name: z.string({ error: 'expected a name' }).optional(), tag: z.string().refine((s) => s !== 'x', { error: 'x is reserved' }).optional() }, 'an experiment');

function issueOf(data: unknown): z.core.$ZodIssue {
  const result = schema.safeParse(data);
  if (result.success) throw new Error('expected an issue');
  return result.error.issues[0] as z.core.$ZodIssue;
}

describe('describeIssue: values that fail', () => {
  it('appends the value found to an `expected …` message', () => {
    expect(describeIssue(issueOf({ horizon: -5 }), { horizon: -5 })).toEqual({ field: ['horizon'], atKey: false, detail: 'expected an integer ≥ 1, got -5' });
    expect(describeIssue(issueOf({ horizon: 1, name: 3 }), { horizon: 1, name: 3 }).detail).toBe('expected a name, got 3');
  });

  it('says a missing value the way it is asked: `missing; …` or `…, got nothing`', () => {
    expect(describeIssue(issueOf({}), {}).detail).toBe('missing; expected an integer ≥ 1');
    expect(describeIssue(issueOf({}), {}, 'got nothing').detail).toBe('expected an integer ≥ 1, got nothing');
  });

  it('names an unknown key by its own path, with no value', () => {
    const data = { horizon: 1, horizen: 2 };
    const described = describeIssue(issueOf(data), data);
    expect(described.field).toEqual(['horizen']);
    expect(described.atKey).toBe(true);
    expect(described.detail).toMatch(/^unknown key "horizen" \(allowed: horizon, name, tag\)$/);
  });

  it('leaves a message that is not `expected …`, or already names the value, as it is', () => {
    expect(describeIssue(issueOf({ horizon: 1, tag: 'x' }), { horizon: 1, tag: 'x' }).detail).toBe('x is reserved');
    const own = z.object({ a: z.number().refine(() => false, { error: 'expected 3 numbers, got 2' }) });
    const result = own.safeParse({ a: 1 });
    expect(result.success).toBe(false);
    if (!result.success) expect(describeIssue(result.error.issues[0] as z.core.$ZodIssue, { a: 1 }).detail).toBe('expected 3 numbers, got 2');
  });
});

describe('valueAt and describeValue', () => {
  it('finds own properties only, through lists', () => {
    expect(valueAt({ a: [{ b: 2 }] }, ['a', 0, 'b'])).toBe(2);
    expect(valueAt({ a: 1 }, ['constructor'])).toBeUndefined();
    expect(valueAt(5, [])).toBe(5);
  });

  it('renders values on one short line', () => {
    expect(describeValue('abc')).toBe('"abc"');
    expect(describeValue(1e-7)).toBe('1e-7');
    expect(describeValue(null)).toBe('null');
    const long = describeValue(Array.from({ length: 40 }, (_, i) => i));
    expect(long).toMatch(/^\[0,1,2,.*\.\.\.$/);
    expect(long).toHaveLength(60);
  });
});
