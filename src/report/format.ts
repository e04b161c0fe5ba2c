/** Number formatting shared by the tables, the claims, the SVGs and the HTML (fixed, locale-free). */
import type { RandomCheck } from './summarize.js';

/** `x` with `digits` significant digits, without exponent between 1e-4 and 1e6; "–" for null/NaN. */
export function formatSig(x: number | null, digits = 4): string {
  if (x === null || !Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(x)));
  if (magnitude >= 6 || magnitude < -4) return x.toExponential(digits - 1);
  return fixed(x, Math.max(0, digits - 1 - magnitude));
}

/** Like formatSig, without trailing zeros: "12.5", "0.02". */
export function formatShort(x: number | null, digits = 4): string {
  const s = formatSig(x, digits);
  if (!s.includes('.') || s.includes('e')) return s;
  return s.replace(/\.?0+$/, '');
}

/** `mean ± std`, the std printed with the mean's decimals; one trial shows `mean (n = 1)`, no spread. */
export function formatMeanStd(m: { mean: number; std: number; n?: number } | null, digits = 4): string {
  if (m === null) return '–';
  const text = formatSig(m.mean, digits);
  if (m.n === 1) return `${text} (n = 1)`;
  const dot = text.indexOf('.');
  if (text.includes('e') || !Number.isFinite(m.std)) return `${text} ± ${formatSig(m.std, 2)}`;
  return `${text} ± ${fixed(m.std, dot < 0 ? 0 : text.length - dot - 1)}`;
}

/** toFixed without "-0". */
export function fixed(x: number, decimals: number): string {
  const s = x.toFixed(decimals);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A signed percentage with one decimal: "+12.3%", "−4.0%" (U+2212 minus). */
export function formatPct(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return '–';
  const s = signedFixed(x, 1);
  return s.startsWith('−') ? `${s}%` : `+${s}%`;
}

/** Bytes in SI units: "512 B", "12.3 kB", "4.56 MB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${fixed(v, 0)} B` : `${formatSig(v, 3)} ${units[u]}`;
}

/** "78.2% less time" / "3.1% more time" from a reduction in %. */
export function describeTimeReduction(pct: number): string {
  return pct >= 0 ? `${fixed(pct, 1)}% less time` : `${fixed(-pct, 1)}% more time`;
}

/** "12.3% more regret" / "4.0% less regret" from an overhead in %. */
export function describeRegretOverhead(pct: number): string {
  return pct >= 0 ? `${fixed(pct, 1)}% more regret` : `${fixed(-pct, 1)}% less regret`;
}

/** A number with `decimals` decimals and a U+2212 minus: "12.3", "−4.0". */
export function signedFixed(x: number, decimals = 1): string {
  const s = fixed(x, decimals);
  return s.startsWith('-') ? `−${s.slice(1)}` : s;
}

/** An interval as "[61.2, 78.9]" ("[–, –]" when an end is undefined). */
export function formatInterval(low: number, high: number, decimals = 1): string {
  const end = (x: number) => (Number.isFinite(x) ? signedFixed(x, decimals) : '–');
  return `[${end(low)}, ${end(high)}]`;
}

/** Decimals that show `digits` significant digits of |x| without exponent (digits − 1 for 0). */
export function decimalsFor(x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0) return digits - 1;
  return Math.min(20, Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(x)))));
}

/** An interval and its point: a mean (differences) or a back-transformed estimate (ratios). */
export type WithInterval = { low: number; high: number } & ({ mean: number } | { estimate: number });

/** The point of an interval: its mean, or its back-transformed estimate. */
function pointOf(x: WithInterval): number {
  return 'estimate' in x ? x.estimate : x.mean;
}

/** "mean [low, high]" with `decimals` decimals and `unit` after the mean: "66.7% [46.0, 87.4]". */
export function formatWithInterval(x: WithInterval, decimals: number, unit = ''): string {
  const value = pointOf(x);
  if (!Number.isFinite(value)) return '–';
  return `${signedFixed(value, decimals)}${unit} ${formatInterval(x.low, x.high, decimals)}`;
}

/** Decimals that show 3 significant digits of an interval's largest end (or mean). */
export function differenceDecimals(x: WithInterval): number {
  const scale = Math.max(...[pointOf(x), x.low, x.high].filter(Number.isFinite).map(Math.abs), 0);
  return decimalsFor(scale, 3);
}

/** An absolute difference with 3 significant digits of its largest end: "−16.5 [−20.2, −12.8]". */
export function formatDifference(x: { mean: number; low: number; high: number }): string {
  return formatWithInterval(x, differenceDecimals(x));
}

/** A confidence level in %: "95%", "98.3%". */
export function formatLevel(level: number): string {
  return `${formatShort(100 * level, 3)}%`;
}

/** A p-value: two significant digits, "<0.0001" below that; "–" when undefined. */
export function formatP(p: number): string {
  if (!Number.isFinite(p)) return '–';
  return p < 1e-4 ? '<0.0001' : formatShort(p, 2);
}

/** An adjusted interval with its level: "[−2.91, −0.08] (98.3%)"; "–" without one. */
export function formatAdjusted(x: { low: number; high: number; level: number }, decimals: number): string {
  if (!Number.isFinite(x.low) || !Number.isFinite(x.high)) return '–';
  return `${formatInterval(x.low, x.high, decimals)} (${formatLevel(x.level)})`;
}

/**
 * A learner's final regret against Random, e.g. "difference 3.00, 95% CI [3.00, 3.00]; Holm-adjusted
 * over 2 learners [3.00, 3.00] (97.5%)"; with one trial "difference 3.00 (1 trial: no interval)".
 */
export function describeRandomCheck(c: RandomCheck): string {
  const decimals = differenceDecimals(c.regret);
  const difference = `difference ${signedFixed(c.regret.mean, decimals)}`;
  if (!Number.isFinite(c.regret.low)) return `${difference} (${c.regret.n} trial: no interval)`;
  const learners = `${c.test.family} learner${c.test.family === 1 ? '' : 's'}`;
  return (
    `${difference}, 95% CI ${formatInterval(c.regret.low, c.regret.high, decimals)}; ` +
    `Holm-adjusted over ${learners} ${formatAdjusted(c.test.adjusted, decimals)}`
  );
}
