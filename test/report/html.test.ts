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
    expect(svgs).toHaveLength(2);
    for (const svg of svgs) expect(() => parseXml(svg)).not.toThrow();
    expect(html).toContain('<style>');
    expect(html).toContain('<td class="holds">holds</td>');
    expect(html).toContain('<td class="does-not-hold">does not hold</td>');
    expect(html).toContain('<td class="not-measured">not measured</td>');
    expect(html).toContain('<h3>synthetic-k4</h3>');
    expect(html).toContain('5.500 ± 0.500');
    expect(html).toContain('regret overhead +10.0%, per-round time reduction 66.7%');
  });
});
