/**
 * Scales: value → pixel maps with their ticks. Linear scales from 0 to a round number (1, 2 or 5 ×
 * 10^k apart), log scales on decades (minor ticks at 2..9 × 10^k), and evenly spaced categories as
 * points (a sweep's values) or slots (bars). A value below a scale's domain is drawn at its start.
 */

/** A tick: major ones carry a label (and a grid line); minor ones only a short mark. */
export interface Tick {
  value: number;
  label: string;
  minor?: boolean;
}

export interface Scale {
  /** The pixel of value `v` (for category scales: of index `v`). */
  at(v: number): number;
  ticks: readonly Tick[];
}

export interface Ticks {
  step: number;
  /** Tick values from 0 to `top` inclusive. */
  values: number[];
  /** The axis end: the first tick ≥ max. */
  top: number;
  /** Decimals that print every tick exactly. */
  decimals: number;
}

/** Round-number ticks (1, 2 or 5 × 10^k apart) from 0 to the first tick ≥ max, about `target` of them. */
export function niceTicks(max: number, target = 5): Ticks {
  const upper = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = upper / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
  const count = Math.max(1, Math.ceil(upper / step - 1e-9));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const values = Array.from({ length: count + 1 }, (_, k) => Number((k * step).toFixed(decimals)));
  return { step, values, top: values[count] as number, decimals };
}

/** A tick's label: exact decimals; thousands as "20k" on axes reaching 10,000 in whole thousands. */
export function tickLabel(value: number, ticks: Ticks): string {
  const thousands = ticks.top >= 10_000 && ticks.step % 1000 === 0;
  if (thousands && value !== 0) return `${value / 1000}k`;
  const s = value.toFixed(ticks.decimals);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** 10^k as a plain label: "0.01", "1", "1000"; exponent form beyond 10^±6. */
export function decadeLabel(k: number): string {
  if (k >= 0 && k <= 6) return String(10 ** k);
  if (k < 0 && k >= -6) return (10 ** k).toFixed(-k);
  return `1e${k}`;
}

/**
 * [lo, hi]: decades 10^lo ≤ the smallest of `lows` and 10^hi ≥ the largest of `highs` (all > 0),
 * at least one and at most `maxDecades` apart; [−1, 0] when there is nothing to show.
 */
export function decadeRange(lows: readonly number[], highs: readonly number[], maxDecades: number): [number, number] {
  const all = [...lows, ...highs];
  if (all.length === 0) return [-1, 0];
  let hi = Math.ceil(Math.log10(Math.max(...all)));
  const lo = lows.length === 0 ? hi - 1 : Math.floor(Math.log10(Math.min(...lows)));
  if (hi <= lo) hi = lo + 1;
  return [Math.max(lo, hi - maxDecades), hi];
}

/** [from, to] in pixels; `to` may be below `from` (a y axis grows upwards). */
export type Range = readonly [number, number];

/** A linear map of [lo, hi] onto `range`; values below lo sit at lo. */
export function linearScale(domain: readonly [number, number], range: Range, ticks: readonly Tick[] = []): Scale {
  const [lo, hi] = domain;
  const span = hi - lo || 1;
  return { at: (v) => range[0] + ((Math.max(lo, v) - lo) / span) * (range[1] - range[0]), ticks };
}

/** A linear scale from 0 to the round number at or above `max` (niceTicks), labelled. */
export function niceScale(max: number, range: Range): Scale {
  const ticks = niceTicks(max);
  return linearScale([0, ticks.top], range, ticks.values.map((value) => ({ value, label: tickLabel(value, ticks) })));
}

/** A log₁₀ map of [lo, hi] (both > 0) onto `range`; values at or below lo (zeros too) sit at lo. */
export function logScale(domain: readonly [number, number], range: Range, ticks: readonly Tick[] = []): Scale {
  const lo = Math.log10(domain[0]);
  const span = Math.log10(domain[1]) - lo || 1;
  return { at: (v) => range[0] + ((Math.log10(Math.max(v, domain[0])) - lo) / span) * (range[1] - range[0]), ticks };
}

/**
 * A log scale from 10^lo to 10^hi with a labelled tick per decade and minor ticks at 2..9 × 10^k;
 * with `floored` the lowest label says that values beneath it are drawn on it ("≤0.01").
 */
export function decadeScale(lo: number, hi: number, range: Range, floored = false): Scale {
  const ticks: Tick[] = [];
  for (let k = lo; k <= hi; k++) {
    ticks.push({ value: 10 ** k, label: `${k === lo && floored ? '≤' : ''}${decadeLabel(k)}` });
    if (k < hi) for (let j = 2; j <= 9; j++) ticks.push({ value: j * 10 ** k, label: '', minor: true });
  }
  return logScale([10 ** lo, 10 ** hi], range, ticks);
}

/** `labels` evenly spaced from one end of `range` to the other (one label: in the middle); at(i) is the i-th. */
export function pointScale(labels: readonly string[], range: Range): Scale {
  const count = labels.length;
  const at = (i: number): number => (count < 2 ? (range[0] + range[1]) / 2 : range[0] + (i * (range[1] - range[0])) / (count - 1));
  return { at, ticks: labels.map((label, i) => ({ value: i, label })) };
}

/** `count` equal slots across `range` (bars); at(i) is the middle of the i-th, `width` a slot's width. */
export function slotScale(labels: readonly string[], range: Range): Scale & { width: number } {
  const width = (range[1] - range[0]) / Math.max(1, labels.length);
  return { at: (i) => range[0] + width * (i + 0.5), width, ticks: labels.map((label, i) => ({ value: i, label })) };
}
