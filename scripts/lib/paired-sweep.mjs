// Reading `eofd sweep` folders and pairing a policy with a reference on the same trials: what the
// study's figure scripts (sketch-pareto.mjs, sketch-payoff.mjs) share. Needs a build (dist/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { readExperiment } = await import(path.join(root, 'dist', 'results', 'read.js'));
const { mean, pairedDifference, pairedLogRatio, ratioEstimate } = await import(path.join(root, 'dist', 'stats', 'index.js'));

export { readExperiment };

/** The finished point folders of a sweep folder: [{ values: {key: value}, dir }] ("l=0,S=5" → {l: '0', S: '5'}). */
export function points(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'summary.csv')))
    .map((e) => ({ values: Object.fromEntries(e.name.split(',').map((kv) => kv.split('='))), dir: path.join(dir, e.name) }));
}

/** Per-trial summary rows of `label` in a run folder, trials ascending. */
export function trials(dir, label) {
  return readExperiment(dir).summary.filter((r) => r.policy === label).sort((a, b) => a.trial - b.trial);
}

/**
 * `rows` against `reference` on the same trials (an Error names both folders when the trials differ):
 * the per-round time ratio (geometric mean of per-trial ratios, 95% Student-t interval on the log
 * scale: `logTime`, back-transformed: `time`) and the final-regret difference (95% paired t interval).
 */
export function paired(rows, reference, where) {
  if (rows.length !== reference.length || rows.some((r, i) => r.trial !== reference[i].trial)) {
    throw new Error(`${where}: trials ${rows.map((r) => r.trial)} are not the reference's (${reference.map((r) => r.trial)})`);
  }
  const logTime = pairedLogRatio(rows.map((r) => r.meanRoundMs), reference.map((r) => r.meanRoundMs));
  return {
    logTime,
    time: ratioEstimate(logTime),
    regret: pairedDifference(rows.map((r) => r.finalRegret), reference.map((r) => r.finalRegret)),
  };
}

/** The geometric mean of the trials' ms per round. */
export function geometricMs(rows) {
  return Math.exp(mean(rows.map((r) => Math.log(r.meanRoundMs))));
}

/** Writes `rows` (objects with the same keys) as a CSV; numbers to 6 significant digits, NaN empty. */
export function writeCsv(file, rows) {
  const columns = Object.keys(rows[0] ?? {});
  const cell = (v) => (typeof v === 'number' ? (Number.isFinite(v) ? String(Number(v.toPrecision(6))) : '') : String(v).includes(',') ? `"${v}"` : String(v));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, [columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\n') + '\n');
}
