/**
 * One self-contained report.html: inline CSS, both figures as inline SVG, the per-policy and
 * paired-comparison tables and the claims table with verdicts and reasons. It references nothing
 * outside itself — no URL, script, link, font or image — so it opens offline, anywhere, and can be
 * mailed as one file.
 *
 * It fits any window from a phone's up: each figure panel is its own SVG in a CSS grid (three to a
 * row when there is room, fewer on a narrow window, each scaled to its cell), the legend is an HTML
 * list that wraps, and a table wider than the window scrolls inside its own box.
 * A run in progress is marked at the top, at its experiment and in its panels.
 */
import { panelSvg, type Figure } from '../plot/figure.js';
import { legendSwatch } from '../plot/legend.js';
import { escapeXml } from '../plot/svg.js';
import type { Report } from './report.js';
import { EOFD } from './summarize.js';
import { BAND_TEXT, regretFigure, sketchSizeFigure, timeFigure, timeScaleText } from './svg.js';
import {
  CLAIM_HEADERS,
  claimsRule,
  MULTIPLICITY_RULE,
  PAIRED_ALIGN,
  PAIRED_HEADERS,
  policyHeaders,
  VERDICT_COLUMN,
  claimRows,
  comparisonLine,
  comparisonNotes,
  comparisonsTitle,
  describeExperiment,
  perLabelLine,
  identicalLines,
  pairedRows,
  policyRows,
  progressLine,
  randomFlags,
} from './table.js';

const CSS = `
body { font-family: sans-serif; color: #222; margin: 2em auto; max-width: 1200px; padding: 0 1em; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; } h3 { font-size: 1.05em; margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.92em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.7em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.setting, .meta { color: #555; font-size: 0.9em; margin: 0; }
.holds { color: #116611; font-weight: bold; }
.does-not-hold { color: #aa1111; font-weight: bold; }
.inconclusive, .cannot-judge-at-this-size { color: #8a6d00; font-weight: bold; }
.not-judged, .not-measured { color: #777; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.9em; }
.scroll { max-width: 100%; overflow-x: auto; }
.figure-title { font-weight: bold; margin: 0.3em 0; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.4em; list-style: none; padding: 0; margin: 0.3em 0 0.6em; }
.legend li { display: flex; align-items: center; gap: 0.4em; white-space: nowrap; }
.panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 340px), 1fr)); gap: 0.5em; }
.panels > svg { display: block; width: 100%; max-width: 100%; }
.in-progress, .warning { background: #fff4e0; border-left: 4px solid #d08000; padding: 0.4em 0.8em; }
`;

function table(headers: readonly string[], rows: readonly (readonly string[])[], cellClass: (row: number, column: number) => string): string {
  const head = `<tr>${headers.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`;
  const body = rows
    .map((r, i) => {
      const tds = r.map((cell, c) => {
        const cls = cellClass(i, c);
        return `<td${cls ? ` class="${cls}"` : ''}>${escapeXml(cell)}</td>`;
      });
      return `<tr>${tds.join('')}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

/** A figure: its title, the legend as a wrapping list, the panels in a grid, and the caption. */
function figureHtml(figure: Figure, caption: string): string {
  const items = figure.legend.map(
    (item) =>
      `<li><svg width="30" height="12" viewBox="0 -6 30 12" aria-hidden="true">${legendSwatch(item, 0, 0).join('')}</svg>` +
      `${escapeXml(item.label)}</li>`,
  );
  return [
    '<figure>',
    `<p class="figure-title">${escapeXml(figure.title)}</p>`,
    `<ul class="legend">${items.join('')}</ul>`,
    '<div class="panels">',
    ...figure.panels.map((_, i) => panelSvg(figure, i)),
    '</div>',
    `<figcaption>${escapeXml(caption)}</figcaption></figure>`,
  ].join('\n');
}

export interface HtmlOptions {
  /** Fig. 1's regret axis on a log scale. */
  logY?: boolean;
}

export function renderHtml(report: Report, options: HtmlOptions = {}): string {
  const logY = options.logY === true;
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(report.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeXml(report.title)}</h1>`,
    `<p class="meta">Results read from ${escapeXml(report.sources.join(', '))}. Means over trials; ± is one sample ` +
      'standard deviation (n − 1); [low, high] is a 95% Student-t interval of the mean per-trial difference, or ' +
      'for a ratio of the mean per-trial log ratio, back-transformed (every trial gives all policies the same ' +
      'actions and outcome uniforms).</p>',
  ];
  const running = report.experiments.filter((e) => !e.progress.complete);
  if (running.length > 0) {
    const names = running.map((e) => `${e.name} (${e.progress.finishedUnits} of ${e.progress.plannedUnits} units)`).join(', ');
    out.push(
      `<p class="in-progress"><strong>In progress:</strong> ${escapeXml(names)}. Their numbers and curves cover the ` +
        'finished trials only, and their claims are not judged until the run completes.</p>',
    );
  }
  if (report.claims.length > 0) {
    out.push("<h2>The paper's claims (Section 4)</h2>", `<p class="meta">${escapeXml(claimsRule(report.claims))}</p>`);
    out.push(
      table(CLAIM_HEADERS, claimRows(report.claims), (row, column) =>
        column === VERDICT_COLUMN ? (report.claims[row]?.verdict ?? '').replace(/ /g, '-') : '',
      ),
    );
  }
  out.push('<h2>Per experiment and policy</h2>');
  if (report.experiments.some((e) => e.comparisons.length > 0)) out.push(`<p class="meta">${escapeXml(MULTIPLICITY_RULE)}</p>`);
  for (const e of report.experiments) {
    const progress = progressLine(e);
    out.push(`<h3>${escapeXml(e.name)}${progress === null ? '' : ' (in progress)'}</h3>`);
    if (progress !== null) out.push(`<p class="in-progress">${escapeXml(progress)}</p>`);
    out.push(`<p class="setting">${escapeXml(describeExperiment(e))}</p>`);
    const own = perLabelLine(e);
    if (own !== null) out.push(`<p class="setting">${escapeXml(own)}</p>`);
    const p = e.provenance;
    const meta = [
      `folder ${e.dir}`,
      p.package,
      p.git === null ? null : `git ${p.git}`,
      p.node === null ? null : `node ${p.node}`,
      p.cpu === null ? null : `${p.cpu}${p.cores === null ? '' : ` (${p.cores} cores)`}`,
    ].filter((x): x is string => x !== null);
    out.push(`<p class="meta">${escapeXml(meta.join(' · '))}</p>`);
    out.push(table(policyHeaders(e), policyRows(e), (_, column) => (column === 0 ? '' : 'num')));
    for (const same of identicalLines(e)) out.push(`<p class="meta">${escapeXml(same)}</p>`);
    for (const flag of randomFlags(e)) out.push(`<p class="warning">${escapeXml(flag)}</p>`);
    const line = comparisonLine(e);
    if (line !== null) out.push(`<p>${escapeXml(line)}</p>`);
    const paired = pairedRows(e);
    if (paired.length > 0) {
      out.push(`<p class="meta">${escapeXml(comparisonsTitle(e))}</p>`);
      out.push(table(PAIRED_HEADERS, paired, (_, column) => (PAIRED_ALIGN[column] === 'right' ? 'num' : '')));
      for (const note of comparisonNotes(e)) out.push(`<p class="meta">${escapeXml(note)}</p>`);
    }
  }
  out.push('<h2>Figures</h2>');
  out.push(
    figureHtml(
      regretFigure(report.experiments, report.band, logY),
      `Fig. 1: cumulative regret per round; line = mean over trials, band = ${BAND_TEXT[report.band]}` +
        `${logY ? '; log scale, values below its lowest decade drawn on it (≤)' : ''}.` +
        (report.experiments.some((e) => e.identical.length > 0)
          ? ' "A = B in every round" above a panel: the two played the same action in every round of every trial, so one line hides the other.'
          : ''),
    ),
  );
  const scale = timeScaleText(report.experiments, report.timeAxis);
  out.push(
    figureHtml(
      timeFigure(report.experiments, report.timeAxis, report.claims),
      `Fig. 2: mean per-round time (select + update, inside the policy) with ± 1 sample std error bars; ${scale}. ` +
        `A panel states ${EOFD}'s time reduction only when the report judged its claim.`,
    ),
  );
  const sketchSizes = sketchSizeFigure(report.experiments, report.band);
  if (sketchSizes !== null) {
    out.push(figureHtml(sketchSizes, `Fig. 3: sketch size m_t of the adaptive sketches (params.m: adaptive) per round; line = mean over trials, band = ${BAND_TEXT[report.band]}.`));
  }
  out.push('</body>', '</html>');
  return out.join('\n') + '\n';
}
