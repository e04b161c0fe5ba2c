import { describe, expect, it } from 'vitest';
import { axisLines, xAxis, xTitle, yAxis, yTitle, type Frame } from '../../src/plot/axis.js';
import { colourBar, inkOnRamp, rampColour } from '../../src/plot/colour.js';
import { figureSvg, panelLetter, panelSvg, type Figure } from '../../src/plot/figure.js';
import { band, bar, cell, dots, errorBar, line } from '../../src/plot/marks.js';
import { decadeScale, niceScale } from '../../src/plot/scale.js';
import { descendants, parseXml, type XmlElement } from '../report/xml.js';

const FRAME: Frame = { left: 50, top: 10, width: 200, height: 100 };
const parse = (elements: readonly string[]): XmlElement => parseXml(`<g>${elements.join('')}</g>`);
const named = (root: XmlElement, name: string) => descendants(root).filter((el) => el.name === name);

describe('figures, axes and marks: bad arguments', () => {
  it('panelSvg names the panels a figure has when asked for one it has not', () => {
    const figure: Figure = { title: 't', legend: [], panelWidth: 100, panelHeight: 100, plotLeft: 10, panels: [] };
    expect(() => panelSvg(figure, 0)).toThrow(/no panel 0 \(the figure has 0\)/);
  });

  it('ramp colours clamp t to [0, 1] and read NaN as 0', () => {
    expect(rampColour(-1)).toBe(rampColour(0));
    expect(rampColour(2)).toBe(rampColour(1));
    expect(rampColour(NaN)).toBe('#fde725');
  });
});

describe('axes', () => {
  it('a linear y axis: a grid line and a label per tick, no marks; a log one adds tick marks and minor ticks', () => {
    const linear = parse(yAxis(FRAME, niceScale(50, [110, 10])));
    expect(named(linear, 'text').map((t) => t.text)).toEqual(['0', '10', '20', '30', '40', '50']);
    expect(named(linear, 'line').every((l) => l.attributes.get('stroke') === '#e4e4e4')).toBe(true);
    expect(named(linear, 'text')[0]!.attributes.get('x')).toBe('44.00');
    const log = parse(yAxis(FRAME, decadeScale(0, 2, [110, 10]), { marks: true }));
    expect(named(log, 'text').map((t) => t.text)).toEqual(['1', '10', '100']);
    expect(named(log, 'line')).toHaveLength(3 * 2 + 2 * 8);
    expect(named(log, 'text')[0]!.attributes.get('x')).toBe('43.00');
  });

  it('an x axis: marks and labels below the frame, grid lines on request; titles and axis lines', () => {
    const x = parse(xAxis(FRAME, niceScale(10, [50, 250])));
    expect(named(x, 'text').map((t) => [t.text, t.attributes.get('y')])).toContainEqual(['10', '128.00']);
    expect(named(parse(xAxis(FRAME, decadeScale(0, 1, [50, 250]), { grid: true, marks: false })), 'line').map((l) => l.attributes.get('y1'))).toEqual(['10.00', '10.00']);
    expect(axisLines(FRAME)).toHaveLength(2);
    expect(axisLines(FRAME, true)[0]).toMatch(/^<rect x="50.00" y="10.00" width="200.00" height="100.00" fill="none"/);
    expect(parseXml(xTitle(FRAME, 'round t')).attributes.get('y')).toBe('148.00');
    expect(parseXml(yTitle(FRAME, 'regret')).attributes.get('transform')).toBe('rotate(-90 16.00 60.00)');
  });
});

describe('marks', () => {
  it('a line through its points, a band closed back along its lower edge, dots', () => {
    const stroke = { colour: '#0072B2', dash: '7 3' };
    const path = parseXml(line([[0, 0], [1, 2]], stroke, { 'data-policy': 'A&B' }));
    expect(path.attributes.get('d')).toBe('M0.00,0.00L1.00,2.00');
    expect(path.attributes.get('data-policy')).toBe('A&amp;B');
    expect(path.attributes.get('stroke-dasharray')).toBe('7 3');
    expect(parseXml(line([[0, 0]], stroke, {}, 'm=2, K=3')).children[0]!.text).toBe('m=2, K=3');
    expect(parseXml(band([[0, 1], [2, 3]], [[0, 5], [2, 6]], '#000')).attributes.get('d')).toBe('M0.00,1.00L2.00,3.00L2.00,6.00L0.00,5.00Z');
    expect(dots([[1, 2], [3, 4]], '#000')).toHaveLength(2);
  });

  it('a bar from its value down to the axis, an error bar with two caps, a heatmap cell', () => {
    const rect = parseXml(bar(100, 40, 30, 110, '#000', { 'data-bar': 'A' }));
    expect([rect.attributes.get('x'), rect.attributes.get('width'), rect.attributes.get('height')]).toEqual(['80.00', '40.00', '80.00']);
    expect(errorBar(100, 20, 40)).toHaveLength(3);
    expect(parseXml(cell(0, 0, 62, '#fff', { 'data-l': 0.5 })).attributes.get('data-l')).toBe('0.5');
  });

  it('the ramp runs light to dark; text on its dark end is white; its bar carries data-legend', () => {
    expect(rampColour(0)).toBe('#fde725');
    expect(rampColour(1)).toBe('#440154');
    expect(inkOnRamp(0)).toBe('#222222');
    expect(inkOnRamp(1)).toBe('#ffffff');
    const legend = parse(colourBar(0, 50, 100, 'final regret', '9', '1'));
    expect(descendants(legend).some((el) => el.attributes.has('data-legend'))).toBe(true);
    expect(named(legend, 'text').map((t) => t.text)).toEqual(['final regret', '9', '1']);
  });
});

describe('figures', () => {
  it('letters panels (a) … (z), (aa), …; lays panels out three to a row with the legend lined up with the plots', () => {
    expect([0, 25, 26, 27].map(panelLetter)).toEqual(['(a)', '(z)', '(aa)', '(ab)']);
    const panel = (name: string) => ({ name, elements: ['<rect x="0" y="0" width="1" height="1"/>'] });
    const figure: Figure = {
      title: 'T & t',
      legend: [{ label: 'A', style: { colour: '#000', dash: '' }, kind: 'box' }],
      panelWidth: 100,
      panelHeight: 80,
      plotLeft: 40,
      panels: ['a', 'b', 'c', 'd'].map(panel),
    };
    const root = parseXml(figureSvg(figure));
    const groups = descendants(root).filter((el) => el.attributes.has('data-panel'));
    expect(groups.map((g) => g.attributes.get('transform'))).toEqual(['translate(10.00,62.00)', 'translate(110.00,62.00)', 'translate(210.00,62.00)', 'translate(10.00,142.00)']);
    expect(descendants(root).find((el) => el.attributes.has('data-legend-item'))!.attributes.get('x')).toBe('86.00');
    expect(root.attributes.get('viewBox')).toBe('0 0 320.00 232.00');
    expect(parseXml(panelSvg(figure, 3)).attributes.get('data-panel')).toBe('d');
    expect(figureSvg(figure, false)).not.toContain('xmlns');
  });
});
