/**
 * Text broken into lines of at most so many terminal columns: between words, never inside an
 * interval, a mean ± std or a size; a word wider than a line is cut. The terminal tables and the
 * figures' panel headers (svg.ts, at the characters textWidth lets into a panel) wrap with it.
 */

/** Combining marks and format characters take no column. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
/** Code points a terminal draws two columns wide: East Asian wide and fullwidth forms, and emoji. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60], [0xffe0, 0xffe6], [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
];

/** Columns `text` takes on a terminal (no ANSI escapes in it): 0 per combining mark, 2 per wide character, else 1. */
export function displayWidth(text: string): number {
  let columns = 0;
  for (const ch of text) {
    if (ZERO_WIDTH.test(ch)) continue;
    const code = ch.codePointAt(0) as number;
    columns += WIDE.some(([low, high]) => code >= low && code <= high) ? 2 : 1;
  }
  return columns;
}

/** `word` cut into pieces of at most `width` columns (a wide character never split). */
function cutWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const ch of word) {
    if (piece !== '' && displayWidth(piece + ch) > width) {
      pieces.push(piece);
      piece = '';
    }
    piece += ch;
  }
  return [...pieces, piece];
}

/** Units that stay on their number's line ("1.28 MB"). */
const UNIT = /^[kMGT]?B$/;

/**
 * The words a line breaks between: at spaces, but never inside [ ], around ± nor before a unit of
 * bytes (an interval, a mean ± std, "1.28 MB" stay whole).
 */
export function wrapWords(paragraph: string): string[] {
  const words: string[] = [];
  let depth = 0;
  for (const piece of paragraph.split(' ')) {
    const last = words.length - 1;
    const glued = depth > 0 || piece === '±' || UNIT.test(piece) || (words[last] ?? '').endsWith('±');
    if (last >= 0 && glued) words[last] += ` ${piece}`;
    else words.push(piece);
    for (const ch of piece) depth = Math.max(0, depth + (ch === '[' ? 1 : ch === ']' ? -1 : 0));
  }
  return words;
}

/** `text` broken between its words (wrapWords) into lines of at most `width` columns; a word wider than that is cut. */
export function wrapText(text: string, width: number): string[] {
  if (!(Number.isInteger(width) && width >= 1)) throw new RangeError(`width must be an integer ≥ 1, got ${width}`);
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of wrapWords(paragraph)) {
      const joined = line === '' ? word : `${line} ${word}`;
      if (displayWidth(joined) <= width) {
        line = joined;
        continue;
      }
      if (line.trim() !== '') lines.push(line.trimEnd());
      const pieces = cutWord(word, width);
      lines.push(...pieces.slice(0, -1));
      line = pieces[pieces.length - 1] as string;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
