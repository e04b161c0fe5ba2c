import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, invalidUtf8 } from '../../src/base/utf8.js';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('firstInvalidUtf8: bytes that are not UTF-8', () => {
  it.each([
    ['a lone continuation byte', bytes('ab', [0x80]), 2],
    ['a byte never used (0xff)', bytes([0xff]), 0],
    ['an overlong two-byte form (0xc0 0xaf)', bytes('a', [0xc0, 0xaf]), 1],
    ['an overlong three-byte form', bytes([0xe0, 0x80, 0xaf]), 0],
    ['a UTF-16 surrogate (U+D800)', bytes([0xed, 0xa0, 0x80]), 0],
    ['a code point past U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a sequence cut short by the end', bytes('x', [0xe2, 0x82]), 1],
    ['a lead byte followed by ASCII', bytes([0xc3, 0x41]), 0],
    ['Latin-1 é', bytes('caf', [0xe9], '\n'), 3],
  ])('%s', (_, input, offset) => {
    expect(firstInvalidUtf8(input)).toBe(offset);
  });
});

describe('firstInvalidUtf8: well-formed UTF-8', () => {
  it('accepts ASCII, 2-, 3- and 4-byte sequences and the empty input', () => {
    expect(firstInvalidUtf8(bytes(''))).toBe(-1);
    expect(firstInvalidUtf8(bytes('name: café λ € 𝔼 \u{10ffff}\n'))).toBe(-1);
    expect(invalidUtf8(bytes('ok'))).toBeNull();
  });
});

describe('invalidUtf8: where the first invalid byte is', () => {
  it('names its offset, byte, line, and column in characters', () => {
    expect(invalidUtf8(bytes('name: caf', [0xe9], '\nhorizon: 1\n'))).toEqual({ offset: 9, line: 1, column: 10, byte: 0xe9 });
    // An overlong encoding and a lone continuation byte on a later line.
    expect(invalidUtf8(bytes([0x61, 0x3a, 0x0a, 0x62, 0xc0, 0xaf]))?.line).toBe(2);
    expect(invalidUtf8(bytes('a: é\nb: ', [0x80]))).toEqual({ offset: 9, line: 2, column: 4, byte: 0x80 });
  });
});
