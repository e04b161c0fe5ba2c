import { describe, expect, it } from 'vitest';
import { RandomStream } from '../../src/random/stream.js';

describe('RandomStream: bad arguments', () => {
  it('rejects an empty or non-string seed', () => {
    expect(() => new RandomStream('')).toThrow(/seed/);
    expect(() => new RandomStream(42 as unknown as string)).toThrow(/seed/);
  });
  it('rejects non-integer or reversed integer bounds', () => {
    const stream = new RandomStream('s');
    expect(() => stream.integer(3, 2)).toThrow(RangeError);
    expect(() => stream.integer(0.5, 2)).toThrow(RangeError);
    expect(() => stream.integer(0, Number.NaN)).toThrow(RangeError);
  });
});

describe('RandomStream', () => {
  it('reproduces the same sequence from the same seed and differs across seeds', () => {
    const draw = (seed: string): number[] => {
      const s = new RandomStream(seed);
      return [s.uniform(), s.normal(), s.normal(), s.normal(), s.integer(1, 6), s.uniform()];
    };
    expect(draw('alpha')).toEqual(draw('alpha'));
    expect(draw('alpha')).not.toEqual(draw('beta'));
  });

  it("is seedrandom's ARC4 stream (machine independent)", () => {
    // seedrandom('hello.')() is documented as 0.9282578795792454; double() is a 53-bit refinement.
    const u = new RandomStream('hello.').uniform();
    expect(Math.abs(u - 0.9282578795792454)).toBeLessThan(1e-9);
  });

  it('draws uniforms in [0, 1) with mean ≈ 1/2', () => {
    const s = new RandomStream('uniform');
    let sum = 0;
    for (let i = 0; i < 20_000; i++) {
      const u = s.uniform();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
    }
    expect(Math.abs(sum / 20_000 - 0.5)).toBeLessThan(0.01);
  });

  it('draws normals with mean ≈ 0 and variance ≈ 1', () => {
    const s = new RandomStream('normal');
    const n = 40_000;
    let sum = 0;
    let squares = 0;
    for (let i = 0; i < n; i++) {
      const z = s.normal();
      expect(Number.isFinite(z)).toBe(true);
      sum += z;
      squares += z * z;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.03);
    expect(Math.abs(squares / n - 1)).toBeLessThan(0.03);
  });

  it('draws integers inclusive of both ends, one uniform each', () => {
    const s = new RandomStream('integer');
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const k = s.integer(-2, 3);
      expect(Number.isInteger(k) && k >= -2 && k <= 3).toBe(true);
      seen.add(k);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([-2, -1, 0, 1, 2, 3]);
    const a = new RandomStream('same');
    const b = new RandomStream('same');
    a.integer(0, 9);
    b.uniform();
    expect(a.uniform()).toBe(b.uniform());
    expect(new RandomStream('x').integer(4, 4)).toBe(4);
  });

  it('shuffles arrays and typed arrays in place into permutations, reproducibly', () => {
    const s = new RandomStream('shuffle');
    const array = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const returned = s.shuffle(array);
    expect(returned).toBe(array);
    expect([...array].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const typed = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    new RandomStream('shuffle').shuffle(typed);
    expect(Array.from(typed)).toEqual(array);
    // Every position receives every element over many shuffles.
    const counts = Array.from({ length: 4 }, () => new Array<number>(4).fill(0));
    for (let i = 0; i < 4_000; i++) {
      const p = s.shuffle([0, 1, 2, 3]);
      p.forEach((value, position) => counts[position][value]++);
    }
    for (const row of counts) for (const c of row) expect(Math.abs(c - 1_000)).toBeLessThan(150);
    expect(s.shuffle([])).toEqual([]);
  });
});
