/**
 * A minimal terminal for progress tests: plays what a program wrote (text, \r, \n, and the cursor-up
 * `ESC[nA` and erase-below `ESC[J` the live view uses; other escapes are ignored) on a screen of
 * `columns` and records every line that ever held text (scrollback included) and every wrap (a
 * character written past the last column).
 */
export interface Terminal {
  /** The lines as they stand at the end (scrollback and screen). */
  lines: string[];
  /** How often a line was wider than the terminal. */
  wraps: number;
  /** The widest line ever drawn. */
  widest: number;
}

export function playTerminal(output: string, columns: number): Terminal {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  let wraps = 0;
  let widest = 0;
  const chars = Array.from(output);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === '\x1b') {
      const rest = chars.slice(i, i + 16).join('');
      const match = /^\x1b\[(\??)(\d*)([A-Za-z])/.exec(rest);
      if (match === null) continue;
      i += Array.from(match[0]).length - 1;
      const n = match[2] === '' ? 1 : Number(match[2]);
      if (match[1] === '' && match[3] === 'A') row = Math.max(0, row - n);
      if (match[1] === '' && match[3] === 'J') {
        lines.length = row + 1;
        lines[row] = (lines[row] as string[]).slice(0, col);
      }
      continue;
    }
    if (c === '\r') col = 0;
    else if (c === '\n') {
      row++;
      col = 0;
      lines[row] ??= [];
    } else {
      if (col >= columns) {
        wraps++;
        row++;
        col = 0;
        lines[row] ??= [];
      }
      (lines[row] as string[])[col++] = c;
      widest = Math.max(widest, col);
    }
  }
  return { lines: lines.map((l) => Array.from(l, (ch) => ch ?? ' ').join('')), wraps, widest };
}
