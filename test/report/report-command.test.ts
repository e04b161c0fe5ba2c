import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerReport, runReport } from '../../src/cli/commands/report.js';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { buildReport, displayWidth, renderHtml } from '../../src/report/index.js';
import { SYNTHETIC_K4, editLine, makeInProgress, tempDir, writeExperiment, writeFixtureResults, type FixturePolicy } from './fixture.js';
import { parseXml, descendants } from './xml.js';

/** stderr of a report that went well: only the line saying where it went. */
const WROTE_ONLY = /^eofd report: wrote \d+ files to [^\n]+ \(open [^\n]+report\.html\)\n$/;

function io(options: { isTTY?: boolean; columns?: number; env?: NodeJS.ProcessEnv } = {}) {
  const captured = { stdout: '', stderr: '' };
  const stdout = { write: (t: string) => (captured.stdout += t), isTTY: options.isTTY ?? false, columns: options.columns };
  const streams: CliIo = {
    stdout,
    stderr: { write: (t: string) => (captured.stderr += t) },
    env: options.env ?? {},
  };
  return { captured, streams };
}

describe('eofd report: errors', () => {
  it('--band takes std or ci95 only: --band nope is a usage error, exit 2, one line naming the choices', async () => {
    const root = writeFixtureResults();
    const { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--band', 'nope'], streams)).toBe(2);
    expect(captured.stdout).toBe('');
    expect(captured.stderr).toContain("argument 'nope' is invalid. Allowed choices are std, ci95.");
    expect(captured.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(root, 'report'))).toBe(false);
  });

  it('bad input: one line on stderr naming file and line, exit code 2, no stack trace', () => {
    const root = writeFixtureResults();
    const file = path.join(root, 'mnist', 'OFUL-MLogB', 'trial-1.csv');
    editLine(file, 7, '1,OFUL-MLogB,6,2,0,0');
    const { captured, streams } = io();
    expect(runReport([root], {}, streams)).toBe(2);
    expect(captured.stdout).toBe('');
    expect(captured.stderr).toBe(`eofd report: ${file}:7: expected 10 fields as in the header, got 6 (truncated file?)\n`);
  });

  it('a missing folder is exit code 2; an unwritable --out is exit code 1', () => {
    let { captured, streams } = io();
    expect(runReport([path.join(tempDir(), 'missing')], {}, streams)).toBe(2);
    expect(captured.stderr.split('\n')).toHaveLength(2);
    const blocker = path.join(tempDir(), 'file');
    fs.writeFileSync(blocker, '');
    ({ captured, streams } = io());
    expect(runReport([writeFixtureResults()], { out: path.join(blocker, 'r') }, streams)).toBe(1);
    expect(captured.stderr).toMatch(/^eofd report: cannot write the report to .* \(E[A-Z]+\)\n$/);
  });
});

describe('eofd report', () => {
  it('prints plain tables (not a TTY) and writes to <first dir>/report by default, saying where on stderr in one line', () => {
    const root = writeFixtureResults();
    const { captured, streams } = io({ isTTY: false });
    expect(runReport([root], {}, streams)).toBe(0);
    const out = path.join(root, 'report');
    expect(captured.stderr).toBe(`eofd report: wrote 6 files to ${out} (open ${path.join(out, 'report.html')})\n`);
    expect(captured.stdout).not.toContain('\u001b[');
    expect(captured.stdout).not.toContain('wrote');
    expect(captured.stdout).toContain("The paper's claims (Section 4)");
    expect(fs.existsSync(path.join(out, 'report.html'))).toBe(true);
  });

  it('says where the report went with --json too (stderr), and with --out names that folder', async () => {
    const root = writeFixtureResults();
    const out = path.join(tempDir(), 'given');
    const { captured, streams } = io();
    expect(runReport([root], { json: true, out }, streams)).toBe(0);
    expect(JSON.parse(captured.stdout).format).toMatch(/^eofd-report\//);
    expect(captured.stderr).toBe(`eofd report: wrote 6 files to ${out} (open ${path.join(out, 'report.html')})\n`);
    // Through argv as a user runs it: the same line, the default folder.
    const cli = io();
    expect(await main(['node', 'eofd', 'report', path.join(root, 'mnist')], cli.streams)).toBe(0);
    expect(cli.captured.stderr).toBe(`eofd report: wrote 6 files to ${path.join(root, 'mnist', 'report')} (open ${path.join(root, 'mnist', 'report', 'report.html')})\n`);
  });

  it('colours verdicts on a TTY unless NO_COLOR is set', () => {
    const root = writeFixtureResults();
    let { captured, streams } = io({ isTTY: true });
    runReport([root], {}, streams);
    expect(captured.stdout).toContain('\u001b[32mholds');
    ({ captured, streams } = io({ isTTY: true, env: { NO_COLOR: '1' } }));
    runReport([root], {}, streams);
    expect(captured.stdout).not.toContain('\u001b[');
  });

  it('--json prints one JSON document and nothing else on stdout; --out is honoured', () => {
    const root = writeFixtureResults();
    const out = path.join(tempDir(), 'elsewhere');
    const { captured, streams } = io({ isTTY: true });
    expect(runReport([path.join(root, 'synthetic-k4'), path.join(root, 'mnist')], { json: true, out }, streams)).toBe(0);
    const report = JSON.parse(captured.stdout);
    // Given synthetic-k4 first, reported in the paper's order: MNIST, then synthetic K ≥ 2.
    expect(report.experiments.map((e: { name: string }) => e.name)).toEqual(['mnist', 'synthetic-k4']);
    expect(report.claims).toHaveLength(3);
    expect(fs.readdirSync(out)).toContain('fig1-regret.svg');
  });

  it('registers `report <results-dir...>` with --out and --json, and help shows an example', () => {
    const program = new Command('eofd');
    registerReport(program);
    const command = program.commands.find((c) => c.name() === 'report')!;
    expect(command.options.map((o) => o.long)).toEqual([
      '--out', '--json', '--wide', '--band', '--time-axis', '--log-y', '--png', '--reference', '--all-pairs', '--check',
    ]);
    let help = '';
    command.configureOutput({ writeOut: (s) => (help += s) });
    command.outputHelp();
    expect(help).toContain('Usage: eofd report [options] <results-dir...>');
    expect(help).toContain('Example: eofd report results/quick-mnist');
    expect(help).toContain('$ eofd report results/mnist results/synthetic-k4 results/synthetic-binary');
    const flat = help.replace(/\s+/g, ' '); // commander wraps long descriptions
    expect(flat).toContain("--band <band> Fig. 1's band: std = ±1 sample std");
    expect(flat).toContain('(choices: "std", "ci95", default: "std")');
    expect(help).toContain('$ eofd report results --band ci95 --time-axis log --log-y --png');
    expect(flat).toContain('(choices: "auto", "linear", "log", default: "auto")');
  });

  it('every results/<folder> the help names is one a config writes (eofd run <config>, default --out results)', () => {
    const program = new Command('eofd');
    registerReport(program);
    const command = program.commands.find((c) => c.name() === 'report')!;
    let help = '';
    command.configureOutput({ writeOut: (s) => (help += s) });
    command.outputHelp();
    const configs = path.join(import.meta.dirname, '..', '..', 'configs');
    const names = new Set(
      fs.readdirSync(configs).flatMap((f) => [...fs.readFileSync(path.join(configs, f), 'utf8').matchAll(/^name: (\S+)$/gm)].map((m) => m[1])),
    );
    const named = [...help.matchAll(/results\/([A-Za-z0-9._-]+)/g)].map((m) => m[1]!).filter((x) => x !== 'report');
    expect(named.length).toBeGreaterThanOrEqual(6);
    for (const folder of named) expect(names, folder).toContain(folder);
  });

  it('--band ci95 draws the 95% interval band and records it; std is the default', async () => {
    const root = writeFixtureResults();
    let { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--band', 'ci95', '--json'], streams)).toBe(0);
    expect(captured.stderr).toMatch(WROTE_ONLY);
    expect(JSON.parse(captured.stdout).band).toBe('ci95');
    expect(fs.readFileSync(path.join(root, 'report', 'fig1-regret.svg'), 'utf8')).toContain('95% Student-t interval of the mean (band)');
    ({ captured, streams } = io());
    expect(await main(['node', 'eofd', 'report', root, '--json'], streams)).toBe(0);
    expect(JSON.parse(captured.stdout).band).toBe('std');
  });

  it('parses argv through commander and sets the exit code', async () => {
    const root = writeFixtureResults();
    const program = new Command('eofd').exitOverride();
    registerReport(program);
    const write = process.stdout.write;
    const previous = process.exitCode;
    let stdout = '';
    process.stdout.write = ((s: string) => ((stdout += s), true)) as typeof process.stdout.write;
    try {
      await program.parseAsync(['node', 'eofd', 'report', root, '--json']);
    } finally {
      process.stdout.write = write;
    }
    expect(process.exitCode).toBe(0);
    process.exitCode = previous;
    expect(JSON.parse(stdout).format).toBe('eofd-report/6');
  });
});

describe('eofd report on a run in progress', () => {
  function running(): string {
    const root = writeFixtureResults();
    // synthetic-k4: 4 of 9 units finished; EOFD-MLogB trials 0, 1 (finals 5, 5.5), OFUL-MLogB trial 0, Random trial 2.
    makeInProgress(path.join(root, 'synthetic-k4'), ['EOFD-MLogB/0', 'EOFD-MLogB/1', 'OFUL-MLogB/0', 'Random/2']);
    return root;
  }

  it('reports the finished units, says "in progress" everywhere and judges no claim on them', async () => {
    const root = running();
    const { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--json'], streams)).toBe(0);
    expect(captured.stderr).toMatch(WROTE_ONLY);
    const report = JSON.parse(captured.stdout);
    const k4 = report.experiments.find((e: { name: string }) => e.name === 'synthetic-k4');
    expect(k4.progress).toEqual({ complete: false, finishedUnits: 4, plannedUnits: 9 });
    const eofd = k4.policies.find((p: { policy: string }) => p.policy === 'EOFD-MLogB');
    expect(eofd.trials).toBe(2);
    expect(eofd.finalRegret.mean).toBeCloseTo(5.25, 12); // (5 + 5.5)/2
    expect(k4.curves.find((c: { policy: string }) => c.policy === 'Random').t).toHaveLength(50);
    const claim = report.claims.find((c: { experiment: string | null }) => c.experiment === 'synthetic-k4');
    expect(claim.verdict).toBe('not judged');
    expect(claim.reason).toMatch(/^run in progress \(4 of 9 units finished\)/);
    // The complete experiment is unaffected.
    expect(report.experiments.find((e: { name: string }) => e.name === 'mnist').progress.complete).toBe(true);

    const html = fs.readFileSync(path.join(root, 'report', 'report.html'), 'utf8');
    expect(html).toContain('<strong>In progress:</strong> synthetic-k4 (4 of 9 units)');
    expect(html).toContain('<h3>synthetic-k4 (in progress)</h3>');
    expect(html).toContain('in progress: 4 of 9 units finished (EOFD-MLogB 2, OFUL-MLogB 1, Random 1 trials)');
    const svg = parseXml(fs.readFileSync(path.join(root, 'report', 'fig1-regret.svg'), 'utf8'));
    const texts = descendants(svg).map((el) => el.text);
    // The panel's setting, wrapped between its parts to the panel's width.
    expect(texts).toContain('synthetic · d = 100, K = 4 · T = 50');
    expect(texts).toContain('in progress: 4 of 9 units');
    expect(descendants(svg).filter((el) => el.attributes.get('data-policy') !== undefined && el.name === 'path')).toHaveLength(6);
  });

  it('lists the unfinished units in the table as partial rows (rounds so far), apart from every number', async () => {
    const root = running();
    // OFUL-MLogB trial 1 (final 5, 0.7 + 0.5 ms a round) has written 12 of its 50 rounds.
    const file = path.join(root, 'synthetic-k4', 'OFUL-MLogB', 'trial-1.csv.partial');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').slice(0, 13).join('\n') + '\n');
    const { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root], streams)).toBe(0);
    const lines = captured.stdout.split('\n');
    expect(lines.filter((line) => line.includes('(partial: '))).toHaveLength(5);
    expect(lines.find((line) => line.startsWith('OFUL-MLogB trial 1 (partial: 12 of 50 rounds)'))).toMatch(/\s1\.2 so far\s+1\.2(\s|$)/);
    expect(captured.stdout).toContain('rows marked partial are units not finished (5), their rounds so far, never judged');
    const { captured: json, streams: jsonStreams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--json'], jsonStreams)).toBe(0);
    const k4 = JSON.parse(json.stdout).experiments.find((e: { name: string }) => e.name === 'synthetic-k4');
    const oful = k4.partial.find((u: { policy: string; trial: number }) => u.policy === 'OFUL-MLogB' && u.trial === 1);
    expect(oful).toMatchObject({ rounds: 12, cumRegret: 1.2 });
    expect(oful.roundMs).toBeCloseTo(1.2, 12);
  });

  it('a claim whose learners share no finished trial is not measured, and says why', () => {
    const root = writeFixtureResults();
    makeInProgress(path.join(root, 'synthetic-k4'), ['EOFD-MLogB/0']);
    const { captured, streams } = io();
    expect(runReport([root], { json: true }, streams)).toBe(0);
    const claim = JSON.parse(captured.stdout).claims.find((c: { experiment: string | null }) => c.experiment === 'synthetic-k4');
    expect(claim.verdict).toBe('not measured');
    expect(claim.reason).toContain('no trial has finished for both EOFD-MLogB and OFUL-MLogB yet');
  });

  it('--check stays strict: an incomplete folder is bad input (exit 2) naming the missing summary.csv', () => {
    const root = running();
    const { captured, streams } = io();
    expect(runReport([root], { check: path.join(import.meta.dirname, '..', 'baselines') }, streams)).toBe(2);
    expect(captured.stderr).toContain(`${path.join(root, 'synthetic-k4', 'summary.csv')}: not found`);
  });
});

describe('eofd report: the reference, all pairs, experiments outside the paper', () => {
  /** Two experiments in no paper setting (a labelled-data environment), with a variant label. */
  function otherResults(): string {
    const root = tempDir();
    const [eofd, oful, random] = SYNTHETIC_K4.policies;
    for (const name of ['iris-k3', 'blobs']) {
      writeExperiment(path.join(root, name), {
        ...SYNTHETIC_K4,
        name,
        environment: { type: 'classification', d: 4, K: 3 },
        policies: [random!, { ...eofd!, name: 'TS-small' }, oful!],
      });
    }
    return root;
  }

  it('a report on other experiments is titled from them and has no claims section', () => {
    const root = otherResults();
    const { captured, streams } = io();
    expect(runReport([path.join(root, 'iris-k3'), path.join(root, 'blobs')], { out: path.join(tempDir(), 'r') }, streams)).toBe(0);
    expect(captured.stdout.startsWith('eofd report: iris-k3, blobs\n')).toBe(true);
    expect(captured.stdout).not.toContain("The paper's claims");
    expect(captured.stdout).not.toContain('not measured');
    // The default reference is the first learner of the configured order (Random first here, then TS-small).
    expect(captured.stdout).toContain('each policy against TS-small (the reference)');
    const html = renderHtml(buildReport([path.join(root, 'iris-k3'), path.join(root, 'blobs')]));
    expect(html).toContain('<title>eofd report: iris-k3, blobs</title>');
    expect(html).toContain('<h1>eofd report: iris-k3, blobs</h1>');
    expect(html).not.toContain("The paper's claims");
    const report = buildReport([root]);
    expect([report.title, report.claims]).toEqual(['eofd report: blobs, iris-k3', []]);
  });

  it('--reference LABEL compares each policy with it; --all-pairs every pair; both at once is a usage error', async () => {
    const root = writeFixtureResults();
    let { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--reference', 'OFUL-MLogB', '--json'], streams)).toBe(0);
    let report = JSON.parse(captured.stdout);
    expect(report.comparisons).toEqual({ reference: 'OFUL-MLogB', allPairs: false });
    const names = (e: { comparisons: { policy: string; reference: string }[] }) => e.comparisons.map((c) => `${c.policy} vs ${c.reference}`);
    expect(names(report.experiments[0])).toEqual(['EOFD-MLogB vs OFUL-MLogB', 'Random vs OFUL-MLogB']);
    ({ captured, streams } = io());
    expect(await main(['node', 'eofd', 'report', root, '--all-pairs', '--json'], streams)).toBe(0);
    report = JSON.parse(captured.stdout);
    expect(names(report.experiments[1])).toEqual(['OFUL-MLogB vs EOFD-MLogB', 'Random vs EOFD-MLogB', 'Random vs OFUL-MLogB']);
    ({ captured, streams } = io());
    expect(await main(['node', 'eofd', 'report', root, '--all-pairs', '--reference', 'Random'], streams)).toBe(2);
    expect(captured.stderr).toMatch(/--all-pairs.*cannot be used with.*--reference/);
  });

  it('an unknown --reference is bad usage (exit 2), naming the labels', () => {
    const { captured, streams } = io();
    expect(runReport([writeFixtureResults()], { reference: 'TS-MLogB' }, streams)).toBe(2);
    expect(captured.stderr).toBe(
      'eofd report: --reference TS-MLogB: no experiment ran a policy labelled so (labels: EOFD-MLogB, OFUL-MLogB, Random)\n',
    );
  });

  it('flags a learner not shown below Random, in the terminal and in report.html', () => {
    const root = tempDir();
    const [eofd, oful, random] = SYNTHETIC_K4.policies;
    writeExperiment(path.join(root, 'close'), { ...SYNTHETIC_K4, name: 'close', policies: [eofd!, oful!, { ...random!, finals: [4, 6, 5] }] });
    const { captured, streams } = io();
    expect(runReport([root], {}, streams)).toBe(0);
    // Numbers by hand in test/cli/report-run-summary.test.ts.
    expect(captured.stdout).toContain(
      "warning: EOFD-MLogB's final regret is not shown below Random's: difference 0.50, 95% CI [−1.65, 2.65]; " +
        'Holm-adjusted over 2 learners [−2.60, 3.60] (97.5%)',
    );
    expect(fs.readFileSync(path.join(root, 'report', 'report.html'), 'utf8')).toContain(
      '<p class="warning">warning: OFUL-MLogB&apos;s final regret is not shown below Random&apos;s',
    );
  });
});

describe('eofd report on a terminal: its width, --wide, --log-y', () => {
  /** Lines as a terminal shows them: colour codes stripped, width in columns (a combining mark takes none). */
  const widths = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').map(displayWidth);

  it('fits the terminal: no line wider, a note naming what was left out; --wide and a pipe print everything', () => {
    const root = writeFixtureResults();
    const piped = io({ isTTY: false, columns: 80 });
    expect(runReport([root], {}, piped.streams)).toBe(0);
    expect(Math.max(...widths(piped.captured.stdout))).toBeGreaterThan(80);
    expect(piped.captured.stdout).not.toContain('not shown, to fit');
    for (const columns of [80, 50]) {
      const tty = io({ isTTY: true, columns });
      expect(runReport([root], {}, tty.streams)).toBe(0);
      expect(Math.max(...widths(tty.captured.stdout))).toBeLessThanOrEqual(columns);
      expect(tty.captured.stdout.replace(/\s+/g, ' ')).toMatch(/not shown, to fit \d+ columns: .*\(see them with --wide or --json\)/);
    }
    const wide = io({ isTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(runReport([root], { wide: true }, wide.streams)).toBe(0);
    expect(wide.captured.stdout).toBe(piped.captured.stdout);
  });

  it('--log-y draws Fig. 1 on a log scale in the SVG and in report.html', async () => {
    const root = writeFixtureResults();
    const { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--log-y'], streams)).toBe(0);
    expect(captured.stderr).toMatch(WROTE_ONLY);
    expect(fs.readFileSync(path.join(root, 'report', 'fig1-regret.svg'), 'utf8')).toContain('cumulative regret (log scale)');
    expect(fs.readFileSync(path.join(root, 'report', 'report.html'), 'utf8')).toContain('Fig. 1. Cumulative regret (log scale)');
    expect(await main(['node', 'eofd', 'report', root], io().streams)).toBe(0);
    expect(fs.readFileSync(path.join(root, 'report', 'fig1-regret.svg'), 'utf8')).not.toContain('log scale');
  });
});

describe('eofd report: reliability', () => {
  it("reliability: report's output folder cannot be a policy's folder (a label `report`: its running unit's .partial is kept, the report refused)", () => {
    const random = SYNTHETIC_K4.policies.find((p) => p.name === 'Random');
    const dir = writeExperiment(path.join(tempDir(), 'labelled'), { ...SYNTHETIC_K4, policies: [...SYNTHETIC_K4.policies, { ...(random as FixturePolicy), name: 'report' }] });
    makeInProgress(dir, ['EOFD-MLogB/0', 'OFUL-MLogB/0', 'Random/0', 'report/0']);
    const partial = path.join(dir, 'report', 'trial-1.csv.partial');
    const before = fs.readFileSync(partial);
    const { captured, streams } = io();
    expect(runReport([dir], {}, streams)).toBe(2);
    expect(captured.stderr).toBe(`eofd report: ${path.join(dir, 'report')}: is the folder of the policy labelled "report" in the experiment ${dir}; write the report to another folder with --out\n`);
    expect(fs.readFileSync(partial).equals(before)).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'report')).filter((name) => !/^trial-/.test(name))).toEqual([]);
    // A folder holding a unit's files is refused too, whatever its name; --out elsewhere works.
    const elsewhere = path.join(tempDir(), 'units');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'trial-0.csv.partial'), 'x\n');
    expect(runReport([dir], { out: elsewhere }, io().streams)).toBe(2);
    expect(fs.readdirSync(elsewhere)).toEqual(['trial-0.csv.partial']);
    expect(runReport([dir], { out: path.join(tempDir(), 'fine') }, io().streams)).toBe(0);
  });
});
