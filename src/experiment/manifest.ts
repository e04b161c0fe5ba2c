/**
 * Builds `<out>/<name>/manifest.json` (results/manifest.ts: what ran, with which derived values and
 * seeds, from which code on which machine) and compares two of them on `--resume` and merge.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitCommit, PACKAGE_ROOT, packageInfo } from '../base/package-root.js';
import { policyLabels, type PolicyEntry } from '../config/schema.js';
import { entryNeedsRandomStream } from '../config/policy-entries.js';
import { MANIFEST_FILE } from '../results/layout.js';
import type { Manifest, ManifestConfig, ManifestShard, ManifestVariant, TimingRun } from '../results/manifest.js';
import { writeJsonAtomic } from '../results/write.js';
import { unitSeeds, type ResolvedExperiment } from './setup.js';

export { gitCommit, PACKAGE_ROOT, packageInfo };

export function manifestConfig(experiment: ResolvedExperiment): ManifestConfig {
  const { config } = experiment;
  const variants = config.policies.filter((entry) => entry.label !== entry.policy || Object.keys(entry.params).length > 0 || entry.external !== undefined);
  return {
    name: config.name,
    environment: experiment.environment,
    horizon: config.horizon,
    trials: config.trials,
    seed: config.seed,
    policies: policyLabels(config),
    ...(variants.length === 0 ? {} : { variants: Object.fromEntries(variants.map((v) => [v.label, { policy: v.policy, params: { ...v.params }, ...externalRecord(v) }])) }),
    params: { ...config.params },
    ...(config.seedName === undefined ? {} : { seed_name: config.seedName }),
  };
}

/**
 * What the manifest records of an external entry besides its params: a process's command and its
 * script's SHA-256, a module's file and SHA-256 (a rerun with other code is then refused by --resume).
 */
function externalRecord(entry: PolicyEntry): Pick<ManifestVariant, 'command' | 'script' | 'module'> {
  const external = entry.external;
  if (external === undefined) return {};
  if (external.kind === 'module') return { module: { file: external.given, sha256: external.sha256 } };
  return { command: [...external.command], ...(external.script === undefined ? {} : { script: { ...external.script } }) };
}

export function buildManifest(experiment: ResolvedExperiment, shard?: ManifestShard): Manifest {
  const { config } = experiment;
  const trials: Record<string, Record<string, string>> = {};
  for (let trial = 0; trial < config.trials; trial++) {
    const seeds = unitSeeds(config, trial, experiment.split);
    const entry: Record<string, string> = { environment: seeds.environment };
    // A process gets its label's seed in its hello; a policy that draws, its policy's stream.
    for (const e of config.policies) if (e.external?.kind === 'command' || entryNeedsRandomStream(e)) entry[`policy:${e.policy}`] = seeds.policy(e.policy);
    trials[String(trial)] = entry;
  }
  return {
    name: config.name,
    config_file: config.source,
    config: manifestConfig(experiment),
    derived: experiment.derived,
    seeds: {
      scheme: 'sha256(JSON ["eofd-seed-v1", name, trial, purpose, split, seed]) as hex',
      split: experiment.split,
      seed: config.seed,
      trials,
    },
    package: packageInfo(),
    git: gitCommit(),
    node: process.version,
    host: { cpu: os.cpus()[0]?.model?.trim() ?? 'unknown', cores: os.availableParallelism(), platform: `${process.platform}-${process.arch}` },
    started: new Date().toISOString(),
    ...(shard === undefined ? {} : { shard }),
  };
}

/**
 * The first place where two manifest configs differ, as `field: old vs new`, or null when they are
 * the same (compared as JSON values, key order ignored).
 */
export function configDifference(previous: unknown, current: unknown, field = ''): string | null {
  const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));
  if (previous === current) return null;
  const bothObjects =
    typeof previous === 'object' && previous !== null && typeof current === 'object' && current !== null;
  if (!bothObjects || Array.isArray(previous) !== Array.isArray(current)) {
    return `${field || '(config)'}: ${show(previous)} vs ${show(current)}`;
  }
  const a = previous as Record<string, unknown>;
  const b = current as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  if (Array.isArray(a) && a.length !== (b as unknown as unknown[]).length) return `${field}: ${show(a)} vs ${show(b)}`;
  for (const key of keys) {
    const difference = configDifference(a[key], b[key], field ? `${field}.${key}` : key);
    if (difference !== null) return difference;
  }
  return null;
}

/**
 * Records in `<dir>/manifest.json` how this run times its units (`timing.runs`, one entry per run
 * that writes units there): at the start with `load_end` null, then again with the end's load.
 */
export function recordTiming(dir: string, run: TimingRun): void {
  const file = path.join(dir, MANIFEST_FILE);
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  const runs = manifest.timing?.runs ?? [];
  const same = runs.findIndex((r) => r.started === run.started);
  if (same >= 0) runs[same] = run;
  else runs.push(run);
  manifest.timing = { runs };
  writeJsonAtomic(file, manifest);
}

/** os.loadavg(), rounded to 0.01. */
export function loadAverage(): number[] {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}
