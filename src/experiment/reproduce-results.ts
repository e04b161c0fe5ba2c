/**
 * The README's Results section, generated from a finished reproduction (`eofd reproduce`'s folder,
 * committed as results/paper/ without its per-round CSVs): what ran and how long each stage took
 * (reproduce.json), what the grid chose (tune/<name>-grid/best.json), the paper's claims judged against
 * both OFUL-MLogB solvers at the paper's (l, e) and at the grid's choice, and each policy's summary
 * (report-tuned/ and report-paper-choice/report.json). `npm run docs` writes it between the `paper-results` markers;
 * test/experiment/reproduce-results.test.ts regenerates it and fails when the README and the folder disagree.
 * `rejudgeReproduction` makes the two reports again from the committed folder (report/rejudge.ts), for
 * when the report's rules change without a new run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { controlSummary, halfSummary, type ClaimRow } from '../report/claims.js';
import { formatMeanStd, formatShort, formatWithInterval } from '../report/format.js';
import { rejudgeReport, writeReport } from '../report/index.js';
import { REPORT_FORMAT, type Report } from '../report/report.js';
import type { ExperimentSummary } from '../report/summarize.js';
import { BEST_FILE, gridDir } from '../results/layout.js';
import { readBestFile } from '../results/read.js';
import type { BestFile } from '../results/sweep.js';
import { DEFAULT_GRID } from './grid.js';
import { PAPER_CHOICE, REPRODUCE_FILE, reproduceFolders, type ReproduceRecord } from './reproduce.js';

/** The name of the README's generated section (base/generated-section.ts). */
export const RESULTS_SECTION = 'paper-results';

/** The horizons Section 4 states, by experiment name (configs/paper.yaml). */
const PAPER_HORIZONS: Readonly<Record<string, number>> = { mnist: 2000, 'synthetic-k4': 3000, 'synthetic-binary': 3000 };

/** The two runs of a reproduction, as the section names them. */
const RUNS = [
  { key: 'paperChoice', report: 'reportPaperChoice', title: `the paper's (l, e) = (${PAPER_CHOICE.l}, ${PAPER_CHOICE.e})` },
  { key: 'tuned', report: 'reportTuned', title: "the grid's choice" },
] as const;
/** The stage (reproduce.json's name) each run is. */
const STAGE_OF = { paperChoice: 'paper-choice', tuned: 'tuned' } as const;

function readJson<T>(file: string): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new RangeError(`${file}: cannot be read as JSON (${(error as Error).message}); is the reproduction finished?`);
  }
}

/** A report.json of this version of eofd; an older one is refused with what makes it again. */
function readReport(file: string): Report {
  const report = readJson<Report>(file);
  if (report.format !== REPORT_FORMAT) {
    throw new RangeError(`${file}: format ${JSON.stringify(report.format)}, expected ${REPORT_FORMAT}; make the reports again (node scripts/rejudge-reports.mjs, or eofd report)`);
  }
  return report;
}

/**
 * Makes the reproduction's two reports again from what `dir` keeps (manifests, summary.csv, the
 * previous report.json for the curves and identical decisions): report/rejudge.ts. Returns the files written.
 */
export function rejudgeReproduction(dir: string): string[] {
  const folders = reproduceFolders(dir);
  return RUNS.flatMap((run) => {
    const previous = readJson<unknown>(path.join(folders[run.report], 'report.json'));
    return writeReport(rejudgeReport(previous, folders[run.key]), folders[run.report]);
  });
}

/** A list of numbers as the docs write them: "0.5, 0.75, 1". */
function list(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'number' ? formatShort(v) : String(v))).join(', ');
}

function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

/** "12.3 s" / "4.1 min" / "1.52 h". */
function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(2)} h`;
}

/** "(l, e) = (0.75, 0.75)" of a label from the manifest's derived values; "–" for policies that read neither. */
function choiceOf(experiment: ExperimentSummary, label: string): string {
  const policies = experiment.derived.policies as Record<string, { l?: number; e?: number }> | undefined;
  const own = policies?.[label];
  if (own?.l === undefined && own?.e === undefined) return '–';
  return `(${own.l === undefined ? '–' : formatShort(own.l)}, ${own.e === undefined ? '–' : formatShort(own.e)})`;
}

/** A claim's time reduction with its interval, direction and the paper's number's position, and its verdict. */
function timeCells(claim: ClaimRow | undefined): string[] {
  if (claim === undefined) return ['–', 'not measured'];
  const time = claim.timeReductionPct === null ? '–' : `${formatWithInterval(claim.timeReductionPct, 1, '%')}: ${halfSummary(claim, 'time')}`;
  return [time, claim.verdict === 'holds' ? '**holds**' : claim.verdict];
}

/** The regret half (the same against both solvers when they decide alike): overhead, direction, position; and the Random control. */
function regretCells(claim: ClaimRow | undefined): string[] {
  if (claim === undefined || claim.regretOverheadPct === null) return ['–', '–'];
  return [`${formatWithInterval(claim.regretOverheadPct, 1, '%')}: ${halfSummary(claim, 'regret')}`, controlSummary(claim, (x) => formatWithInterval(x, 1, '%'))];
}

/** The verdict words and the columns of the claims table, defined beside it (docs/guide.md says the same). */
export const VERDICT_DEFINITIONS: readonly string[] = [
  "How to read it. Each claim has a time half and a regret half, each an interval from the paired trials (per-trial log ratios, Student-t, back-transformed). " +
    '*Direction*: time **faster** (the whole interval is a reduction), **slower**, or **inconclusive**; regret **more**, **less**, **identical** (the same regret in every trial: EOFD-MLogB made the same decisions), or **inconclusive**. ' +
    "*paper's X%*: where the paper's number lies relative to the interval, **inside**, **below** (the interval lies above it) or **above** (0% stands for \"comparable regret\"). " +
    "*Random in its place* applies the regret rule to Random instead of EOFD-MLogB, against the same OFUL-MLogB on the same trials: a rule that Random **passes** cannot tell a learner from guessing; it should **fail**.",
  '',
  "The rules: ≈X needs X inside the interval (and, for time, faster); >X needs the interval above X; \"comparable\" needs the interval within ±20%. The verdicts:",
  '',
  '- **holds**: both halves meet their rules, and Random in EOFD-MLogB\'s place fails the regret rule;',
  '- **does not hold**: an interval excludes a half\'s rule (slower; ≈X outside; the interval at or below >X; entirely outside ±20%);',
  '- **cannot judge at this size**: the regret half meets its rule, but Random in EOFD-MLogB\'s place is not shown to fail it (it passes, or its interval straddles the rule\'s edge): at this size the rule cannot tell a learner from guessing;',
  '- **inconclusive**: otherwise: an interval straddles a rule\'s edge (or Random\'s regret ratio is undefined);',
  '- **not judged**: fewer than 3 trials, a learner whose regret is not shown below Random\'s (Holm over distinct decision sequences), no Random run, or timings taken with several units at once; the numbers are still given;',
  '- **not measured**: the setting, EOFD-MLogB or OFUL-MLogB did not run, or a ratio is undefined.',
];

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

/**
 * The Results section for the reproduction in `dir`, its links relative to `link` (the folder as the
 * README reaches it, e.g. "results/paper"). Throws a RangeError naming the file that is missing.
 */
export function reproductionSection(dir: string, link: string): string {
  const folders = reproduceFolders(dir);
  const record = readJson<ReproduceRecord>(path.join(dir, REPRODUCE_FILE));
  const reports = Object.fromEntries(RUNS.map((run) => [run.key, readReport(path.join(folders[run.report], 'report.json'))])) as Record<(typeof RUNS)[number]['key'], Report>;
  const experiments = reports.paperChoice.experiments;
  // A record written before tuned_on: every experiment had its own grid.
  const tunedOn = (name: string): string => record.tuned_on?.[name] ?? name;
  const gridNames = [...new Set(experiments.map((e) => tunedOn(e.name)))];
  const bests = new Map(gridNames.map((name) => [name, readBestFile(path.join(gridDir(folders.tune, name), BEST_FILE)) as unknown as BestFile]));
  const borrowed = experiments.filter((e) => tunedOn(e.name) !== e.name).map((e) => `${e.name} takes ${tunedOn(e.name)}'s choice (it has no grid of its own)`);
  const first = bests.values().next().value as BestFile;
  const out: string[] = [];

  // What ran, against what the paper states.
  const trials = [...new Set(experiments.map((e) => e.setting.trials))];
  const horizons = experiments.map((e) => `${e.name} T = ${thousands(e.setting.horizon)}${PAPER_HORIZONS[e.name] === undefined || PAPER_HORIZONS[e.name] === e.setting.horizon ? '' : ` (paper: ${thousands(PAPER_HORIZONS[e.name] as number)})`}`);
  const axes = first.axes.map((a) => `${a.key} ∈ {${list(a.values)}}`).join(' × ');
  const points = first.axes.reduce((n, a) => n * a.values.length, 1);
  const paperGrid = first.axes.length === 2 && first.axes.every((a) => a.values.length === DEFAULT_GRID.length && a.values.every((v, i) => v === DEFAULT_GRID[i]));
  out.push(
    `Made by \`${record.command.join(' ')}\` (recorded in [reproduce.json](${link}/${REPRODUCE_FILE})): ` +
      `${horizons.join(', ')}; ${list(trials)} trials; tuned on ${first.trials} validation trials per point over ${axes} ` +
      `(${points} points${paperGrid ? ", the paper's grid" : `; the paper's grid is {${list(DEFAULT_GRID)}}² (49 points)`}). ` +
      `Every policy plays the same actions and outcomes in a trial; ${timedHow(experiments.map((e) => e.timing.pairing ?? null))}. ` +
      `The folder holds the stage records, the grids' best.json, grid.csv and heatmaps, each run's manifest.json and summary.csv, and the two reports; the per-round CSVs stay out of the repository (the same command with \`--out <folder>\` makes them again).`,
    '',
  );
  // Both timed runs: their commits (stages run again at another commit name theirs) and their load.
  const timedRuns = RUNS.map((run) => ({ stage: STAGE_OF[run.key], experiments: reports[run.key].experiments }));
  const timing = timedRuns.flatMap((run) => run.experiments.map((e) => e.timing.load)).filter((l): l is number => l !== null);
  const provenance = experiments[0]?.provenance;
  const commits = timedRuns.map((run) => ({ stage: run.stage, git: run.experiments[0]?.provenance?.git?.slice(0, 7) ?? '?' }));
  const eofdAt = new Set(commits.map((c) => c.git)).size === 1 ? (commits[0]?.git ?? '?') : commits.map((c) => `${c.git} (${c.stage})`).join(', ');
  out.push(
    `Wall time per stage on ${provenance?.cpu ?? 'an unrecorded CPU'} (${provenance?.cores ?? '?'} cores, Node ${provenance?.node ?? '?'}, eofd at ${eofdAt}; ` +
      `highest 1-minute load average recorded by the runs: ${timing.length === 0 ? 'not recorded' : formatShort(Math.max(...timing), 3)}):`,
    '',
    ...table(
      ['stage', 'what', 'wall time'],
      [
        ...record.stages.map((s) => [s.name, s.what.replace(/\|/g, '\\|'), `${duration(s.seconds)}${s.status !== 'done' ? ` (${s.status})` : s.found_done === 'shards' ? ' (done by shards; their time not recorded)' : ''}`]),
        // A stage done without a recorded time (by shards) makes the total a lower bound.
        ['total', '', `${record.stages.some((s) => s.status === 'done' && s.seconds === null) ? 'at least ' : ''}${duration(record.stages.reduce((t, s) => t + (s.seconds ?? 0), 0))}`],
      ],
    ),
    '',
  );

  // The claims, three ways: the paper's number, against the textbook solver and against the incremental one.
  out.push(
    "**The paper's claims** (EOFD-MLogB against OFUL-MLogB on the same trials: the per-round time reduction and the " +
      'regret overhead in %, each the back-transformed mean of per-trial log ratios with its 95% Student-t interval; ' +
      '`textbook` is OFUL-MLogB at the paper\'s cost model, an inverse and eq. (9)\'s eigendecomposition every round; ' +
      '`incremental` is eofd\'s default, Woodbury updates and eq. (9)\'s projection only when the step leaves the ball; both decide identically):',
    '',
  );
  const claimRows: string[][] = [];
  for (const run of RUNS) {
    const claims = reports[run.key].claims;
    for (const id of [...new Set(claims.filter((c) => c.experiment !== null).map((c) => c.id))]) {
      const of = (solver: string) => claims.find((c) => c.id === id && c.solver === solver);
      const any = claims.find((c) => c.id === id) as ClaimRow;
      const regret = regretCells(of('incremental') ?? of('textbook'));
      claimRows.push([`${any.setting}${any.experiment === null ? '' : ` (${any.experiment})`}`, run.title, any.paper, String(of('incremental')?.trials ?? of('textbook')?.trials ?? '–'), ...regret, ...timeCells(of('textbook')), ...timeCells(of('incremental'))]);
    }
  }
  const tally = (solver: string): string => {
    const verdicts = RUNS.flatMap((run) => reports[run.key].claims.filter((c) => c.experiment !== null && c.solver === solver).map((c) => c.verdict));
    const counts = [...new Set(verdicts)].map((v) => `${verdicts.filter((x) => x === v).length} ${v}`);
    return `${counts.join(', ')} (of ${verdicts.length})`;
  };
  out.push(
    ...table(['claim', 'at', 'the paper', 'n', 'regret overhead: direction; paper', 'Random in its place', 'time reduction vs textbook: direction; paper', 'verdict', 'time reduction vs incremental: direction; paper', 'verdict'], claimRows),
    '',
    `Against OFUL-MLogB as the paper costs it (textbook): ${tally('textbook')}; against eofd's incremental OFUL-MLogB: ${tally('incremental')}. ` +
      'The two solvers make the same decisions, so each claim\'s regret overhead and its Random control are the same against both; only the time differs.',
    '',
    ...VERDICT_DEFINITIONS,
    '',
    `Each verdict's reason is in claims.csv ([paper's choice](${link}/report-paper-choice/claims.csv), [grid's choice](${link}/report-tuned/claims.csv)).`,
    '',
  );

  // Per setting and policy.
  for (const run of RUNS) {
    out.push(`**Per policy at ${run.title}** (mean ± sample std over trials; ms per round of select + update):`, '');
    const rows: string[][] = [];
    for (const e of reports[run.key].experiments) {
      for (const [i, p] of e.policies.entries()) {
        rows.push([
          i === 0 ? `${e.name} (d = ${e.setting.d}, K = ${e.setting.K})` : '',
          p.policy,
          choiceOf(e, p.policy),
          formatMeanStd(p.finalRegret),
          formatMeanStd(p.roundMs, 3),
          formatShort(p.projections, 3),
          p.deltaT === null ? '–' : formatShort(p.deltaT.mean, 5),
        ]);
      }
    }
    out.push(...table(['setting', 'policy', '(l, e)', 'final regret', 'ms/round', 'projections', 'Δ_T'], rows), '');
  }

  // The grid's choices.
  out.push("**The grid's choices** (mean final regret on the validation trials; the runner-up and the paired difference of final regret, chosen − runner-up, with its 95% interval):", '');
  const gridRows: string[][] = [];
  for (const [name, best] of bests) {
    for (const [label, entry] of Object.entries(best.policies)) {
      const values = (v: Record<string, unknown>) => `(${list(Object.values(v))})`;
      const up = entry.runner_up;
      gridRows.push([
        name,
        label,
        values(entry.values),
        formatShort(entry.mean_final_regret, 4),
        up === null ? '–' : `${values(up.values)}: ${formatWithInterval({ mean: up.difference.mean, low: up.difference.ci_low ?? Number.NaN, high: up.difference.ci_high ?? Number.NaN }, 1)}`,
        entry.edge.length === 0 ? '' : entry.edge.join(', '),
      ]);
    }
  }
  out.push(...table(['setting', 'label', 'chosen (l, e)', 'validation regret', 'runner-up; chosen − runner-up [95% CI]', 'on the edge of the grid'], gridRows), '');
  if (borrowed.length > 0) out.push(`${borrowed.join('; ')}.`, '');

  // Figures.
  for (const run of RUNS) {
    const base = `${link}/${path.basename(folders[run.report])}`;
    out.push(`Fig. 1 and Fig. 2 at ${run.title} ([report](${base}/report.html)):`, '', `![Fig. 1 at ${run.title}](${base}/fig1-regret.svg)`, `![Fig. 2 at ${run.title}](${base}/fig2-time.svg)`, '');
  }
  return out.join('\n');
}

/** How the runs' timings were taken, from the manifests (runs before `pairing` was recorded went one unit at a time). */
function timedHow(pairings: readonly (string | null)[]): string {
  const recorded = [...new Set(pairings)];
  if (recorded.length === 1 && recorded[0] !== null) return `the policies of a trial were timed together (${recorded[0]})`;
  if (recorded.every((p) => p === null)) return 'the runs were timed one unit at a time';
  return `the runs' timings were taken in several ways (${recorded.map((p) => p ?? 'one unit at a time').join('; ')})`;
}
