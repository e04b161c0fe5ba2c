#!/usr/bin/env node
// Where the sketch pays off, from the λ × S sweeps of `scripts/study payoff`:
//
//   node scripts/sketch-payoff.mjs [IN] [OUT]     (defaults: results/study/payoff, IN)
//
// IN holds <setting>-sweep/<point>/ run folders (points l=…,S=…), each with EOFD-MLogB and OFUL-MLogB
// on the same trials. Per setting and point: EOFD-MLogB's per-round time ratio to OFUL-MLogB (geometric
// mean of per-trial ratios, 95% Student-t interval on the log scale) and its final-regret difference
// (95% paired t interval); Holm's adjustment over the points of a setting, for each quantity, gives the
// verdicts; OFUL-MLogB's projection rate (projections / T) and EOFD-MLogB's Δ_T beside them. Writes
// OUT/sketch-payoff.csv and OUT/sketch-payoff.svg: the time ratio (log scale, top row) and the regret
// difference (bottom row) against l, one panel per setting, one line per S.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(root, 'dist', p));
const { geometricMs, paired, points, readExperiment, trials, writeCsv } = await import('./lib/paired-sweep.mjs');
const { holm, mean } = await dist('stats/index.js');
const { axisLines, xAxis, xTitle, yAxis, yTitle } = await dist('plot/axis.js');
const { figureSvg } = await dist('plot/figure.js');
const { dots, line } = await dist('plot/marks.js');
const { decadeRange, decadeScale, niceTicks, linearScale, tickLabel } = await dist('plot/scale.js');
const { segment, text } = await dist('plot/svg.js');

const input = path.resolve(process.argv[2] ?? path.join(root, 'results', 'study', 'payoff'));
const output = path.resolve(process.argv[3] ?? input);
const sweeps = fs.existsSync(input) ? fs.readdirSync(input).filter((s) => s.endsWith('-sweep')).sort() : [];
if (sweeps.length === 0) {
  console.error(`sketch-payoff: no <setting>-sweep folder in ${input} (run scripts/study payoff first)`);
  process.exit(2);
}
const ORDER = ['mnist', 'synthetic-k4', 'synthetic-binary'];
const settingOf = (sweep) => sweep.replace(/-sweep$/, '');
sweeps.sort((a, b) => (ORDER.indexOf(settingOf(a)) + 1 || 99) - (ORDER.indexOf(settingOf(b)) + 1 || 99));

const rows = [];
const settings = [];
for (const sweep of sweeps) {
  const setting = settingOf(sweep);
  const measured = points(path.join(input, sweep))
    .map((p) => ({ ...p, l: Number(p.values.l), S: Number(p.values.S) }))
    .sort((a, b) => a.S - b.S || a.l - b.l)
    .map((p) => {
      const eofd = trials(p.dir, 'EOFD-MLogB');
      const oful = trials(p.dir, 'OFUL-MLogB');
      const experiment = readExperiment(p.dir);
      return { ...p, eofd, oful, horizon: experiment.setting.horizon, lambda: experiment.derived.lambda, ...paired(eofd, oful, p.dir) };
    });
  const timeTests = holm(measured.map((p) => p.logTime));
  const regretTests = holm(measured.map((p) => p.regret));
  measured.forEach((p, i) => {
    const time = timeTests[i];
    const regret = regretTests[i];
    rows.push({
      setting,
      l: p.l,
      S: p.S,
      lambda: p.lambda,
      T: p.horizon,
      n: p.eofd.length,
      oful_projection_rate: mean(p.oful.map((r) => r.projections)) / p.horizon,
      delta_T: mean(p.eofd.map((r) => r.deltaT ?? NaN)),
      eofd_ms_round: geometricMs(p.eofd),
      oful_ms_round: geometricMs(p.oful),
      time_ratio: p.time.estimate,
      time_ratio_low: p.time.low,
      time_ratio_high: p.time.high,
      time_verdict: time.rejected ? (p.logTime.mean < 0 ? 'faster' : 'slower') : 'inconclusive',
      eofd_final_regret: mean(p.eofd.map((r) => r.finalRegret)),
      oful_final_regret: mean(p.oful.map((r) => r.finalRegret)),
      regret_diff: p.regret.mean,
      regret_diff_low: p.regret.low,
      regret_diff_high: p.regret.high,
      regret_verdict: p.regret.std === 0 && p.regret.mean === 0 ? 'identical' : regret.rejected ? (p.regret.mean > 0 ? 'more regret' : 'less regret') : 'inconclusive',
    });
  });
  if (measured.length > 0) settings.push({ setting, measured });
}
writeCsv(path.join(output, 'sketch-payoff.csv'), rows);

// The figure: per setting, the time ratio (log scale) and the regret difference against l, one line per S.
const W = 360;
const H = 270;
const M = { left: 62, right: 14, top: 34, bottom: 48 };
const COLOURS = { 1: '#d62728', 5: '#1f77b4' };
const frame = { left: M.left, top: M.top, width: W - M.left - M.right, height: H - M.top - M.bottom };

function linearAxis(lo, hi, range) {
  const pad = 0.08 * (hi - lo || 1);
  const ticks = niceTicks(hi + pad - (lo - pad));
  const scale = linearScale([lo - pad, hi + pad], range, []);
  const step = ticks.values[1] - ticks.values[0] || 1;
  const values = [];
  for (let v = Math.ceil((lo - pad) / step) * step; v <= hi + pad; v += step) values.push({ value: v, label: tickLabel(v, ticks) });
  return { ...scale, ticks: values };
}

function panel(setting, measured, quantity) {
  const ls = [...new Set(measured.map((p) => p.l))].sort((a, b) => a - b);
  const x = linearAxis(Math.min(...ls), Math.max(...ls), [frame.left, frame.left + frame.width]);
  const lowOf = (p) => (quantity === 'time' ? p.time.low : p.regret.low);
  const highOf = (p) => (quantity === 'time' ? p.time.high : p.regret.high);
  const pointOf = (p) => (quantity === 'time' ? p.time.estimate : p.regret.mean);
  const ends = measured.flatMap((p) => [lowOf(p), highOf(p), pointOf(p)]).filter(Number.isFinite);
  let y;
  if (quantity === 'time') {
    const [lo, hi] = decadeRange(ends.concat([1]), ends.concat([1]), 6);
    y = decadeScale(lo, hi, [frame.top + frame.height, frame.top]);
  } else {
    y = linearAxis(Math.min(0, ...ends), Math.max(0, ...ends), [frame.top + frame.height, frame.top]);
  }
  const el = [...yAxis(frame, y), ...xAxis(frame, x), ...axisLines(frame)];
  const { horizon } = measured[0];
  const n = measured[0].eofd.length;
  el.push(text(frame.left, 20, `${setting} (T = ${horizon}, n = ${n})`, { bold: true }));
  el.push(xTitle(frame, 'l  (λ = (√K d)^l λ0)'), yTitle(frame, quantity === 'time' ? 'time ratio EOFD / OFUL (log)' : 'final regret EOFD − OFUL'));
  const zero = quantity === 'time' ? 1 : 0;
  el.push(segment(frame.left, y.at(zero), frame.left + frame.width, y.at(zero), '#555555', ' stroke-dasharray="4 3"'));
  for (const S of [...new Set(measured.map((p) => p.S))]) {
    const colour = COLOURS[S] ?? '#2ca02c';
    const own = measured.filter((p) => p.S === S);
    const offset = S === 1 ? -3 : 3; // the two S side by side at each l
    el.push(line(own.map((p) => [x.at(p.l) + offset, y.at(pointOf(p))]), { colour, dash: '' }));
    for (const p of own) {
      if (Number.isFinite(lowOf(p)) && Number.isFinite(highOf(p))) el.push(segment(x.at(p.l) + offset, y.at(lowOf(p)), x.at(p.l) + offset, y.at(highOf(p)), colour, ' stroke-width="1.2"'));
      el.push(...dots([[x.at(p.l) + offset, y.at(pointOf(p))]], colour));
    }
  }
  return { name: `${setting}-${quantity}`, elements: el };
}

const svg = figureSvg({
  title: 'Where the sketch pays off: EOFD-MLogB against OFUL-MLogB on the same trials, by λ and S (95% intervals)',
  legend: [
    ...[...new Set(rows.map((r) => r.S))].map((S) => ({ label: `S = ${S}`, style: { colour: COLOURS[S] ?? '#2ca02c', dash: '' }, kind: 'line' })),
    { label: 'no difference', style: { colour: '#555555', dash: '4 3' }, kind: 'line' },
  ],
  panelWidth: W,
  panelHeight: H,
  plotLeft: M.left,
  panels: [...settings.map((s) => panel(s.setting, s.measured, 'time')), ...settings.map((s) => panel(s.setting, s.measured, 'regret'))],
});
fs.writeFileSync(path.join(output, 'sketch-payoff.svg'), svg);
console.log(`wrote ${path.join(output, 'sketch-payoff.csv')} (${rows.length} rows) and ${path.join(output, 'sketch-payoff.svg')}`);
