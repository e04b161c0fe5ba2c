import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResultsError } from '../../src/results/read-json.js';
import { runReport } from '../../src/cli/commands/report.js';
import type { CliIo } from '../../src/cli/io.js';
import { buildReport, PNG_FILES, writeReport } from '../../src/report/index.js';
import { PNG_MAX_PANELS, PNG_MAX_PIXELS, PNG_SCALE, svgToPng } from '../../src/report/png.js';
import { SYNTHETIC_K4, tempDir, writeExperiment } from './fixture.js';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): [number, number] {
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

/** `count` small experiments (copies of SYNTHETIC_K4 under other names) in one folder. */
function manyExperiments(count: number): string {
  const root = tempDir();
  for (let i = 0; i < count; i++) writeExperiment(path.join(root, `e${String(i).padStart(3, '0')}`), { ...SYNTHETIC_K4, name: `e${String(i).padStart(3, '0')}` });
  return root;
}

function io(): { streams: CliIo; captured: { stdout: string; stderr: string } } {
  const captured = { stdout: '', stderr: '' };
  const streams = {
    stdout: { write: (t: string) => (captured.stdout += t), isTTY: false },
    stderr: { write: (t: string) => (captured.stderr += t), isTTY: false },
    env: {},
  } as unknown as CliIo;
  return { streams, captured };
}

describe('png limits: bad arguments (issue #23)', () => {
  it('svgToPng refuses, before drawing, an image over PNG_MAX_PIXELS, naming its size and the limit', () => {
    const tall = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1160 40272"><rect width="1160" height="40272" fill="#fff"/></svg>`;
    let error: unknown;
    try {
      svgToPng(tall);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ResultsError);
    expect((error as ResultsError).exitCode).toBe(2);
    expect((error as ResultsError).message).toBe(
      `the PNG would be 2320 × 80544 px (186.9 megapixels); at most ${PNG_MAX_PIXELS / 1e6} megapixels are drawn: draw fewer panels, or use the SVG`,
    );
    // At a scale that fits the limit, it is drawn.
    expect(pngSize(svgToPng(tall, 0.1))).toEqual([116, 4027]);
  });

  it(`eofd report --png refuses more than PNG_MAX_PANELS experiments (exit 2), naming the count and the fix; nothing is written`, () => {
    const root = manyExperiments(PNG_MAX_PANELS + 1);
    const out = path.join(root, 'report');
    const { streams, captured } = io();
    expect(runReport([root], { out, png: true }, streams)).toBe(2);
    expect(captured.stderr).toBe(
      `eofd report: --png: ${PNG_MAX_PANELS + 1} experiments, and a PNG figure holds at most ${PNG_MAX_PANELS} (one panel each): ` +
        `report at most ${PNG_MAX_PANELS} folders at a time with --png, or leave out --png (the SVG figures and report.html show all ${PNG_MAX_PANELS + 1})\n`,
    );
    expect(fs.existsSync(out)).toBe(false);
    // Without --png the report is written.
    expect(runReport([root], { out }, io().streams)).toBe(0);
  });
});

describe('png limits', () => {
  it(`PNG_MAX_PANELS experiments give PNGs within PNG_MAX_PIXELS (the figure grows by rows of three panels)`, () => {
    const report = buildReport([manyExperiments(PNG_MAX_PANELS)]);
    const out = tempDir();
    writeReport(report, out, { png: true });
    for (const name of PNG_FILES) {
      const [width, height] = pngSize(fs.readFileSync(path.join(out, name)));
      expect(width, name).toBeLessThanOrEqual(3 * 400 * PNG_SCALE);
      expect(height, name).toBeGreaterThan((PNG_MAX_PANELS / 3) * 300 * PNG_SCALE);
      expect(width * height, name).toBeLessThanOrEqual(PNG_MAX_PIXELS);
    }
  });
});
