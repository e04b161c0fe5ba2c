import { describe, expect, it } from 'vitest';
import { charsWithin, dashAttribute, escapeXml, hooks, n, segment, svgOpen, text, textWidth } from '../../src/plot/svg.js';
import { parseXml } from '../report/xml.js';

describe('svg basics: bad arguments', () => {
  it('escapes every XML special character in text and attributes', () => {
    expect(escapeXml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&apos;');
    const t = text(0, 0, 'a <b> & "c"', { attributes: { 'data-x': `'<&>'` } });
    expect(() => parseXml(t)).not.toThrow();
    expect(parseXml(t).text).toBe('a &lt;b&gt; &amp; &quot;c&quot;');
    expect(hooks({ 'data-a': 'x"y', 'data-b': 2 })).toBe(' data-a="x&quot;y" data-b="2"');
  });
});

describe('svg basics', () => {
  it('coordinates have two decimals and never read "-0.00"', () => {
    expect([1, 1.005, -0.001, 0, 12.3456].map(n)).toEqual(['1.00', '1.00', '0.00', '0.00', '12.35']);
  });

  it('text width is an upper estimate proportional to length and size', () => {
    expect(textWidth('abcd')).toBeCloseTo(4 * 12 * 0.62, 12);
    expect(textWidth('abcd', 24)).toBeCloseTo(2 * textWidth('abcd'), 12);
    expect(textWidth('')).toBe(0);
    // charsWithin is its inverse: the most characters whose estimate fits, at least 1.
    for (const [width, size] of [[364, 12], [368, 12], [364, 14], [100, 10], [1, 12]] as const) {
      const k = charsWithin(width, size);
      if (k > 1) expect(textWidth('x'.repeat(k), size)).toBeLessThanOrEqual(width);
      expect(textWidth('x'.repeat(k + 1), size)).toBeGreaterThan(width);
    }
    expect(charsWithin(368)).toBe(49);
    expect(charsWithin(0)).toBe(1);
  });

  it('text: anchor, size, weight, fill, shift and rotation as attributes', () => {
    const el = parseXml(text(10, 20, 'y title', { anchor: 'middle', size: 14, bold: true, fill: '#555555', dy: 4, rotate: -90 }));
    expect(Object.fromEntries(el.attributes)).toEqual({
      x: '10.00', y: '20.00', dy: '4', 'text-anchor': 'middle', 'font-size': '14', 'font-weight': 'bold', fill: '#555555', transform: 'rotate(-90 10.00 20.00)',
    });
    expect(parseXml(text(0, 0, 'plain')).attributes.get('fill')).toBe('#222222');
  });

  it('a document scales to its container: width 100%, a viewBox, at most its natural width; a namespace only standalone', () => {
    const doc = parseXml([...svgOpen(300, 200, 'a & b'), segment(0, 0, 10, 10, '#000', dashAttribute({ colour: '#000', dash: '2 3' })), '</svg>'].join(''));
    expect(doc.attributes.get('width')).toBe('100%');
    expect(doc.attributes.get('viewBox')).toBe('0 0 300.00 200.00');
    expect(doc.attributes.get('style')).toContain('max-width:300.00px');
    expect(doc.attributes.get('xmlns')).toBe('http://www.w3.org/2000/svg');
    expect(doc.children[2]!.attributes.get('stroke-dasharray')).toBe('2 3');
    expect(svgOpen(1, 1, '', false)[0]).not.toContain('xmlns');
    expect(dashAttribute({ colour: '#000', dash: '' })).toBe('');
  });
});
