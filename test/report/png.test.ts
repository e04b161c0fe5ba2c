import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, PNG_FILES, REPORT_FILES, writeReport } from '../../src/report/index.js';
import { PNG_SCALE, svgToPng } from '../../src/report/png.js';
import { renderRegretFigure } from '../../src/report/svg.js';
import { tempDir, writeFixtureResults } from './fixture.js';
import { parseXml } from './xml.js';

/** Width and height from a PNG's IHDR chunk (bytes 16–23), after checking the signature. */
function pngSize(png: Buffer): [number, number] {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

const text = (words: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="100%" viewBox="0 0 200 40" font-family="sans-serif" font-size="12">` +
  `<rect width="200" height="40" fill="#ffffff"/><text x="10" y="25" fill="#222222">${words}</text></svg>`;

describe('png: bad arguments', () => {
  it('refuses a scale that is not a positive number', () => {
    for (const scale of [0, -1, Number.NaN, Infinity]) expect(() => svgToPng(text('x'), scale)).toThrow(/scale must be a positive number/);
  });
});

describe('png', () => {
  it('renders at PNG_SCALE pixels per viewBox unit, the 100%-wide SVG at its natural size', () => {
    const svg = renderRegretFigure(buildReport([writeFixtureResults()]).experiments);
    const [w, h] = parseXml(svg).attributes.get('viewBox')!.split(' ').slice(2).map(Number) as [number, number];
    expect(pngSize(svgToPng(svg))).toEqual([Math.round(w * PNG_SCALE), Math.round(h * PNG_SCALE)]);
    expect(pngSize(svgToPng(svg, 1))).toEqual([Math.round(w), Math.round(h)]);
  });

  it('draws text: a label makes the image differ from the same image without it (a font was found)', () => {
    const blank = svgToPng(text(''));
    const labelled = svgToPng(text('EOFD-MLogB ± λ'));
    expect(labelled.equals(blank)).toBe(false);
    expect(labelled.length).toBeGreaterThan(blank.length + 200);
  });

  it('writeReport with png adds fig1-regret.png and fig2-time.png, without it none', () => {
    const report = buildReport([writeFixtureResults()]);
    const out = tempDir();
    const written = writeReport(report, out, { png: true });
    expect(written.map((f) => path.basename(f))).toEqual([...REPORT_FILES, ...PNG_FILES]);
    for (const name of PNG_FILES) expect(pngSize(fs.readFileSync(path.join(out, name)))[0]).toBeGreaterThan(100);
    const plain = tempDir();
    writeReport(report, plain);
    expect(fs.readdirSync(plain).filter((f) => f.endsWith('.png'))).toEqual([]);
  });
});
