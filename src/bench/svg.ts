/**
 * bench.svg: median per-round time (select + update, ms) against d on log-log axes, one line per series
 * (policy, K, m rule, warm-up, backend) with its fitted slope in the legend. Hand-written SVG,
 * deterministic (two-decimal coordinates, no timestamps). One colour per policy; a policy's series (K,
 * m, warm-up, backend) differ by dash.
 */
import { policyStyles, type PolicyStyle } from '../report/palette.js';
import { decadeLabel, escapeXml } from '../report/svg.js';
import { fixed } from '../report/format.js';
import { seriesKey, type BenchRow, type SeriesSlope } from './output.js';
import type { BenchOptions } from './plan.js';

const WIDTH = 760;
const MIN_HEIGHT = 480;
const MARGIN = { left: 70, right: 250, top: 56, bottom: 52 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
/** Vertical space of one legend entry (key and slope lines). */
const LEGEND_ROW = 34;
/** A policy's series (K, m, warm-up, backend) in turn: its colour is the report's (palette.ts), the dash tells them apart. */
const DASHES = ['', '6 4', '2 3', '10 3 2 3', '1 5'];
const GRID = '#e4e4e4';
const INK = '#222222';
const MUTED = '#555555';

/** A coordinate with two decimals, never "-0.00". */
function c(x: number): string {
  return fixed(x, 2);
}

interface Series {
  key: string;
  colour: string;
  /** stroke-dasharray, '' for solid. */
  dash: string;
  points: { d: number; ms: number }[];
  slope: SeriesSlope | undefined;
}

export function renderBenchSvg(rows: readonly BenchRow[], slopes: readonly SeriesSlope[], options: Pick<BenchOptions, 'actions'>): string {
  const series: Series[] = [];
  const colours = policyStyles(rows.map((row) => row.plan.point.policy));
  const seriesOfPolicy = new Map<string, number>();
  for (const row of rows) {
    const key = seriesKey(row);
    const { policy } = row.plan.point;
    let s = series.find((x) => x.key === key);
    if (s === undefined) {
      const nth = seriesOfPolicy.get(policy) ?? 0;
      seriesOfPolicy.set(policy, nth + 1);
      const colour = (colours.get(policy) as PolicyStyle).colour;
      s = { key, colour, dash: DASHES[nth % DASHES.length] as string, points: [], slope: slopes.find((x) => x.series === key) };
      series.push(s);
    }
    const ms = row.measurement?.round.median;
    if (ms !== undefined && ms > 0) s.points.push({ d: row.plan.point.d, ms });
  }
  for (const s of series) s.points.sort((a, b) => a.d - b.d);
  const HEIGHT = Math.max(MIN_HEIGHT, MARGIN.top + 10 + series.length * LEGEND_ROW + MARGIN.bottom);
  const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;

  const all = series.flatMap((s) => s.points);
  const ds = all.map((p) => p.d);
  const times = all.map((p) => p.ms);
  const xLo = Math.floor(Math.log10(all.length > 0 ? Math.min(...ds) : 10));
  const xHi = Math.max(xLo + 1, Math.ceil(Math.log10(all.length > 0 ? Math.max(...ds) : 100)));
  const yLo = Math.floor(Math.log10(all.length > 0 ? Math.min(...times) : 0.1));
  const yHi = Math.max(yLo + 1, Math.ceil(Math.log10(all.length > 0 ? Math.max(...times) : 1)));
  const x = (d: number) => MARGIN.left + ((Math.log10(d) - xLo) / (xHi - xLo)) * PLOT_WIDTH;
  const y = (ms: number) => MARGIN.top + PLOT_HEIGHT - ((Math.log10(ms) - yLo) / (yHi - yLo)) * PLOT_HEIGHT;

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12" role="img">`,
    '<title>eofd bench: per-round time against d</title>',
    `<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${c(MARGIN.left + PLOT_WIDTH / 2)}" y="22" text-anchor="middle" font-size="14" font-weight="bold" fill="${INK}">Per-round time (select + update, median) against d</text>`,
    `<text x="${c(MARGIN.left + PLOT_WIDTH / 2)}" y="40" text-anchor="middle" fill="${MUTED}">${escapeXml(`log-log; ${options.actions} actions per round; slopes fitted by least squares`)}</text>`,
  ];
  // Grid and decade ticks.
  for (let k = xLo; k <= xHi; k++) {
    const px = c(x(10 ** k));
    out.push(`<line x1="${px}" y1="${c(MARGIN.top)}" x2="${px}" y2="${c(MARGIN.top + PLOT_HEIGHT)}" stroke="${GRID}"/>`);
    out.push(`<text x="${px}" y="${c(MARGIN.top + PLOT_HEIGHT + 18)}" text-anchor="middle" fill="${INK}">${decadeLabel(k)}</text>`);
  }
  for (let k = yLo; k <= yHi; k++) {
    const py = c(y(10 ** k));
    out.push(`<line x1="${c(MARGIN.left)}" y1="${py}" x2="${c(MARGIN.left + PLOT_WIDTH)}" y2="${py}" stroke="${GRID}"/>`);
    out.push(`<text x="${c(MARGIN.left - 8)}" y="${py}" dy="4" text-anchor="end" fill="${INK}">${decadeLabel(k)}</text>`);
  }
  out.push(
    `<rect x="${c(MARGIN.left)}" y="${c(MARGIN.top)}" width="${c(PLOT_WIDTH)}" height="${c(PLOT_HEIGHT)}" fill="none" stroke="${INK}"/>`,
    `<text x="${c(MARGIN.left + PLOT_WIDTH / 2)}" y="${c(HEIGHT - 12)}" text-anchor="middle" fill="${INK}">d (feature dimension)</text>`,
    `<text transform="translate(18 ${c(MARGIN.top + PLOT_HEIGHT / 2)}) rotate(-90)" text-anchor="middle" fill="${INK}">ms per round</text>`,
  );
  // Series, then the legend.
  for (const s of series) {
    if (s.points.length === 0) continue;
    const dash = s.dash === '' ? '' : ` stroke-dasharray="${s.dash}"`;
    const path = s.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${c(x(p.d))} ${c(y(p.ms))}`).join(' ');
    out.push(`<path data-series="${escapeXml(s.key)}" d="${path}" fill="none" stroke="${s.colour}" stroke-width="2"${dash}/>`);
    for (const p of s.points) out.push(`<circle cx="${c(x(p.d))}" cy="${c(y(p.ms))}" r="3" fill="${s.colour}"/>`);
  }
  const legendX = MARGIN.left + PLOT_WIDTH + 16;
  series.forEach((s, i) => {
    const ly = MARGIN.top + 10 + i * LEGEND_ROW;
    const dash = s.dash === '' ? '' : ` stroke-dasharray="${s.dash}"`;
    const slope = s.slope !== undefined && Number.isFinite(s.slope.slope) ? `slope ${s.slope.slope.toFixed(2)} (d ${s.slope.fromD}–${s.slope.toD})` : 'slope –';
    out.push(`<line x1="${c(legendX)}" y1="${c(ly)}" x2="${c(legendX + 24)}" y2="${c(ly)}" stroke="${s.colour}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${c(legendX + 30)}" y="${c(ly + 4)}" fill="${INK}">${escapeXml(s.key)}</text>`);
    out.push(`<text x="${c(legendX + 30)}" y="${c(ly + 19)}" fill="${MUTED}">${escapeXml(s.points.length === 0 ? 'not measured' : slope)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
