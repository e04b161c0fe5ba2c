/**
 * The commands the CLI prints: which words run this installation (by PATH and folder), and quoting
 * checked against bash itself (each word must come back from the shell unchanged, and nothing in it runs).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandHint, invocationWords, shellWord } from '../../src/cli/hint.js';
import { shardNote } from '../../src/cli/options.js';
import { BIN, REPO, runCli, tempDir } from '../experiment/fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-hint-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A folder holding `eofd` → target (a symlink, as npm link and npm install -g make). */
function binFolder(relative: string, target: string): string {
  const dir = path.join(root, relative);
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(target, path.join(dir, 'eofd'));
  return dir;
}

/** The words bash passes for `line` after its first `prefixWords` (safe) words, through printf, NUL-separated. */
function bashWords(line: string, prefixWords: number): string[] {
  const words = line.split(' ').slice(prefixWords).join(' ');
  const result = spawnSync('bash', ['-c', `printf '%s\\0' ${words}`], { cwd: root, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout.split('\0').slice(0, -1);
}

const HOSTILE = ["$(touch pwned)", "`touch pwned`", "it's", 'a b', '"q"', 'x;touch pwned', '*', '~', '$HOME', 'tab\tand\nnewline', '-dash', 'ünï', ''];

describe('invocationWords: bad arguments', () => {
  it('no PATH, an empty PATH, a PATH of missing folders, outside any project: this node on this bin/eofd.js, as paths', () => {
    const outside = fs.mkdtempSync(path.join(root, 'outside-'));
    const expected = [process.execPath, BIN];
    expect(invocationWords({}, outside)).toEqual(expected);
    expect(invocationWords({ PATH: '' }, outside)).toEqual(expected);
    expect(invocationWords({ PATH: [path.join(root, 'missing'), ''].join(path.delimiter) }, outside)).toEqual(expected);
  });
});

describe('invocationWords', () => {
  it('eofd only when the first eofd on PATH is this one (not one only npx puts on PATH, not after another eofd)', () => {
    const outside = fs.mkdtempSync(path.join(root, 'outside-'));
    const other = path.join(root, 'elsewhere.js');
    fs.writeFileSync(other, '#!/bin/sh\n', { mode: 0o755 });
    const otherDir = binFolder('other', other);
    const dangling = binFolder('dangling', path.join(root, 'missing.js'));
    const global = binFolder('global/bin', BIN);
    const npx = binFolder('project/node_modules/.bin', BIN);
    const prefix = [process.execPath, BIN];
    expect(invocationWords({ PATH: [dangling, global, otherDir].join(path.delimiter) }, outside)).toEqual(['eofd']);
    expect(invocationWords({ PATH: [otherDir, global].join(path.delimiter) }, outside)).toEqual(prefix);
    expect(invocationWords({ PATH: otherDir }, outside)).toEqual(prefix);
    expect(invocationWords({ PATH: npx }, outside)).toEqual(prefix);
  });

  it('npx eofd inside this package (a clone) and inside a project that has it in node_modules/.bin', () => {
    expect(invocationWords({}, REPO)).toEqual(['npx', 'eofd']);
    expect(invocationWords({}, path.join(REPO, 'src', 'cli'))).toEqual(['npx', 'eofd']);
    const project = path.join(root, 'project');
    fs.writeFileSync(path.join(project, 'package.json'), '{}\n');
    fs.mkdirSync(path.join(project, 'analysis'), { recursive: true });
    expect(invocationWords({}, path.join(project, 'analysis'))).toEqual(['npx', 'eofd']);
    // A nearer project without eofd: npx would not find it there.
    fs.writeFileSync(path.join(project, 'analysis', 'package.json'), '{}\n');
    expect(invocationWords({}, path.join(project, 'analysis'))).toEqual([process.execPath, BIN]);
    // `node` when the first node on PATH is this one.
    expect(invocationWords({ PATH: path.dirname(process.execPath) }, path.join(project, 'analysis'))).toEqual(['node', BIN]);
  });

  it('what it prints outside a project runs this installation there', () => {
    const outside = fs.mkdtempSync(path.join(root, 'outside-'));
    const line = commandHint(process.env, ['--version'], outside);
    const result = spawnSync('bash', ['-c', line], { cwd: outside, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version);
  });
});

describe('shellWord and commandHint', () => {
  it('bash gives back every word unchanged, and nothing in a word runs', () => {
    const line = commandHint({}, ['run', ...HOSTILE], REPO);
    expect(line.startsWith('npx eofd run ')).toBe(true);
    expect(bashWords(line, 3)).toEqual(HOSTILE);
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
    for (const word of ['results/quick-mnist', 'params.m=8,20', 'a@b:c%d+e']) expect(shellWord(word)).toBe(word);
  });

  it('the shard note leaves its glob to the shell and quotes the folder before it', () => {
    const out = path.join(root, 'my out $(touch pwned)');
    for (const i of [0, 1]) fs.mkdirSync(path.join(out, `shard-${i}-of-2`), { recursive: true });
    const note = shardNote((...words) => commandHint({}, words, REPO), 'run', { index: 0, count: 2, source: '--shard' } as never, out, 'x', { run: 1, skipped: 0, failed: 0 });
    const line = (note.split('\n')[1] as string).replace(/^.*when every shard is done: /, '').replace(/ <dir>$/, ' DIR');
    expect(bashWords(line, 2)).toEqual(['merge', path.join(out, 'shard-0-of-2'), path.join(out, 'shard-1-of-2'), '--out', 'DIR']);
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
  });

  it("eofd init's next steps quote the folder", async () => {
    const dir = path.join(root, "it's $(touch pwned)");
    const { code, stderr } = await runCli(['init', dir]);
    expect(code).toBe(0);
    const run = (stderr.split('\n').find((l) => l.includes(' run ')) as string).trim().replace(/\s+#.*$/, '');
    expect(bashWords(run, 2)).toEqual(['run', path.join(dir, 'eofd.yaml')]);
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
  });
});
