import { describe, expect, it } from 'vitest';
import { decadeLabel, decadeRange, decadeScale, linearScale, logScale, niceScale, niceTicks, pointScale, slotScale, tickLabel } from '../../src/plot/scale.js';

describe('scales: bad arguments', () => {
  it('niceTicks of nothing, a negative or a non-finite max is 0..1', () => {
    for (const max of [0, -5, NaN, Infinity]) expect(niceTicks(max).values).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('decadeRange: nothing to show is one decade below 1; a single value gets a decade of its own; at most maxDecades', () => {
    expect(decadeRange([], [], 6)).toEqual([-1, 0]);
    expect(decadeRange([1], [1], 6)).toEqual([0, 1]);
    expect(decadeRange([1e-9], [50], 6)).toEqual([-4, 2]);
    expect(decadeRange([], [50], 6)).toEqual([1, 2]);
  });

  it('a degenerate domain does not divide by zero; values below the domain sit at its start', () => {
    expect(linearScale([3, 3], [0, 100]).at(3)).toBe(0);
    expect(linearScale([0, 10], [100, 0]).at(-4)).toBe(100);
    expect(logScale([0.1, 10], [0, 100]).at(0)).toBe(0);
    expect(pointScale([], [0, 100]).ticks).toEqual([]);
    expect(slotScale([], [0, 100]).width).toBe(100);
  });
});

describe('scales', () => {
  it('round-number ticks 1, 2 or 5 × 10^k apart, from 0 to the first tick ≥ max', () => {
    expect(niceTicks(50).values).toEqual([0, 10, 20, 30, 40, 50]);
    expect(niceTicks(23.4).values).toEqual([0, 5, 10, 15, 20, 25]);
    expect(niceTicks(0.37).values).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(niceTicks(0.37).decimals).toBe(1);
    expect(niceTicks(0).top).toBe(1);
  });

  it('tick labels: exact decimals, thousands as "k" on long axes', () => {
    const small = niceTicks(0.37);
    expect(small.values.map((v) => tickLabel(v, small))).toEqual(['0.0', '0.1', '0.2', '0.3', '0.4']);
    const long = niceTicks(50_000);
    expect(long.values.map((v) => tickLabel(v, long))).toEqual(['0', '10k', '20k', '30k', '40k', '50k']);
    expect([-3, -1, 0, 2, 7].map(decadeLabel)).toEqual(['0.001', '0.1', '1', '100', '1e7']);
  });

  it('niceScale maps 0 and its top onto the range ends (y grows upwards when the range is reversed)', () => {
    const y = niceScale(23.4, [200, 0]);
    expect(y.at(0)).toBe(200);
    expect(y.at(25)).toBe(0);
    expect(y.at(12.5)).toBe(100);
    expect(y.ticks.map((t) => t.label)).toEqual(['0', '5', '10', '15', '20', '25']);
  });

  it('decadeScale: equal ratios are equal distances; labelled decades, unlabelled minor ticks; "≤" on a floored start', () => {
    const y = decadeScale(-2, 1, [300, 0], true);
    expect(y.at(0.01)).toBe(300);
    expect(y.at(10)).toBe(0);
    expect(y.at(0.1) - y.at(1)).toBeCloseTo(y.at(1) - y.at(10), 10);
    expect(y.at(0)).toBe(300);
    expect(y.ticks.filter((t) => t.minor !== true).map((t) => t.label)).toEqual(['≤0.01', '0.1', '1', '10']);
    expect(y.ticks.filter((t) => t.minor === true)).toHaveLength(3 * 8);
    expect(decadeScale(0, 1, [0, 1]).ticks[0]!.label).toBe('1');
  });

  it('points spread end to end (one point in the middle); slots put each label in the middle of its share', () => {
    expect([0, 1, 2].map(pointScale(['a', 'b', 'c'], [0, 100]).at)).toEqual([0, 50, 100]);
    expect(pointScale(['a'], [0, 100]).at(0)).toBe(50);
    const slots = slotScale(['a', 'b'], [0, 100]);
    expect([slots.at(0), slots.at(1), slots.width]).toEqual([25, 75, 50]);
  });
});
