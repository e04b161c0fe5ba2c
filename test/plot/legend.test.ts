import { describe, expect, it } from 'vitest';
import { legend, legendLayout, legendSwatch, type LegendItem } from '../../src/plot/legend.js';
import { textWidth } from '../../src/plot/svg.js';
import { descendants, parseXml } from '../report/xml.js';

const style = { colour: '#000000', dash: '' };
const items = (labels: string[], kind: LegendItem['kind'] = 'line'): LegendItem[] => labels.map((label) => ({ label, style, kind }));

describe('legend: bad arguments', () => {
  it('no items: no rows; a width of 0 stacks the items one per row', () => {
    expect(legend([], 0, 0, 500).rows).toBe(0);
    expect(legendLayout(items(['a', 'b', 'c']), 0).map((l) => l.row)).toEqual([0, 1, 2]);
  });
});

describe('legend', () => {
  it('wraps: an item is 30 + 6 + 4·0.62·12 = 65.76 px plus 22 between, so two fit in 160 px and three do not', () => {
    expect(legendLayout(items(['aaaa', 'bbbb', 'cccc']), 160).map((l) => l.row)).toEqual([0, 0, 1]);
    const [, second] = legendLayout(items(['aaaa', 'bbbb', 'cccc']), 160);
    expect(second!.x).toBeCloseTo(65.76 + 22, 10);
  });

  it('a note widens its item and is drawn muted under the label', () => {
    const withNote: LegendItem[] = [{ label: 'a', style, kind: 'line', note: 'a much longer note' }, { label: 'b', style, kind: 'line' }];
    expect(legendLayout(withNote, 36 + textWidth('a much longer note') + 22 + 40)[1]!.row).toBe(1);
    const drawn = parseXml(legend(withNote, 0, 10, 1000, 34).elements.join(''));
    const texts = descendants(drawn).filter((el) => el.name === 'text');
    expect(texts.map((el) => [el.text, el.attributes.get('fill')])).toEqual([['a', '#222222'], ['a much longer note', '#555555'], ['b', '#222222']]);
    expect(texts.filter((el) => el.attributes.has('data-legend-item')).map((el) => el.text)).toEqual(['a', 'b']);
  });

  it('swatches: a line over its band, a line, a box', () => {
    const names = (kind: LegendItem['kind']) => legendSwatch({ label: 'x', style: { colour: '#123456', dash: '2 3' }, kind }, 0, 0).map((s) => s.slice(1, s.indexOf(' ')));
    expect(names('band')).toEqual(['rect', 'line']);
    expect(names('line')).toEqual(['line']);
    expect(names('box')).toEqual(['rect']);
    expect(legendSwatch({ label: 'x', style: { colour: '#123456', dash: '2 3' }, kind: 'line' }, 0, 0)[0]).toContain('stroke-dasharray="2 3"');
  });

  it('rows are rowHeight apart and labels escaped', () => {
    const drawn = legend(items(['a<b', 'c&d']), 5, 40, 0, 34);
    expect(drawn.rows).toBe(2);
    const labels = descendants(parseXml(drawn.elements.join(''))).filter((el) => el.attributes.has('data-legend-item'));
    expect(labels.map((el) => el.attributes.get('y'))).toEqual(['44.00', '78.00']);
    expect(labels.map((el) => el.attributes.get('data-legend-item'))).toEqual(['a&lt;b', 'c&amp;d']);
  });
});
