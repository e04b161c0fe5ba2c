/** mean, sampleStd and median on small hand-checked samples, including the empty and single-value cases. */
import { describe, expect, it } from 'vitest';
import { mean, median, sampleStd } from '../../src/stats/descriptive.js';

describe('empty and single-value samples', () => {
  it('gives NaN for an empty sample', () => {
    expect(mean([])).toBeNaN();
    expect(sampleStd([])).toBeNaN();
    expect(median([])).toBeNaN();
    expect(mean(new Float64Array(0))).toBeNaN();
  });

  it('gives the value itself and a zero standard deviation for one value', () => {
    expect(mean([3.5])).toBe(3.5);
    expect(sampleStd([3.5])).toBe(0);
    expect(median([3.5])).toBe(3.5);
  });
});

describe('mean', () => {
  it('averages plain and typed arrays', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean(Float64Array.from([-2, 0, 5]))).toBe(1);
  });
});

describe('sampleStd', () => {
  it('uses the n − 1 denominator', () => {
    // Mean 5, squared deviations 9 + 1 + 1 + 1 + 0 + 0 + 4 + 16 = 32 → √(32/7).
    expect(sampleStd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 14);
    // Mean 2, squared deviations 1 + 0 + 1 = 2 → √(2/2) = 1.
    expect(sampleStd(Float64Array.from([1, 2, 3]))).toBe(1);
  });

  it('is zero for a constant sample and shift-invariant', () => {
    expect(sampleStd([7, 7, 7, 7])).toBe(0);
    expect(sampleStd([1e6 + 1, 1e6 + 2, 1e6 + 3])).toBeCloseTo(1, 9);
  });
});

describe('median', () => {
  it('takes the middle value of an odd count and the mean of the middle two of an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([-5, 10, -1, 0, 7])).toBe(0);
  });

  it('sorts numerically, not lexicographically', () => {
    expect(median([10, 9, 100])).toBe(10);
  });

  it('leaves its argument untouched', () => {
    const values = [5, 1, 4, 2, 3];
    const typed = Float64Array.from(values);
    expect(median(values)).toBe(3);
    expect(median(typed)).toBe(3);
    expect(values).toEqual([5, 1, 4, 2, 3]);
    expect(Array.from(typed)).toEqual([5, 1, 4, 2, 3]);
  });
});
