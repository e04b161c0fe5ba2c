/**
 * Where things are under `--out` (DESIGN §4), all written so that a crash never leaves a file that
 * looks finished:
 *
 *   <out>/.<name>.lock                          the writing run's pid, host and start (experiment/lock)
 *   <out>/.<name>.progress.json                 the running command's rounds and ETA, for `status` (progress-record)
 *   <out>/<name>/manifest.json                  resolved config, derived values, seeds, provenance
 *   <out>/<name>/summary.csv                    one row per policy × trial (written when all are done)
 *   <out>/<name>/<policy>/trial-<i>.csv         one row per round
 *   <out>/<name>/<policy>/trial-<i>.summary.json   the unit's summary (the resume marker's partner)
 *   <out>/<name>/<policy>/trial-<i>.checkpoint     a running unit's last checkpoint (experiment/checkpoint)
 *   <out>/<name>-sweep/<key=value,…>/           one experiment folder per sweep point
 *   <out>/<name>-sweep/{sweep.csv, sweep-<key>.svg, sweep-shard.json}
 *   <out>/<name>-grid/l=<l>,e=<e>/              one experiment folder per grid point
 *   <out>/<name>-grid/{grid.csv, best.json, heatmap-<policy>.svg, sweep-shard.json}
 *   <out>/shard-<i>-of-<n>/                     a shard's folder, laid out like <out>
 *
 * A unit's rows go to `trial-<i>.csv.partial`; when the trial ends its summary is written
 * (atomically) and only then is the CSV renamed to its final name. While it runs, a checkpoint
 * records its policy and how much of the partial CSV is whole, so that `--resume` continues it there.
 */
import path from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
/** `<out>/reproduce.json`: a reproduction's record (experiment/reproduce.ts). */
export const REPRODUCE_FILE = 'reproduce.json';
/** A reproduction's stage folders that hold experiment folders (`<out>/<stage>/`), in stage order. */
export const REPRODUCE_RUN_STAGES = ['tune', 'tuned', 'paper-choice'] as const;
export const SUMMARY_FILE = 'summary.csv';
/** Suffix of a unit's CSV while it is being written. */
export const PARTIAL_SUFFIX = '.partial';
/** Suffix of a running unit's checkpoint. */
export const CHECKPOINT_SUFFIX = '.checkpoint';

export interface UnitFiles {
  /** `<out>/<name>/<policy>` */
  folder: string;
  /** `trial-<i>.csv` (final name). */
  csv: string;
  /** `trial-<i>.csv.partial` (while running). */
  partial: string;
  /** `trial-<i>.summary.json` */
  summary: string;
  /** `trial-<i>.checkpoint` (while running, when checkpointed). */
  checkpoint: string;
}

export function unitFiles(experimentDir: string, policy: string, trial: number): UnitFiles {
  const folder = path.join(experimentDir, policy);
  const csv = path.join(folder, `trial-${trial}.csv`);
  return {
    folder,
    csv,
    partial: csv + PARTIAL_SUFFIX,
    summary: path.join(folder, `trial-${trial}.summary.json`),
    checkpoint: path.join(folder, `trial-${trial}${CHECKPOINT_SUFFIX}`),
  };
}

/** `<out>/.<name>.lock` */
export function lockFile(out: string, name: string): string {
  return path.join(out, `.${name}.lock`);
}

/** `<out>/<name>-grid` */
export function gridDir(out: string, name: string): string {
  return path.join(out, `${name}-grid`);
}

/** `<out>/<name>-sweep` */
export function sweepDir(out: string, name: string): string {
  return path.join(out, `${name}-sweep`);
}

export const GRID_FILE = 'grid.csv';
export const BEST_FILE = 'best.json';
export const SWEEP_FILE = 'sweep.csv';
/** In a shard's sweep or grid folder: what `eofd merge` needs to rebuild the folder's outputs. */
export const SWEEP_SHARD_FILE = 'sweep-shard.json';
/** `eofd report`'s default output folder, `<experiment>/report`. */
export const REPORT_FOLDER = 'report';

/** The file names eofd report's `writeReport` writes into its folder. */
export const REPORT_FILES = ['report.csv', 'claims.csv', 'fig1-regret.svg', 'fig2-time.svg', 'report.html', 'report.json'] as const;

/**
 * The names eofd writes beside policy folders: in an experiment folder (manifest, summary, the default
 * report folder), and in the folders that hold experiment folders (grid, sweep, reproduction records),
 * with the report's own files. No label may take one (config/schema.ts `labelReason`): its policy
 * folder would be that file, or would block it.
 */
export const RESERVED_ENTRY_NAMES: readonly string[] = [
  MANIFEST_FILE,
  SUMMARY_FILE,
  REPORT_FOLDER,
  GRID_FILE,
  BEST_FILE,
  SWEEP_FILE,
  SWEEP_SHARD_FILE,
  'reproduce.json',
  ...REPORT_FILES,
  'baseline.json',
];

/** A sweep's figure for one swept key: `sweep-params.m.svg`. */
export function sweepFigureFile(key: string): string {
  return `sweep-${key.replace(/[^A-Za-z0-9._-]/g, '_')}.svg`;
}

/** A file name for a policy's heatmap: `heatmap-EOFD-MLogB.svg`. */
export function heatmapFile(policy: string): string {
  return `heatmap-${policy.replace(/[^A-Za-z0-9._-]/g, '_')}.svg`;
}

/** `<out>/shard-<i>-of-<n>` */
export function shardFolder(out: string, shard: { index: number; count: number }): string {
  return path.join(out, `shard-${shard.index}-of-${shard.count}`);
}

/**
 * `l=0.5,e=[1, 2]` → ['l=0.5', 'e=[1, 2]']: `text` split at the commas outside brackets and braces,
 * as a point folder's name (`label=value,…`) and an `--over` list join values that may be lists or
 * mappings. The parts are as written (not trimmed).
 */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
