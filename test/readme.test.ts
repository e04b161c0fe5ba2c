/**
 * The shell examples of the README and docs/ stay true: every `eofd` command line in a ```sh block names a command
 * that exists, only options that command takes, and shipped files that exist; and every `run`, `grid`,
 * `sweep` and `reproduce` example runs, made small (T = 6, one trial, a one-point grid) and pointed at a temporary
 * --out, except those that need an earlier run's output or a file of the reader's own (named below).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { createProgram } from '../src/cli/main.js';
import { REPO, runCli, tempDir } from './experiment/fixtures.js';

/** Words of a shell line: quotes grouped, a trailing `# comment` dropped. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | null = null;
  let started = false;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started || word !== '') words.push(word);
      word = '';
      started = false;
    } else if (ch === '#' && word === '' && !started) {
      break;
    } else {
      word += ch;
    }
  }
  if (started || word !== '') words.push(word);
  return words;
}

/** The README and every page of docs/, as paths from the repository. */
const PAGES = ['README.md', ...fs.readdirSync(`${REPO}/docs`).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** Every eofd command line of the ```sh blocks of the README and docs/ (continuations joined), with its file:line. */
function readmeCommands(): { line: string; words: string[] }[] {
  return PAGES.flatMap((page) => pageCommands(page));
}

function pageCommands(page: string): { line: string; words: string[] }[] {
  const lines = fs.readFileSync(`${REPO}/${page}`, 'utf8').split('\n');
  const commands: { line: string; words: string[] }[] = [];
  let inShell = false;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    if (text.startsWith('```')) {
      inShell = !inShell && text.trim() === '```sh';
      continue;
    }
    if (!inShell) continue;
    let full = text;
    const start = `${page}:${i + 1}`;
    while (full.trimEnd().endsWith('\\') && i + 1 < lines.length) full = full.trimEnd().slice(0, -1) + ' ' + lines[++i];
    for (const part of full.split(/&&|\|/)) {
      const words = shellWords(part.trim());
      const at = words.findIndex((w, k) => (w === 'eofd' && (k === 0 || words[k - 1] === 'npx')) || w === 'bin/eofd.js');
      if (at >= 0 && words[at + 1] !== undefined) commands.push({ line: start, words: words.slice(at + 1) });
    }
  }
  return commands;
}

describe('shellWords', () => {
  it('groups quotes and drops a trailing comment', () => {
    expect(shellWords(`npx eofd run a.yaml --set 'policies=[A, B]' # note`)).toEqual(['npx', 'eofd', 'run', 'a.yaml', '--set', 'policies=[A, B]']);
  });
});

describe("the eofd examples of the README and docs/", () => {
  const program = createProgram();
  const commands = readmeCommands();

  it('there are examples of every command the README documents', () => {
    expect(commands.length).toBeGreaterThan(15);
    const used = new Set(commands.map((c) => c.words[0]));
    for (const name of ['run', 'grid', 'sweep', 'merge', 'report']) expect(used, name).toContain(name);
  });

  it('name existing commands and only their options', () => {
    for (const { line, words } of commands) {
      const command = program.commands.find((c) => c.name() === words[0]);
      expect(command, `${line}: eofd ${words[0]}`).toBeDefined();
      const options = new Set(['--help', ...command!.options.map((o) => o.long)]);
      for (const word of words.slice(1).filter((w) => w.startsWith('--'))) {
        expect(options.has(word.split('=')[0]!), `${line}: eofd ${words[0]} ${word}`).toBe(true);
      }
    }
  });

  it('name shipped configs and data files that exist', () => {
    for (const { line, words } of commands) {
      for (const word of words.filter((w) => /^(configs|data|test)\/[^*<]+$/.test(w))) {
        expect(fs.existsSync(`${REPO}/${word}`), `${line}: ${word}`).toBe(true);
      }
    }
  });
});

/** `words` without `option` and the value after it. */
function withoutOption(words: readonly string[], option: string): string[] {
  return words.filter((w, i) => w !== option && words[i - 1] !== option);
}

/** Examples that cannot run here as written, and why (the list is checked, so it cannot grow unseen). */
const NOT_RUN: Record<string, string> = {
  '--resume': 'finishes an earlier run',
  '--params': "reads an earlier grid's best.json",
  'environment.file=data/mine.csv': "the reader's own data file",
  'examples/python/': 'needs python3 with numpy (test/policies/external/mixed.test.ts plays the same policies where they exist)',
};

describe("the run, grid, sweep and reproduce examples of the README and docs/ run (small)", () => {
  const runnable = readmeCommands().filter((c) => ['run', 'grid', 'sweep', 'reproduce'].includes(c.words[0] as string));

  it('every one either runs with exit 0 or is skipped for a reason named in NOT_RUN', { timeout: 240_000 }, async () => {
    const out = tempDir('eofd-readme-');
    const skipped = new Set<string>();
    let ran = 0;
    for (const { line, words } of runnable) {
      const reason = Object.keys(NOT_RUN).find((key) => words.some((w) => w === key || w.includes(key)));
      if (reason !== undefined) {
        skipped.add(reason);
        continue;
      }
      // Later --set and --trials win; one job; a grid or sweep gets one point; everything goes to a temporary folder.
      // A swept key keeps its last value only (the grids' last values are the largest λ and β, whose
      // rounds project least: the examples' cost is what is checked elsewhere, not here).
      const lastValues = withoutOption(words, '--jobs').map((w, i, all) => (all[i - 1] === '--over' ? w.replace(/=.*,/, '=') : w));
      const args = [...lastValues, '--set', 'horizon=6', '--trials', '1', '--jobs', '1', '--quiet', '--out', path.join(out, line.replace(/[/:.]/g, '-'))];
      if ((words[0] === 'grid' || words[0] === 'reproduce') && !words.includes('--over')) args.push('--l', '0', '--e', '0');
      // configs/paper.yaml's OFUL-textbook decomposes the 785×785 Hessian every round (≈ 0.5 s); the
      // example's command is what is checked, not that solver (test/policies/oful-mlogb.test.ts is).
      if (words[0] === 'reproduce') args.push('--set', 'policies=[EOFD-MLogB, OFUL-MLogB, Random]');
      const result = await runCli(args);
      expect(result.code, `${line}: eofd ${words.join(' ')}\n${result.stderr}`).toBe(0);
      ran++;
    }
    expect(ran).toBeGreaterThan(5);
    expect([...skipped].sort()).toEqual(Object.keys(NOT_RUN).sort());
  });
});
