import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { buildReport } from '../../src/report/index.js';
import path from 'node:path';
import { SYNTHETIC_K4, tempDir, writeExperiment, writeFixtureResults } from './fixture.js';
import { parseXml } from './xml.js';

describe('report.html', () => {
  const html = renderHtml(buildReport([writeFixtureResults()]));

  it('references nothing outside itself', () => {
    for (const forbidden of ['http', 'src=', '<link', 'url(', '<script', '@import', '@font-face']) {
      expect(html.toLowerCase()).not.toContain(forbidden);
    }
  });

  it('holds both figures inline (well-formed), the claims and the per-policy tables', () => {
    const svgs: string[] = [];
    let from = 0;
    for (;;) {
      const start = html.indexOf('<svg', from);
      if (start < 0) break;
      const end = html.indexOf('</svg>', start) + '</svg>'.length;
      svgs.push(html.slice(start, end));
      from = end;
    }
    // Per figure one SVG per panel (2 experiments) and one legend swatch per policy (3).
    expect(svgs).toHaveLength(2 * (2 + 3));
    for (const svg of svgs) expect(() => parseXml(svg)).not.toThrow();
    const panels = svgs.map(parseXml).filter((root) => root.attributes.has('data-panel'));
    expect(panels.map((root) => root.attributes.get('data-panel'))).toEqual(['mnist', 'synthetic-k4', 'mnist', 'synthetic-k4']);
    for (const root of panels) expect(root.attributes.get('width')).toBe('100%');
    expect(html).toContain('<div class="panels">');
    expect(html).toContain('<ul class="legend">');
    expect(html).toContain('<style>');
    expect(html).toContain('<td class="holds">holds</td>');
    expect(html).toContain('<td class="does-not-hold">does not hold</td>');
    expect(html).toContain('<td class="not-measured">not measured</td>');
    expect(html).toContain('<td>time: not shown faster or slower: the paper&apos;s 80% lies above the time reduction 95% CI [−14.2, 79.8]</td>');
    expect(html).toContain('<title>EOFD-MLogB vs OFUL-MLogB: reproduction report</title>');
    expect(html).toContain('<h3>synthetic-k4</h3>');
    expect(html).toContain('5.500 ± 0.500');
    expect(html).toContain('<th>Δ_T</th><th>β_T</th>');
    expect(html).toContain('<td class="num">1.200 ± 0.100</td><td class="num">5.00 ± 1.00</td>');
    expect(html).toContain('per-round time reduction 67.1% [59.0, 73.5], regret overhead 10.1% [7.6, 12.6]');
  });

  it('has a paired-comparison table per experiment and says which band Fig. 1 shows', () => {
    expect(html).toContain('<th>policy</th><th>vs</th><th>n</th><th>regret difference [95% CI]</th><th>Holm-adjusted CI</th>');
    // table.test.ts has the numbers
    expect(html).toContain(
      '<tr><td>OFUL-MLogB</td><td>EOFD-MLogB</td><td class="num">3</td><td class="num">−0.500 [−0.500, −0.500]</td>' +
        '<td class="num">[−0.500, −0.500] (97.5%)</td><td class="num">&lt;0.0001 (&lt;0.0001)</td><td>lower</td>' +
        '<td class="num">−9.1% [−11.2, −7.0]</td><td class="num">3.04× [2.44, 3.78]</td><td class="num">[2.44, 3.78] (95%)</td>' +
        '<td class="num">0.0021 (0.0021)</td><td>higher</td></tr>',
    );
    expect(html).toContain('Multiplicity: within one experiment');
    expect(html).toContain('band = ± 1 sample std.</figcaption>');
    const ci95 = renderHtml(buildReport([writeFixtureResults()], { band: 'ci95' }));
    expect(ci95).toContain('band = 95% Student-t interval of the mean.</figcaption>');
    expect(ci95).toContain('<p class="figure-title">Fig. 1. Cumulative regret: mean over trials (line), 95% Student-t interval of the mean (band)</p>');
    expect(html).toContain('error bars; linear scale. A panel states EOFD-MLogB&apos;s time reduction only when the report judged its claim.</figcaption>');
    expect(renderHtml(buildReport([writeFixtureResults()], { timeAxis: 'log' }))).toContain('error bars; log scale. A panel');
  });
});

describe('report.html: --log-y and identical curves', () => {
  it('says when Fig. 1 is on a log scale, and names policies whose curves coincide under their table and in the caption', () => {
    const report = buildReport([writeFixtureResults()]);
    expect(renderHtml(report)).not.toContain('log scale, values below');
    expect(renderHtml(report)).not.toContain('in every round');
    const logY = renderHtml(report, { logY: true });
    expect(logY).toContain('Fig. 1. Cumulative regret (log scale)');
    expect(logY).toContain('band = ± 1 sample std; log scale, values below its lowest decade drawn on it (≤).</figcaption>');
    const [eofd, oful, random] = SYNTHETIC_K4.policies;
    const dir = writeExperiment(path.join(tempDir(), 'same'), { ...SYNTHETIC_K4, policies: [{ ...eofd!, actionShift: 0 }, { ...oful!, finals: eofd!.finals, actionShift: 0 }, random!] });
    const same = renderHtml(buildReport([dir]));
    expect(same).toContain('<p class="meta">EOFD-MLogB = OFUL-MLogB in every round: the same action in all 50 rounds of each of the 3 trials');
    expect(same).toContain('&quot;A = B in every round&quot; above a panel: the two played the same action in every round of every trial, so one line hides the other.</figcaption>');
    expect(same).toContain('<td>identical</td>');
  });
});
