/**
 * One self-contained report.html: inline CSS, both figures as inline SVG, the per-policy and
 * paired-comparison tables and the claims table with verdicts and reasons. It references nothing outside itself — no URL, script, link, font or image — so
 * it opens offline, anywhere, and can be mailed as one file.
 */
import type { Report } from './report.js';
import { BAND_TEXT, escapeXml, renderRegretFigure, renderTimeFigure } from './svg.js';
import {
  CLAIM_HEADERS,
  CLAIMS_RULE,
  PAIRED_HEADERS,
  PAIRED_TITLE,
  POLICY_HEADERS,
  VERDICT_COLUMN,
  claimRows,
  comparisonLine,
  describeExperiment,
  pairedRows,
  policyRows,
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
.inconclusive { color: #8a6d00; font-weight: bold; }
.not-judged, .not-measured { color: #777; }
figure { margin: 1em 0; overflow-x: auto; } figcaption { color: #555; font-size: 0.9em; }
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
  return `<table>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

export function renderHtml(report: Report): string {
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<title>eofd report: EOFD-MLogB vs OFUL-MLogB</title>',
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<h1>EOFD-MLogB vs OFUL-MLogB: reproduction report</h1>',
    `<p class="meta">Results read from ${escapeXml(report.sources.join(', '))}. Means over trials; ± is one sample ` +
      'standard deviation (n − 1); [low, high] is a 95% Student-t interval of the mean per-trial difference ' +
      '(every trial gives all policies the same actions and outcome uniforms).</p>',
    "<h2>The paper's claims (Section 4)</h2>",
    `<p class="meta">${escapeXml(CLAIMS_RULE)}</p>`,
  ];
  out.push(
    table(CLAIM_HEADERS, claimRows(report.claims), (row, column) =>
      column === VERDICT_COLUMN ? (report.claims[row]?.verdict ?? '').replace(/ /g, '-') : '',
    ),
  );
  out.push('<h2>Per experiment and policy</h2>');
  for (const e of report.experiments) {
    out.push(`<h3>${escapeXml(e.name)}</h3>`);
    out.push(`<p class="setting">${escapeXml(describeExperiment(e))}</p>`);
    const p = e.provenance;
    const meta = [
      `folder ${e.dir}`,
      p.package,
      p.git === null ? null : `git ${p.git}`,
      p.node === null ? null : `node ${p.node}`,
      p.cpu === null ? null : `${p.cpu}${p.cores === null ? '' : ` (${p.cores} cores)`}`,
    ].filter((x): x is string => x !== null);
    out.push(`<p class="meta">${escapeXml(meta.join(' · '))}</p>`);
    out.push(table(POLICY_HEADERS, policyRows(e), (_, column) => (column === 0 ? '' : 'num')));
    const line = comparisonLine(e);
    if (line !== null) out.push(`<p>${escapeXml(line)}</p>`);
    const paired = pairedRows(e);
    if (paired.length > 0) {
      out.push(`<p class="meta">${escapeXml(PAIRED_TITLE)}</p>`);
      out.push(table(PAIRED_HEADERS, paired, (_, column) => (column < 2 ? '' : 'num')));
    }
  }
  out.push('<h2>Figures</h2>');
  out.push('<figure>', renderRegretFigure(report.experiments, { standalone: false, band: report.band }));
  out.push(
    `<figcaption>Fig. 1: cumulative regret per round; line = mean over trials, band = ${escapeXml(BAND_TEXT[report.band])}.</figcaption></figure>`,
  );
  out.push('<figure>', renderTimeFigure(report.experiments, { standalone: false }));
  out.push('<figcaption>Fig. 2: mean per-round time (select + update, inside the policy) with ± 1 sample std error bars; log scale.</figcaption></figure>');
  out.push('</body>', '</html>');
  return out.join('\n') + '\n';
}
