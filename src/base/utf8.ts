/**
 * Strict UTF-8 (RFC 3629): where the first byte is that does not start a well-formed sequence, so
 * that a loader can name its line and column instead of decoding it to U+FFFD.
 */

/** The first invalid byte: its offset, its place (1-based line, and column in characters), its value. */
export interface InvalidUtf8 {
  offset: number;
  line: number;
  column: number;
  byte: number;
}

/** The first invalid byte of `bytes`, or null when they are all well-formed UTF-8. */
export function invalidUtf8(bytes: Uint8Array): InvalidUtf8 | null {
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return null;
  let lineStart = 0;
  let line = 1;
  for (let i = 0; i < bad; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = Buffer.from(bytes.subarray(lineStart, bad)).toString('utf8').length + 1;
  return { offset: bad, line, column, byte: bytes[bad] as number };
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence, or −1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let following: number;
    let smallest: number;
    let codePoint: number;
    if (lead >= 0xc2 && lead <= 0xdf) {
      following = 1;
      smallest = 0x80;
      codePoint = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      following = 2;
      smallest = 0x800;
      codePoint = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      following = 3;
      smallest = 0x10000;
      codePoint = lead & 0x07;
    } else {
      return i;
    }
    if (i + following >= n) return i;
    for (let k = 1; k <= following; k++) {
      const next = bytes[i + k] as number;
      if ((next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (codePoint < smallest || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return i;
    i += following + 1;
  }
  return -1;
}
