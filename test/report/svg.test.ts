import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/index.js';
import { decadeLabel, escapeXml, niceTicks, renderRegretFigure, renderTimeFigure } from '../../src/report/svg.js';
import type { ExperimentSummary } from '../../src/report/summarize.js';
import { writeFixtureResults } from './fixture.js';
import { descendants, parseXml, type XmlElement } from './xml.js';

function experiments(): ExperimentSummary[] {
  return buildReport([writeFixtureResults()]).experiments;
}

function panels(root: XmlElement): XmlElement[] {
  return descendants(root).filter((el) => el.name === 'g' && el.attributes.has('data-panel'));
}

describe('svg: the well-formedness checker itself rejects bad XML', () => {
  it('catches unbalanced tags, bad attributes and raw ampersands', () => {
    expect(() => parseXml('<svg><g></svg>')).toThrow();
    expect(() => parseXml('<svg><g></g>')).toThrow();
    expect(() => parseXml('<svg a=1></svg>')).toThrow();
    expect(() => parseXml('<svg a="1" a="2"></svg>')).toThrow();
    expect(() => parseXml('<svg><text>a & b</text></svg>')).toThrow();
    expect(() => parseXml('<svg></svg><svg></svg>')).toThrow();
    expect(parseXml('<svg x="&amp;"><text>a &lt; b</text><g/></svg>').children).toHaveLength(2);
  });
});

describe('svg', () => {
  it('round-number ticks and decade labels', () => {
    expect(niceTicks(50).values).toEqual([0, 10, 20, 30, 40, 50]);
    expect(niceTicks(23.4).values).toEqual([0, 5, 10, 15, 20, 25]);
    expect(niceTicks(0.37).values).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(niceTicks(0).top).toBe(1);
    expect([-3, -1, 0, 2, 7].map(decadeLabel)).toEqual(['0.001', '0.1', '1', '100', '1e7']);
  });

  it('Fig. 1 is well-formed XML with exactly one curve per policy per panel', () => {
    const svg = renderRegretFigure(experiments());
    const root = parseXml(svg);
    expect(root.name).toBe('svg');
    expect(root.attributes.get('xmlns')).toBe('http://www.w3.org/2000/svg');
    const ps = panels(root);
    expect(ps.map((p) => p.attributes.get('data-panel'))).toEqual(['mnist', 'synthetic-k4']);
    for (const panel of ps) {
      const curves = descendants(panel).filter((el) => el.name === 'path' && el.attributes.has('data-policy'));
      expect(curves.map((c) => c.attributes.get('data-policy'))).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
      const bands = descendants(panel).filter((el) => el.name === 'path' && el.attributes.has('data-band'));
      expect(bands).toHaveLength(3);
      // 50 rounds → 50 points per curve: one M and 49 L.
      expect(curves[0]!.attributes.get('d')!.split('L')).toHaveLength(50);
    }
    const texts = descendants(root).filter((el) => el.name === 'text').map((el) => el.text);
    expect(texts).toContain('round t');
    expect(texts).toContain('cumulative regret');
    expect(svg).toContain('stroke="#0072B2"');
    expect(svg).toContain('stroke="#D55E00"');
  });

  it('Fig. 2 is well-formed XML with one bar per policy per panel and a log axis with decade ticks', () => {
    const svg = renderTimeFigure(experiments());
    const root = parseXml(svg);
    const ps = panels(root);
    expect(ps).toHaveLength(2);
    for (const panel of ps) {
      const bars = descendants(panel).filter((el) => el.name === 'rect' && el.attributes.has('data-bar'));
      expect(bars.map((b) => b.attributes.get('data-bar'))).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
      const texts = descendants(panel).filter((el) => el.name === 'text').map((el) => el.text);
      expect(texts).toContain('per-round time (ms, log scale)');
    }
    // mnist panel: values 0.002 … 7 ms → decades 0.001 … 10
    const mnistTexts = descendants(ps[0]!).filter((el) => el.name === 'text').map((el) => el.text);
    for (const label of ['0.001', '0.01', '0.1', '1', '10']) expect(mnistTexts).toContain(label);
    expect(mnistTexts).toContain('EOFD-MLogB: 50.0% less time than OFUL-MLogB');
  });

  it('is deterministic, escapes text, and can drop the namespace for inlining', () => {
    const es = experiments();
    expect(renderRegretFigure(es)).toBe(renderRegretFigure(es));
    expect(renderTimeFigure(es)).toBe(renderTimeFigure(es));
    const odd = { ...es[0]!, name: 'a <b> & "c"' };
    const svg = renderRegretFigure([odd]);
    expect(() => parseXml(svg)).not.toThrow();
    expect(svg).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
    expect(renderTimeFigure(es, { standalone: false })).not.toContain('xmlns');
    expect(escapeXml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&apos;');
  });

  it('lays out more than three panels in rows and stays well-formed with an unknown policy', () => {
    const es = experiments();
    const extra = { ...es[1]!, name: 'more', policies: [...es[1]!.policies, { ...es[1]!.policies[2]!, policy: 'LinUCB' }], curves: [...es[1]!.curves, { ...es[1]!.curves[2]!, policy: 'LinUCB' }] };
    const svg = renderRegretFigure([...es, extra, extra]);
    const root = parseXml(svg);
    expect(panels(root)).toHaveLength(4);
    expect(Number(root.attributes.get('height'))).toBeGreaterThan(600);
    expect(() => parseXml(renderTimeFigure([...es, extra]))).not.toThrow();
  });
});
