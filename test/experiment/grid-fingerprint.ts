/**
 * A grid folder as a fingerprint that leaves out what may differ between two runs of the same code
 * (timings, start times, host, absolute paths): file → SHA-256 of its normalised text.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { listFiles, withoutTimings } from './fixtures.js';

const TIMING_SUMMARY_COLUMNS = new Set(['mean_select_ms', 'mean_update_ms', 'median_select_ms', 'median_update_ms', 'mean_round_ms']);

function dropColumns(csv: string, drop: (name: string) => boolean): string {
  const lines = csv.split('\n');
  const header = (lines[0] ?? '').split(',');
  const keep = header.map((name, i) => (drop(name) ? -1 : i)).filter((i) => i >= 0);
  return lines.map((line) => (line === '' ? line : keep.map((i) => line.split(',')[i]).join(','))).join('\n');
}

function normalise(file: string, text: string): string {
  const name = path.basename(file);
  if (/^trial-\d+\.csv$/.test(name)) return withoutTimings(text);
  if (name === 'summary.csv') return dropColumns(text, (c) => TIMING_SUMMARY_COLUMNS.has(c));
  if (name === 'grid.csv') return dropColumns(text, (c) => c === 'mean_round_ms');
  if (name === 'manifest.json') {
    const m = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify({ name: m.name, config: m.config, derived: m.derived, seeds: m.seeds });
  }
  return text;
}

export function gridFingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of listFiles(dir)) {
    if (file.endsWith('.summary.json')) continue; // holds timings; its numbers are in summary.csv
    const text = normalise(file, fs.readFileSync(path.join(dir, file), 'utf8'));
    out[file] = createHash('sha256').update(text).digest('hex');
  }
  return out;
}
