/**
 * report.html in a real browser: headless Chromium (Debian's `chromium` package) lays the report out
 * at 900 and 1400 px wide, and a probe script appended to a copy of the page reports what it measured
 * (the report itself holds no script). Skips, saying so, when no Chromium is installed; set
 * EOFD_CHROMIUM to a browser binary to use another one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { buildReport } from '../../src/report/index.js';
import { MNIST, SYNTHETIC_K4, tempDir, writeExperiment } from './fixture.js';

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
};
document.body.insertAdjacentHTML('beforeend', '<pre id="metrics">' + JSON.stringify(metrics) + '</pre>');
</script>`;

interface Box { left: number; right: number; top: number; width: number }
interface Metrics { innerWidth: number; clientWidth: number; scrollWidth: number; panels: Box[]; legends: Box[] }

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

/** The paper's three settings, so Fig. 1 and Fig. 2 have three panels each. */
function threePanelReport(): string {
  const root = tempDir();
  writeExperiment(path.join(root, 'mnist'), MNIST);
  writeExperiment(path.join(root, 'synthetic-k4'), SYNTHETIC_K4);
  writeExperiment(path.join(root, 'synthetic-binary'), { ...SYNTHETIC_K4, name: 'synthetic-binary', environment: { type: 'synthetic', d: 400, K: 1 } });
  const html = renderHtml(buildReport([root])).replace('</body>', `${PROBE}\n</body>`);
  const file = path.join(root, 'probe.html');
  fs.writeFileSync(file, html);
  return file;
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
});
