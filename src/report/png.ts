/**
 * SVG → PNG for `eofd report --png`, with resvg (@resvg/resvg-js: a Rust SVG renderer whose
 * platform binaries install from the npm registry; no browser). Text is drawn with the system's
 * fonts (resvg's `loadSystemFonts`); the SVGs ask for a generic sans-serif.
 */
import { createRequire } from 'node:module';
import type { Resvg as ResvgClass } from '@resvg/resvg-js';
import { ResultsError } from '../results/read-json.js';

/** Pixels per SVG unit in the PNGs: twice the natural size, sharp on high-density screens and in print. */
export const PNG_SCALE = 2;

/**
 * The most pixels one PNG may have: drawing holds 4 bytes a pixel (and the encoder more), so an image
 * of every panel of hundreds of experiments would take gigabytes (400 experiments: 2320 × 80,544 px).
 */
export const PNG_MAX_PIXELS = 24_000_000;

/**
 * The most experiments `eofd report --png` draws: a figure has one panel each, three to a row, and
 * this many fit PNG_MAX_PIXELS (8 rows, about 2320 × 5000 px).
 */
export const PNG_MAX_PANELS = 24;

/**
 * Refuses `--png` for more than PNG_MAX_PANELS experiments, with the count and the fix (a ResultsError,
 * exit 2), before anything is drawn or written.
 */
export function checkPngPanels(experiments: number): void {
  if (experiments <= PNG_MAX_PANELS) return;
  throw new ResultsError(
    `--png: ${experiments} experiments, and a PNG figure holds at most ${PNG_MAX_PANELS} (one panel each): ` +
      `report at most ${PNG_MAX_PANELS} folders at a time with --png, or leave out --png (the SVG figures and report.html show all ${experiments})`,
  );
}

/** The renderer, loaded on first use (a native module: only `--png` needs it). */
let resvg: typeof ResvgClass | null = null;

/**
 * The SVG document `svg` as PNG bytes, `scale` pixels per SVG unit of its viewBox. An image over
 * PNG_MAX_PIXELS is refused (a ResultsError, exit 2) before it is drawn.
 */
export function svgToPng(svg: string, scale: number = PNG_SCALE): Buffer {
  if (!(Number.isFinite(scale) && scale > 0)) throw new RangeError(`scale must be a positive number, got ${scale}`);
  resvg ??= (createRequire(import.meta.url)('@resvg/resvg-js') as { Resvg: typeof ResvgClass }).Resvg;
  const parsed = new resvg(svg, { fitTo: { mode: 'zoom', value: scale }, font: { loadSystemFonts: true } });
  const width = Math.ceil(parsed.width * scale);
  const height = Math.ceil(parsed.height * scale);
  if (width * height > PNG_MAX_PIXELS) {
    throw new ResultsError(
      `the PNG would be ${width} × ${height} px (${((width * height) / 1e6).toFixed(1)} megapixels); ` +
        `at most ${PNG_MAX_PIXELS / 1e6} megapixels are drawn: draw fewer panels, or use the SVG`,
    );
  }
  return parsed.render().asPng();
}
