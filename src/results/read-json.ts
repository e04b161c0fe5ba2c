/**
 * The JSON files of a results folder (layout.ts): the manifest, best.json, a shard's sweep-shard.json
 * and the unit summaries that mark finished units. Every defect is one line naming the file and,
 * where there is one, the line and field: `results/x/manifest.json: config.horizon: expected a
 * positive integer, got 0`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { describeFsError, EofdError, errnoCode } from '../base/errors.js';
import { INPUT_LIMITS, InputFileError, readInputFile } from '../base/files.js';
import { fileSha256 } from '../base/hash.js';
import { describeIssue } from '../base/zod-issues.js';
import { MANIFEST_FILE, type UnitFiles } from './layout.js';
import { manifestSchema, type ManifestRead } from './manifest.js';
import { bestFileSchema, sweepShardSchema } from './sweep.js';
import { unitSummarySchema, type UnitSummaryFile } from './unit.js';

/** A defect in a results file (or a missing one): exit code 2. */
export class ResultsError extends EofdError {
  constructor(message: string, exitCode = 2) {
    super(message, exitCode);
  }
}

/** The setting an experiment ran in, as the manifest's resolved config states it. */
export interface Setting {
  /** `config.environment.type`: synthetic, mnist, trace, … */
  environment: string;
  /** Number of non-null outcomes K. */
  K: number;
  /** Feature dimension d. */
  d: number;
  /** Rounds per trial T (`config.horizon`). */
  horizon: number;
  /** Trials per policy (`config.trials`). */
  trials: number;
  /** Policies in the order the manifest lists them. */
  policies: string[];
}

/** Provenance copied from the manifest (display only; absent fields are null). */
export interface Provenance {
  package: string | null;
  git: string | null;
  node: string | null;
  cpu: string | null;
  cores: number | null;
}

/** How an experiment's units were timed, from the manifest's `timing` (null fields: not recorded). */
export interface Timing {
  /** The most units any run of this folder timed at once. */
  jobs: number | null;
  /** The highest 1-minute load average seen when a run started or ended. */
  load: number | null;
  /** Cores of the machine (manifest's host). */
  cores: number | null;
  /** How the policies of a trial were timed against one another (the runs' `pairing`, when every run recorded the same). */
  pairing: string | null;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Reads `file` as JSON and validates it against `schema` (which must not transform: the JSON is
 * returned as written, key order included); throws a one-line ResultsError
 * `file[:line]: field: expected …, got …` (`what` names the file's role when it cannot be read).
 */
export function readJsonFile<Schema extends z.ZodType>(file: string, schema: Schema, what: string): z.output<Schema> {
  let text: string;
  try {
    // A regular file only (a FIFO would block the reader), of a bounded size.
    text = readInputFile(file, INPUT_LIMITS.resultsJsonBytes).toString('utf8');
  } catch (error) {
    throw new ResultsError(`${file}: cannot read ${what}: ${error instanceof InputFileError ? error.message : describeFsError(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    const position = /position (\d+)/.exec(message);
    const where = position ? `:${lineOf(text, Number(position[1]))}` : '';
    throw new ResultsError(`${file}${where}: not valid JSON (${message})`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const { field, detail } = describeIssue(result.error.issues[0] as z.core.$ZodIssue, json, 'got nothing');
    throw new ResultsError(`${file}: ${field.length === 0 ? '(file)' : field.join('.')}: ${detail}`);
  }
  return json as z.output<Schema>;
}

/** The manifest of an experiment folder. */
export function readManifest(dir: string): ManifestRead {
  const file = path.join(dir, MANIFEST_FILE);
  try {
    fs.statSync(file);
  } catch (error) {
    // Only a missing file is "not found"; an unreadable one says why.
    throw new ResultsError(errnoCode(error) === 'ENOENT' ? `${file}: not found` : `${file}: cannot read the manifest: ${describeFsError(error)}`);
  }
  return readJsonFile(file, manifestSchema, 'the manifest');
}

/**
 * A best.json as `eofd grid` writes it (per label the chosen values, or l and e as older files give
 * them; only `params.*` keys).
 */
export function readBestFile(file: string): z.output<typeof bestFileSchema> {
  return readJsonFile(file, bestFileSchema, 'the best.json');
}

/** A shard's sweep-shard.json. */
export function readSweepShard(file: string): z.output<typeof sweepShardSchema> {
  return readJsonFile(file, sweepShardSchema, 'the sweep shard record');
}

/** The parsed JSON of a unit's summary file, or undefined when it cannot be read or parsed. */
function readUnitSummaryJson(files: UnitFiles): unknown {
  try {
    return JSON.parse(readInputFile(files.summary, INPUT_LIMITS.resultsJsonBytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Whether the unit's trial CSV still holds the bytes its run wrote: one edited digit makes it false. */
function csvMatches(files: UnitFiles, sha256: string): boolean {
  return fileSha256(files.csv) === sha256;
}

/**
 * The unit's summary if the unit finished: the final CSV exists, its summary file is readable, names
 * the same policy, trial and horizon, and records the CSV's byte length and (`check = 'content'`, the
 * default) its SHA-256. Otherwise null. `'size'` skips the hash, for a quick count (`eofd status`).
 */
export function readFinishedUnit(
  files: UnitFiles,
  policy: string,
  trial: number,
  horizon: number,
  check: 'content' | 'size' = 'content',
): UnitSummaryFile | null {
  let size: number;
  try {
    size = fs.statSync(files.csv).size;
  } catch {
    return null;
  }
  const parsed = unitSummarySchema.safeParse(readUnitSummaryJson(files));
  if (!parsed.success) return null;
  const unit = parsed.data;
  if (unit.policy !== policy || unit.trial !== trial || unit.horizon !== horizon || unit.bytes !== size) return null;
  if (check === 'content' && !csvMatches(files, unit.sha256)) return null;
  return unit;
}

/**
 * A trial CSV whose unit summary (written by the run) exists must hash to what the run recorded: an
 * edited or swapped file is a defect, not a result.
 */
export function checkUnitHash(files: UnitFiles): void {
  const recorded = (readUnitSummaryJson(files) as { sha256?: unknown } | null | undefined)?.sha256;
  if (typeof recorded !== 'string' || !fs.existsSync(files.csv)) return;
  if (!csvMatches(files, recorded)) {
    throw new ResultsError(`${files.csv}: its content differs from what the run wrote (SHA-256 in ${path.basename(files.summary)}); the file was changed after the run`);
  }
}

/** The setting, derived values and provenance a reader shows, from a validated manifest. */
export function describeManifest(m: ManifestRead): { name: string; setting: Setting; derived: Record<string, unknown>; provenance: Provenance; timing: Timing } {
  const { environment, horizon, trials, policies } = m.config;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const pkg = (m.package ?? {}) as { name?: unknown; version?: unknown };
  const host = (m.host ?? {}) as { cpu?: unknown; cores?: unknown };
  return {
    name: m.name,
    setting: { environment: environment.type, K: environment.K, d: environment.d, horizon, trials, policies: [...policies] },
    derived: m.derived ?? {},
    provenance: {
      package: typeof pkg.name === 'string' && typeof pkg.version === 'string' ? `${pkg.name} ${pkg.version}` : null,
      git: str(m.git),
      node: str(m.node),
      cpu: str(host.cpu),
      cores: typeof host.cores === 'number' ? host.cores : null,
    },
    timing: timingOf(m, typeof host.cores === 'number' ? host.cores : null),
  };
}

function timingOf(m: ManifestRead, cores: number | null): Timing {
  const runs = m.timing?.runs ?? [];
  const loads = runs.flatMap((r) => [r.load_start?.[0], r.load_end?.[0] ?? undefined]).filter((x): x is number => typeof x === 'number');
  const pairings = new Set(runs.map((r) => (typeof r.pairing === 'string' ? r.pairing : null)));
  return {
    jobs: runs.length === 0 ? null : Math.max(...runs.map((r) => r.jobs)),
    load: loads.length === 0 ? null : Math.max(...loads),
    cores,
    pairing: pairings.size === 1 ? ([...pairings][0] ?? null) : null,
  };
}
