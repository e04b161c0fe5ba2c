import { describe, expect, it } from 'vitest';
import { splitTopLevel } from '../../src/results/layout.js';

describe('splitTopLevel', () => {
  it('splits at the commas outside brackets and braces, keeping the parts as written', () => {
    expect(splitTopLevel('l=0.5,e=-0.25')).toEqual(['l=0.5', 'e=-0.25']);
    expect(splitTopLevel('actions=[3, 6],m={a: 1, b: [2, 3]}')).toEqual(['actions=[3, 6]', 'm={a: 1, b: [2, 3]}']);
    expect(splitTopLevel(' 8, 20 ,')).toEqual([' 8', ' 20 ', '']);
    expect(splitTopLevel('')).toEqual(['']);
  });
});
