#!/usr/bin/env node
// The time–regret trade-off of EOFD-MLogB's sketch size, from the sweeps of `scripts/study sketch`:
//
//   node scripts/sketch-pareto.mjs [IN] [OUT]     (defaults: results/study/sketch, IN)
//
// IN holds oful/, fixed/ and adaptive/, each with <setting>-sweep/<point>/ run folders whose trials
// share seeds. For every setting and λ (l = 0: λ0; l = 0.75: the shipped λ) it pairs each EOFD-MLogB
// configuration (fixed m, or m: adaptive with a budget ε) with OFUL-MLogB on the same trials: the time
// ratio (geometric mean of the per-trial ms/round ratios, 95% Student-t interval on the log scale) and
// the final-regret difference (95% paired t interval; Holm-adjusted over the configurations of that
// setting and λ, whose verdict column says whether it excludes 0). Writes OUT/sketch-pareto.csv and
// OUT/sketch-pareto-<setting>.svg: ms/round (log scale; OFUL-MLogB's mean times the ratio and its
// interval) against final regret (OFUL-MLogB's mean plus the paired difference and its interval), one
// panel per λ, the fixed sizes joined by a line in order of m.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(root, 'dist', p));
const { geometricMs, paired, points: sweepPoints, readExperiment, trials, writeCsv } = await import('./lib/paired-sweep.mjs');
const { holm, mean } = await dist('stats/index.js');
const { axisLines, xAxis, xTitle, yAxis, yTitle } = await dist('plot/axis.js');
const { figureSvg } = await dist('plot/figure.js');
const { dots, line } = await dist('plot/marks.js');
const { decadeRange, decadeScale, niceTicks, linearScale, tickLabel } = await dist('plot/scale.js');
const { segment, text, INK } = await dist('plot/svg.js');

const input = path.resolve(process.argv[2] ?? path.join(root, 'results', 'study', 'sketch'));
const output = path.resolve(process.argv[3] ?? input);
for (const part of ['oful', 'fixed', 'adaptive']) {
  if (!fs.existsSync(path.join(input, part))) {
    console.error(`sketch-pareto: ${path.join(input, part)} is missing (run scripts/study sketch first)`);
    process.exit(2);
  }
}

/** Point folders of a sweep of one part: { values: {l, m, delta_max}, dir }. */
const points = (part, sweep) => sweepPoints(path.join(input, part, sweep));

const settings = fs.readdirSync(path.join(input, 'oful')).filter((s) => s.endsWith('-sweep')).sort();
const rows = [];
const figures = [];
for (const sweep of settings) {
  const setting = sweep.replace(/^study-/, '').replace(/-sweep$/, '');
  const panels = [];
  for (const reference of points('oful', sweep).sort((a, b) => Number(a.values.l) - Number(b.values.l))) {
    const l = reference.values.l;
    const oful = trials(reference.dir, 'OFUL-MLogB');
    const configs = [
      ...points('fixed', sweep).filter((p) => p.values.l === l).map((p) => ({ ...p, label: `m = ${p.values.m}`, fixed: Number(p.values.m) })),
      ...points('adaptive', sweep).filter((p) => p.values.l === l).map((p) => ({ ...p, label: `adaptive, ε = ${p.values.delta_max}`, fixed: null })),
    ].sort((a, b) => (a.fixed ?? Infinity) - (b.fixed ?? Infinity) || Number(a.values.delta_max) - Number(b.values.delta_max));
    const measured = configs.map((c) => {
      const eofd = trials(c.dir, 'EOFD-MLogB');
      const { time, regret } = paired(eofd, oful, `${c.dir} against ${reference.dir}`);
      const mT = eofd.map((r) => r.mT ?? NaN);
      return { ...c, eofd, time, regret, mT, deltaT: Math.max(...eofd.map((r) => r.deltaT ?? NaN)) };
    });
    const adjusted = holm(measured.map((c) => c.regret));
    const ofulMs = geometricMs(oful);
    const ofulRegret = mean(oful.map((r) => r.finalRegret));
    measured.forEach((c, i) => {
      const h = adjusted[i];
      rows.push({
        setting,
        l,
        lambda: c.eofd.length ? readExperiment(c.dir).derived.lambda : NaN,
        config: c.label,
        n: c.eofd.length,
        m_T: `${Math.min(...c.mT)}–${Math.max(...c.mT)}`,
        delta_T_max: c.deltaT,
        ms_round: geometricMs(c.eofd),
        oful_ms_round: ofulMs,
        time_ratio: c.time.estimate,
        time_ratio_low: c.time.low,
        time_ratio_high: c.time.high,
        final_regret: mean(c.eofd.map((r) => r.finalRegret)),
        oful_final_regret: ofulRegret,
        regret_diff: c.regret.mean,
        regret_diff_low: c.regret.low,
        regret_diff_high: c.regret.high,
        holm_low: h.adjusted.low,
        holm_high: h.adjusted.high,
        regret_verdict: h.rejected ? (c.regret.mean > 0 ? 'more regret' : 'less regret') : 'inconclusive',
      });
    });
    panels.push({ l, lambda: readExperiment(reference.dir).derived.lambda, ofulMs, ofulRegret, oful, measured });
  }
  figures.push({ setting, panels });
}

writeCsv(path.join(output, 'sketch-pareto.csv'), rows);

// Figures: x = ms/round (log), y = final regret; error bars are the paired intervals placed at OFUL's values.
const W = 430;
const H = 330;
const M = { left: 66, right: 18, top: 40, bottom: 52 };
const FIXED = '#1f77b4';
const ADAPTIVE = '#d62728';
const REFERENCE = '#555555';
for (const { setting, panels } of figures) {
  const figurePanels = panels.map((p) => {
    const frame = { left: M.left, top: M.top, width: W - M.left - M.right, height: H - M.top - M.bottom };
    const xs = p.measured.flatMap((c) => [c.time.low * p.ofulMs, c.time.high * p.ofulMs]).concat([p.ofulMs]).filter((v) => v > 0);
    const [lo, hi] = decadeRange(xs, xs, 6);
    const x = decadeScale(lo, hi, [frame.left, frame.left + frame.width]);
    const ys = p.measured.flatMap((c) => [p.ofulRegret + c.regret.low, p.ofulRegret + c.regret.high]).concat([p.ofulRegret]).filter(Number.isFinite);
    const yLo = Math.min(...ys);
    const yHi = Math.max(...ys);
    const pad = 0.08 * (yHi - yLo || 1);
    const ticks = niceTicks(yHi + pad - (yLo - pad));
    const y = linearScale([yLo - pad, yHi + pad], [frame.top + frame.height, frame.top], []);
    const yTicks = [];
    const step = ticks.values[1] - ticks.values[0] || 1;
    for (let v = Math.ceil((yLo - pad) / step) * step; v <= yHi + pad; v += step) yTicks.push({ value: v, label: tickLabel(v, ticks) });
    const yScale = { ...y, ticks: yTicks };
    const el = [...yAxis(frame, yScale), ...xAxis(frame, x), ...axisLines(frame)];
    el.push(text(frame.left, 22, `${p.l === '0' ? 'λ = λ0' : 'shipped λ'} (l = ${p.l}, λ = ${Number(p.lambda).toPrecision(3)})`, { bold: true }));
    el.push(xTitle(frame, 'ms per round (log scale)'), yTitle(frame, 'final regret'));
    const cross = (cx, cy, xl, xh, yl, yh, colour) => [
      segment(x.at(xl), y.at(cy), x.at(xh), y.at(cy), colour, ' stroke-width="1.2"'),
      segment(x.at(cx), y.at(yl), x.at(cx), y.at(yh), colour, ' stroke-width="1.2"'),
    ];
    const fixed = p.measured.filter((c) => c.fixed !== null);
    el.push(line(fixed.map((c) => [x.at(c.time.estimate * p.ofulMs), y.at(p.ofulRegret + c.regret.mean)]), { colour: FIXED, dash: '' }));
    for (const c of p.measured) {
      const colour = c.fixed === null ? ADAPTIVE : FIXED;
      const cx = c.time.estimate * p.ofulMs;
      const cy = p.ofulRegret + c.regret.mean;
      el.push(...cross(cx, cy, c.time.low * p.ofulMs, c.time.high * p.ofulMs, p.ofulRegret + c.regret.low, p.ofulRegret + c.regret.high, colour));
      el.push(...dots([[x.at(cx), y.at(cy)]], colour));
      el.push(text(x.at(cx) + 5, y.at(cy) - 5, c.fixed === null ? `ε=${c.values.delta_max}` : `m=${c.fixed}`, { size: 10, fill: colour }));
    }
    el.push(segment(x.at(p.ofulMs), frame.top, x.at(p.ofulMs), frame.top + frame.height, REFERENCE, ' stroke-dasharray="4 3"'));
    el.push(segment(frame.left, y.at(p.ofulRegret), frame.left + frame.width, y.at(p.ofulRegret), REFERENCE, ' stroke-dasharray="4 3"'));
    el.push(...dots([[x.at(p.ofulMs), y.at(p.ofulRegret)]], INK));
    return { name: `l=${p.l}`, elements: el };
  });
  const n = panels[0]?.oful.length ?? 0;
  const svg = figureSvg({
    title: `${setting}: EOFD-MLogB's sketch size, time against regret (n = ${n} paired trials, 95% intervals vs OFUL-MLogB)`,
    legend: [
      { label: 'fixed m (joined in order of m)', style: { colour: FIXED, dash: '' }, kind: 'line' },
      { label: 'm: adaptive, budget ε', style: { colour: ADAPTIVE, dash: '' }, kind: 'box' },
      { label: 'OFUL-MLogB', style: { colour: REFERENCE, dash: '4 3' }, kind: 'line' },
    ],
    panelWidth: W,
    panelHeight: H,
    plotLeft: M.left,
    panels: figurePanels,
  });
  fs.writeFileSync(path.join(output, `sketch-pareto-${setting}.svg`), svg);
}
console.log(`wrote ${path.join(output, 'sketch-pareto.csv')} (${rows.length} rows) and ${figures.length} figures`);
