/**
 * SVG → PNG for `eofd report --png`, with resvg (@resvg/resvg-js: a Rust SVG renderer whose
 * platform binaries install from the npm registry; no browser). Text is drawn with the system's
 * fonts (resvg's `loadSystemFonts`); the SVGs ask for a generic sans-serif.
 */
import { createRequire } from 'node:module';
import type { Resvg as ResvgClass } from '@resvg/resvg-js';

/** Pixels per SVG unit in the PNGs: twice the natural size, sharp on high-density screens and in print. */
export const PNG_SCALE = 2;

/** The renderer, loaded on first use (a native module: only `--png` needs it). */
let resvg: typeof ResvgClass | null = null;

/** The SVG document `svg` as PNG bytes, `scale` pixels per SVG unit of its viewBox. */
export function svgToPng(svg: string, scale: number = PNG_SCALE): Buffer {
  if (!(Number.isFinite(scale) && scale > 0)) throw new RangeError(`scale must be a positive number, got ${scale}`);
  resvg ??= (createRequire(import.meta.url)('@resvg/resvg-js') as { Resvg: typeof ResvgClass }).Resvg;
  const image = new resvg(svg, { fitTo: { mode: 'zoom', value: scale }, font: { loadSystemFonts: true } }).render();
  return image.asPng();
}
