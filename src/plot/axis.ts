/**
 * Axes around a plot area (a Frame): tick labels with grid lines and tick marks, axis lines or a
 * box, axis titles. Ticks come with their scale (scale.ts).
 */
import type { Scale } from './scale.js';
import { GRID, INK, n, segment, text } from './svg.js';

/** The plot area: its top-left corner and size (px). */
export interface Frame {
  left: number;
  top: number;
  width: number;
  height: number;
}

export const bottomOf = (frame: Frame): number => frame.top + frame.height;

export interface AxisOptions {
  /** Grid lines across the plot at the labelled ticks. */
  grid?: boolean;
  /** Tick marks outside the plot (minor ticks are drawn only as marks). */
  marks?: boolean;
}

/** The y axis's labels at its ticks (left of the frame), with grid lines (default) and tick marks (default none). */
export function yAxis(frame: Frame, scale: Scale, { grid = true, marks = false }: AxisOptions = {}): string[] {
  const out: string[] = [];
  const { left } = frame;
  for (const tick of scale.ticks) {
    const y = scale.at(tick.value);
    if (tick.minor === true) {
      if (marks) out.push(segment(left - 3, y, left, y, INK));
      continue;
    }
    if (grid) out.push(segment(left, y, left + frame.width, y, GRID));
    if (marks) out.push(segment(left - 5, y, left, y, INK));
    out.push(text(left - (marks ? 7 : 6), y, tick.label, { dy: 4, anchor: 'end' }));
  }
  return out;
}

/** The x axis's labels at its ticks (below the frame), with tick marks (default) and grid lines (default none). */
export function xAxis(frame: Frame, scale: Scale, { grid = false, marks = true }: AxisOptions = {}): string[] {
  const out: string[] = [];
  const bottom = bottomOf(frame);
  for (const tick of scale.ticks) {
    const x = scale.at(tick.value);
    if (tick.minor === true) {
      if (marks) out.push(segment(x, bottom, x, bottom + 3, INK));
      continue;
    }
    if (grid) out.push(segment(x, frame.top, x, bottom, GRID));
    if (marks) out.push(segment(x, bottom, x, bottom + 5, INK));
    out.push(text(x, bottom + 18, tick.label, { anchor: 'middle' }));
  }
  return out;
}

/** The frame's left and bottom axis lines, or (`boxed`) a box around it. */
export function axisLines(frame: Frame, boxed = false): string[] {
  const bottom = bottomOf(frame);
  if (boxed) return [`<rect x="${n(frame.left)}" y="${n(frame.top)}" width="${n(frame.width)}" height="${n(frame.height)}" fill="none" stroke="${INK}"/>`];
  return [segment(frame.left, bottom, frame.left + frame.width, bottom, INK), segment(frame.left, frame.top, frame.left, bottom, INK)];
}

/** The x axis's title, centred below its tick labels. */
export function xTitle(frame: Frame, title: string): string {
  return text(frame.left + frame.width / 2, bottomOf(frame) + 38, title, { anchor: 'middle' });
}

/** The y axis's title, turned, centred beside the frame, `x` px from the figure's (or panel's) left edge. */
export function yTitle(frame: Frame, title: string, x = 16): string {
  return text(x, frame.top + frame.height / 2, title, { anchor: 'middle', rotate: -90 });
}
