/**
 * A sequential colour ramp for heatmaps (viridis-like stops, reversed: 0 → light yellow, 1 → dark
 * purple), the text colour readable on each of its colours, and its legend: a vertical colour bar.
 */
import { INK, MUTED, n, text } from './svg.js';

const STOPS: readonly [number, number, number][] = [
  [253, 231, 37],
  [94, 201, 98],
  [33, 145, 140],
  [59, 82, 139],
  [68, 1, 84],
];

/** The ramp's colour at t ∈ [0, 1] (clamped; NaN → 0). */
export function rampColour(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const a = STOPS[i] as [number, number, number];
  const b = STOPS[i + 1] as [number, number, number];
  const hex = (k: number): string => Math.round(a[k]! + (b[k]! - a[k]!) * f).toString(16).padStart(2, '0');
  return `#${hex(0)}${hex(1)}${hex(2)}`;
}

/** Text colour readable on the ramp's colour at t: white on dark fills (relative luminance below 0.4). */
export function inkOnRamp(t: number): string {
  const fill = rampColour(t);
  const channel = (k: number): number => {
    const c = parseInt(fill.slice(1 + 2 * k, 3 + 2 * k), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return luminance < 0.4 ? '#ffffff' : INK;
}

/**
 * The ramp's legend at (x, top): a title above, a bar 18 px wide and `height` tall (high values up,
 * in 20 steps), and the labels of its top and bottom values beside it.
 */
export function colourBar(x: number, top: number, height: number, title: string, high: string, low: string): string[] {
  const steps = 20;
  const out = ['<g data-legend="">', text(x, top - 8, title)];
  for (let k = 0; k < steps; k++) {
    out.push(`<rect x="${n(x)}" y="${n(top + (k * height) / steps)}" width="18" height="${n(height / steps + 0.5)}" fill="${rampColour(1 - k / (steps - 1))}"/>`);
  }
  out.push(`<rect x="${n(x)}" y="${n(top)}" width="18" height="${n(height)}" fill="none" stroke="${MUTED}"/>`);
  out.push(text(x + 24, top + 10, high), text(x + 24, top + height, low), '</g>');
  return out;
}
