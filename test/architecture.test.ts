/**
 * The layout is the architecture (README, "Layout"): imports run one way,
 * cli → experiment → report → results/config → policies → environments → model/sketch → linalg
 * (config → results: the names and formats eofd writes, which configs and labels may not take),
 * with random, stats and base as leaves. This test reads every import in src/ and fails on an arrow
 * the table below does not allow and on any import cycle among files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..', 'src');

/** Folder → the folders its files may import (besides their own). */
const ALLOWED: Record<string, readonly string[]> = {
  cli: ['experiment', 'bench', 'report', 'results', 'config', 'policies', 'environments', 'model', 'sketch', 'random', 'stats', 'linalg', 'base'],
  experiment: ['report', 'results', 'config', 'policies', 'environments', 'model', 'sketch', 'random', 'stats', 'linalg', 'base'],
  bench: ['report', 'plot', 'results', 'policies', 'environments', 'model', 'random', 'stats', 'linalg', 'base'],
  report: ['plot', 'results', 'stats', 'base'],
  plot: ['base'],
  config: ['results', 'policies', 'environments', 'model', 'base'],
  results: ['model', 'base'],
  policies: ['environments', 'model', 'sketch', 'random', 'linalg', 'base'],
  environments: ['model', 'random', 'linalg', 'base'],
  model: ['linalg', 'base'],
  sketch: ['model', 'linalg', 'base'],
  random: [],
  stats: [],
  linalg: [],
  base: [],
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports of a file, resolved to .ts paths under src/. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)) {
    found.push(path.resolve(path.dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
  }
  return found;
}

const folderOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0] as string;

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe('architecture', () => {
  it('every src/ folder is in the table', () => {
    const folders = new Set(files.map(folderOf).filter((f) => !f.endsWith('.ts')));
    expect([...folders].filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it('imports resolve to files that exist', () => {
    const missing = [...graph].flatMap(([from, to]) => to.filter((t) => !graph.has(t)).map((t) => `${path.relative(SRC, from)} → ${path.relative(SRC, t)}`));
    expect(missing).toEqual([]);
  });

  it('every arrow between folders is one the layout allows', () => {
    const wrong: string[] = [];
    for (const [from, targets] of graph) {
      const a = folderOf(from);
      if (a.endsWith('.ts')) continue; // src/index.ts: the package entry may import anything
      for (const target of targets) {
        const b = folderOf(target);
        if (b !== a && !(ALLOWED[a] ?? []).includes(b)) wrong.push(`${path.relative(SRC, from)} → ${path.relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('no import cycle among files', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
