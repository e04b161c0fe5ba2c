/**
 * The plotting kit's ground floor: an SVG document's opening, text with XML escaping, coordinates with
 * two decimals and an upper estimate of a text's width. Every figure (the report's, the heatmaps, the
 * sweeps', bench.svg) is hand-written SVG built from these, deterministic: no timestamps, no ids.
 */

/** The colours of text and lines, of secondary text, and of grid lines. */
export const INK = '#222222';
export const MUTED = '#555555';
export const GRID = '#e4e4e4';
/** Font size of ordinary text (px) and an upper estimate of a sans-serif character's advance (em). */
export const FONT_SIZE = 12;
const CHAR_EM = 0.62;

/** A line's look: its colour and SVG stroke-dasharray ('' for a solid line). */
export interface Stroke {
  colour: string;
  dash: string;
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** A coordinate: two decimals, never "-0.00". */
export function n(x: number): string {
  const s = x.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

/** Upper estimate of the width (px) of `text` at `fontSize` in a sans-serif font. */
export function textWidth(text: string, fontSize = FONT_SIZE): number {
  return text.length * fontSize * CHAR_EM;
}

/** How many characters textWidth lets into `width` px at `fontSize` (at least 1): the inverse of textWidth, for wrapping. */
export function charsWithin(width: number, fontSize = FONT_SIZE): number {
  return Math.max(1, Math.floor(width / (fontSize * CHAR_EM)));
}

/** ` stroke-dasharray="…"` for a dashed stroke, '' for a solid one. */
export function dashAttribute(stroke: Stroke): string {
  return stroke.dash === '' ? '' : ` stroke-dasharray="${stroke.dash}"`;
}

/** ` name="value"` for each entry, values escaped: the `data-*` hooks the tests find elements by. */
export function hooks(attributes: Readonly<Record<string, string | number>>): string {
  return Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');
}

export interface TextOptions {
  anchor?: 'start' | 'middle' | 'end';
  /** Font size (px); the document's (FONT_SIZE) when absent. */
  size?: number;
  bold?: boolean;
  /** Default INK. */
  fill?: string;
  /** Vertical shift (px), e.g. 4 to centre a 12 px label on y. */
  dy?: number;
  /** Degrees to turn the text about (x, y), e.g. −90 for a y axis title. */
  rotate?: number;
  /** More attributes (see hooks). */
  attributes?: Readonly<Record<string, string | number>>;
}

/** A `<text>` at (x, y); its content escaped. */
export function text(x: number, y: number, content: string, options: TextOptions = {}): string {
  const { anchor, size, bold, fill = INK, dy, rotate, attributes = {} } = options;
  return (
    `<text x="${n(x)}" y="${n(y)}"` +
    (dy === undefined ? '' : ` dy="${dy}"`) +
    (anchor === undefined ? '' : ` text-anchor="${anchor}"`) +
    (size === undefined ? '' : ` font-size="${size}"`) +
    (bold === true ? ' font-weight="bold"' : '') +
    ` fill="${fill}"` +
    (rotate === undefined ? '' : ` transform="rotate(${rotate} ${n(x)} ${n(y)})"`) +
    `${hooks(attributes)}>${escapeXml(content)}</text>`
  );
}

/** A `<line>` from (x1, y1) to (x2, y2); `extra` are further attributes as written. */
export function segment(x1: number, y1: number, x2: number, y2: number, stroke: string, extra = ''): string {
  return `<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${stroke}"${extra}/>`;
}

/**
 * The opening of an SVG of natural size `width` × `height` that scales to its container (never above
 * its natural width), its title and a white background.
 */
export function svgOpen(width: number, height: number, title: string, standalone = true, attributes = ''): string[] {
  const ns = standalone ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  return [
    `<svg${ns}${attributes} width="100%" viewBox="0 0 ${n(width)} ${n(height)}" style="max-width:${n(width)}px;height:auto" ` +
      `font-family="sans-serif" font-size="${FONT_SIZE}" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${n(width)}" height="${n(height)}" fill="#ffffff"/>`,
  ];
}
