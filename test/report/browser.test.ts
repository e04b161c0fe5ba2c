/**
 * report.html in a real browser: headless Chromium (Debian's `chromium` package) lays the report out
 * at 390 to 1400 px wide, and a probe script appended to a copy of the page reports what it measured
 * (the report itself holds no script). Skips, saying so, when no Chromium is installed; set
 * EOFD_CHROMIUM to a browser binary to use another one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { buildReport } from '../../src/report/index.js';
import { MNIST, SYNTHETIC_K4, tempDir, writeExperiment, writeLongSubtitleResults } from './fixture.js';

const CANDIDATES = [process.env.EOFD_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const browser = CANDIDATES.find((p): p is string => p !== undefined && p !== '' && fs.existsSync(p));
if (browser === undefined) console.warn('test/report/browser.test.ts: skipped, no Chromium found (apt-get install chromium, or set EOFD_CHROMIUM)');

/** Appended to the page: the layout numbers, as JSON in <pre id="metrics">. */
const PROBE = `<script>
const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, width: r.width }; };
const metrics = {
  innerWidth: window.innerWidth,
  clientWidth: document.documentElement.clientWidth,
  scrollWidth: document.documentElement.scrollWidth,
  panels: [...document.querySelectorAll('[data-panel]')].map(box),
  legends: [...document.querySelectorAll('.legend')].map(box),
  // Every text of every panel against its SVG's box (an SVG clips what runs past it).
  texts: [...document.querySelectorAll('svg[data-panel]')].flatMap((svg) => {
    const outer = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].map((t) => {
      const r = t.getBoundingClientRect();
      return { panel: svg.dataset.panel, text: t.textContent, header: t.hasAttribute('data-header'), left: r.left - outer.left, right: outer.right - r.right, top: r.top - outer.top, bottom: outer.bottom - r.bottom };
    });
  }),
};
document.body.insertAdjacentHTML('beforeend', '<pre id="metrics">' + JSON.stringify(metrics) + '</pre>');
</script>`;

interface Box { left: number; right: number; top: number; width: number }
/** A panel's text: how far inside its SVG's box each of its edges lies (negative: past it, clipped). */
interface TextInside { panel: string; text: string; header: boolean; left: number; right: number; top: number; bottom: number }
interface Metrics { innerWidth: number; clientWidth: number; scrollWidth: number; panels: Box[]; legends: Box[]; texts: TextInside[] }

/** Loads `file` at `width` px and returns the probe's numbers. */
function measure(file: string, width: number): Metrics {
  const profile = fs.mkdtempSync(path.join(tempDir(), 'profile-'));
  const dom = execFileSync(
    browser as string,
    [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, `--window-size=${width},1200`,
      '--dump-dom', `file://${file}`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 },
  );
  // The last match: the probe's own source (earlier in the page) also spells the tag.
  const match = [...dom.matchAll(/<pre id="metrics">(.*?)<\/pre>/g)].pop();
  if (match === undefined) throw new Error(`no metrics in the dumped page (${dom.length} characters)`);
  return JSON.parse(match[1] as string) as Metrics;
}

/** report.html of the experiments in `root`, with the probe appended. */
function probePage(root: string): string {
  const html = renderHtml(buildReport([root])).replace('</body>', `${PROBE}\n</body>`);
  const file = path.join(root, 'probe.html');
  fs.writeFileSync(file, html);
  return file;
}

/** The paper's three settings, so Fig. 1 and Fig. 2 have three panels each. */
function threePanelReport(): string {
  const root = tempDir();
  writeExperiment(path.join(root, 'mnist'), MNIST);
  writeExperiment(path.join(root, 'synthetic-k4'), SYNTHETIC_K4);
  writeExperiment(path.join(root, 'synthetic-binary'), { ...SYNTHETIC_K4, name: 'synthetic-binary', environment: { type: 'synthetic', d: 400, K: 1 } });
  return probePage(root);
}

/** The long-subtitle panels of fixture.ts (issue #38). */
function longSubtitleReport(): string {
  return probePage(writeLongSubtitleResults());
}

describe.skipIf(browser === undefined)('report.html in headless Chromium', () => {
  const file = threePanelReport();

  it.each([900, 1400])('at %i px: no horizontal overflow, every panel whole inside the window', (width) => {
    const m = measure(file, width);
    expect(m.innerWidth).toBe(width);
    expect(m.scrollWidth).toBeLessThanOrEqual(m.clientWidth);
    expect(m.panels).toHaveLength(6); // Fig. 1 and Fig. 2, three panels each
    for (const panel of [...m.panels, ...m.legends]) {
      expect(panel.width).toBeGreaterThan(200);
      expect(panel.left).toBeGreaterThanOrEqual(0);
      expect(panel.right).toBeLessThanOrEqual(m.clientWidth);
    }
  }, 120_000);

  it('three panels share a row at 1400 px; at 900 px they wrap onto two rows', () => {
    const rows = (m: Metrics) => new Set(m.panels.slice(0, 3).map((p) => Math.round(p.top))).size;
    expect(rows(measure(file, 1400))).toBe(1);
    expect(rows(measure(file, 900))).toBe(2);
  }, 120_000);

  const long = longSubtitleReport();

  it.each([1400, 1000, 390])('at %i px: every panel text, subtitles first, lies inside its SVG (none clipped)', (width) => {
    for (const page of [file, long]) {
      const m = measure(page, width);
      expect(m.texts.filter((t) => t.header).length).toBeGreaterThanOrEqual(3 * 2 * 2); // title and setting, per panel, Fig. 1 and Fig. 2
      for (const t of m.texts) {
        const where = `${t.panel}: "${t.text}" (${JSON.stringify(t)})`;
        for (const edge of [t.left, t.right, t.top, t.bottom]) expect(edge, where).toBeGreaterThanOrEqual(-0.5);
      }
    }
  }, 180_000);
});
