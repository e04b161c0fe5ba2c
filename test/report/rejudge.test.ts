/**
 * A report made again from manifest.json and summary.csv alone (the per-round CSVs gone), with the
 * curves and identical decisions of the report made before: the same report as `buildReport` made
 * with every file there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, rejudgeReport, REPORT_FORMAT, type Report } from '../../src/report/index.js';
import { writeExperiment, writeFixtureResults, type FixturePolicy } from './fixture.js';

const learner = (name: string, finals: number[], ms: number, actionShift: number): FixturePolicy => ({
  name, finals, selectMs: [ms, ms, ms], updateMs: [0, 0, 0], stateBytes: 0, sketchError: [0, 0, 0], projections: [0, 0, 0], parameterError: null, actionShift,
});

/** The fixture's two experiments and a synthetic binary one whose OFUL-textbook decides as OFUL-MLogB. */
function results(): string {
  const root = writeFixtureResults();
  writeExperiment(path.join(root, 'binary'), {
    name: 'binary',
    environment: { type: 'synthetic', d: 400, K: 1 },
    horizon: 10,
    policies: [
      learner('EOFD-MLogB', [40, 41, 39], 0.1, 0),
      learner('OFUL-MLogB', [43.3, 45, 46.7], 1, 1),
      learner('OFUL-textbook', [43.3, 45, 46.7], 20, 1),
      learner('Random', [50, 50, 50], 0.001, 3),
    ],
    variants: { 'OFUL-textbook': { policy: 'OFUL-MLogB', params: { oful_solver: 'textbook' } } },
  });
  return root;
}

/** Deletes every per-round CSV under `root`, as results/paper/ is committed. */
function dropRounds(root: string): void {
  for (const file of fs.readdirSync(root, { recursive: true }) as string[]) {
    if (/trial-\d+\.csv$/.test(file)) fs.rmSync(path.join(root, file));
  }
}

const json = (r: Report): unknown => JSON.parse(JSON.stringify(r));

describe('rejudgeReport', () => {
  it('from summary.csv and the previous report.json gives the report buildReport gives from every file', () => {
    const root = results();
    const built = buildReport([root]);
    expect(built.experiments.find((e) => e.name === 'binary')!.identical).toEqual([['OFUL-MLogB', 'OFUL-textbook']]);
    const previous = json(built);
    dropRounds(root);
    expect(() => buildReport([root])).toThrow(/trial-0\.csv/);
    expect(json(rejudgeReport(previous, root))).toEqual(previous);
  });

  it('takes a format-5 report (before the control and the directions) and judges it by the current rules', () => {
    const root = results();
    const built = json(buildReport([root])) as Report;
    const old = JSON.parse(JSON.stringify(built)) as Record<string, unknown> & Report;
    old.format = 'eofd-report/5' as typeof REPORT_FORMAT;
    for (const e of old.experiments) for (const o of e.ofulComparisons) delete (o as Partial<typeof o>).randomControl;
    old.claims = old.claims.map((c) => ({ ...c, verdict: 'holds', reason: 'the old rules' }));
    dropRounds(root);
    const again = rejudgeReport(old, root);
    expect(again.format).toBe(REPORT_FORMAT);
    expect(json(again)).toEqual(built);
  });

  it('refuses a report of another format, and an experiment that was in progress', () => {
    const root = results();
    const built = json(buildReport([root])) as Report;
    expect(() => rejudgeReport({ ...built, format: 'eofd-report/4' }, root)).toThrow(/report format "eofd-report\/4": expected one of eofd-report\/5, eofd-report\/6/);
    const running = { ...built, experiments: built.experiments.map((e) => ({ ...e, progress: { ...e.progress, complete: false } })) };
    expect(() => rejudgeReport(running, root)).toThrow(/was in progress/);
    expect(() => rejudgeReport(built, path.join(root, 'nowhere'))).toThrow(/manifest\.json: not found/);
  });
});
