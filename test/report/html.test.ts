import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { buildReport } from '../../src/report/index.js';
import { writeFixtureResults } from './fixture.js';
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
    expect(html).toContain('<td class="inconclusive">inconclusive</td>');
    expect(html).toContain('<td class="not-measured">not measured</td>');
    expect(html).toContain('<td>time reduction 95% CI [8.6, 91.4] straddles the 70% threshold</td>');
    expect(html).toContain('<h3>synthetic-k4</h3>');
    expect(html).toContain('5.500 ± 0.500');
    expect(html).toContain('<th>Δ_T</th><th>β_T</th>');
    expect(html).toContain('<td class="num">1.200 ± 0.100</td><td class="num">5.00 ± 1.00</td>');
    expect(html).toContain('regret overhead +10.0%, per-round time reduction 66.7%');
  });

  it('has a paired-comparison table per experiment and says which band Fig. 1 shows', () => {
    expect(html).toContain('<th>policy</th><th>vs</th><th>n</th><th>regret difference [95% CI]</th>');
    expect(html).toContain(
      '<tr><td>EOFD-MLogB</td><td>OFUL-MLogB</td><td class="num">3</td><td class="num">0.500 [0.500, 0.500]</td>' +
        '<td class="num">10.0% [10.0, 10.0]</td><td class="num">66.7% [46.0, 87.4]</td></tr>',
    );
    expect(html).toContain('band = ± 1 sample std.</figcaption>');
    const ci95 = renderHtml(buildReport([writeFixtureResults()], { band: 'ci95' }));
    expect(ci95).toContain('band = 95% Student-t interval of the mean.</figcaption>');
    expect(ci95).toContain('<p class="figure-title">Fig. 1. Cumulative regret: mean over trials (line), 95% Student-t interval of the mean (band)</p>');
    expect(html).toContain('error bars; linear scale.</figcaption>');
    expect(renderHtml(buildReport([writeFixtureResults()], { timeAxis: 'log' }))).toContain('error bars; log scale.</figcaption>');
  });
});
