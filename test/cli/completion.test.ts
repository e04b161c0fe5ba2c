import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/main.js';
import { runCli, tempDir } from '../experiment/fixtures.js';

const hasShell = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const HAS_ZSH = hasShell('zsh');

let root: string;
let bashFile: string;
let zshFile: string;
beforeAll(async () => {
  root = tempDir('eofd-completion-');
  bashFile = path.join(root, 'eofd.bash');
  zshFile = path.join(root, '_eofd');
  fs.writeFileSync(bashFile, (await runCli(['completion', 'bash'])).stdout);
  fs.writeFileSync(zshFile, (await runCli(['completion', 'zsh'])).stdout);
  const files = path.join(root, 'files');
  fs.mkdirSync(path.join(files, 'sub'), { recursive: true });
  for (const name of ['a.yaml', 'b.json', 'c.txt']) fs.writeFileSync(path.join(files, name), '');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** What bash offers for `words` (the last one being completed), from the files folder. */
function bashComplete(...words: string[]): string[] {
  const script = `source "${bashFile}"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _eofd; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['-c', script, 'bash', ...words], { cwd: path.join(root, 'files'), encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '').sort();
}

/** The long options of one command of the real program, and --help. */
function longOptions(command: string): string[] {
  const options = createProgram().commands.find((c) => c.name() === command)?.options ?? [];
  return [...options.flatMap((o) => (o.long === undefined ? [] : [o.long])), '--help'].sort();
}

describe('eofd completion: bad arguments', () => {
  it('refuses a missing or unknown shell (exit 2, nothing on stdout)', async () => {
    for (const args of [['completion'], ['completion', 'fish'], ['completion', 'bash', '--nope']]) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^eofd completion: /);
    }
  });
});

describe('eofd completion bash', () => {
  it('is a valid bash script (bash -n) that registers _eofd for eofd', () => {
    expect(spawnSync('bash', ['-n', bashFile], { encoding: 'utf8' }).status).toBe(0);
    const registered = spawnSync('bash', ['-c', `source "${bashFile}"; complete -p eofd`], { encoding: 'utf8' });
    expect(registered.stdout.trim()).toBe('complete -o filenames -F _eofd eofd');
  });

  it('completes command names and long options', () => {
    expect(bashComplete('eofd', 'ru')).toEqual(['run']);
    expect(bashComplete('eofd', 'run', '--re')).toEqual(['--resume']);
    expect(bashComplete('eofd', 'run', 'quick', '--out', 'results', '--qu')).toEqual(['--quiet']);
    expect(bashComplete('eofd', 'li')).toEqual(['list']);
  });

  it("offers exactly the program's commands, and each command's long options", () => {
    const commands = createProgram().commands.map((c) => c.name());
    expect(commands).toEqual(expect.arrayContaining(['run', 'init', 'completion', 'list']));
    expect(bashComplete('eofd', '')).toEqual([...commands, '--help', '--version'].sort());
    for (const command of commands) expect(bashComplete('eofd', command, '--'), command).toEqual(longOptions(command));
  });

  it('completes configs (YAML and JSON files, folders, shipped names), folders and shells', () => {
    const config = bashComplete('eofd', 'run', '');
    expect(config).toEqual(expect.arrayContaining(['a.yaml', 'b.json', 'sub', 'quick', 'synthetic-k4']));
    expect(config).not.toContain('c.txt');
    expect(bashComplete('eofd', 'grid', 'q')).toEqual(['quick']);
    expect(bashComplete('eofd', 'report', '')).toEqual(['sub']);
    expect(bashComplete('eofd', 'run', 'a.yaml', '--out', '')).toEqual(['a.yaml', 'b.json', 'c.txt', 'sub']);
    expect(bashComplete('eofd', 'completion', '')).toEqual(['bash', 'zsh']);
    expect(bashComplete('eofd', 'list', '')).toEqual([]);
  });
});

describe('eofd completion zsh', () => {
  it.skipIf(!HAS_ZSH)(`is a valid zsh script (zsh -n) that compdef registers${HAS_ZSH ? '' : ' (skipped: zsh is not installed)'}`, () => {
    expect(spawnSync('zsh', ['-n', zshFile], { encoding: 'utf8' }).status).toBe(0);
    const registered = spawnSync('zsh', ['-f', '-c', `autoload -U compinit; compinit -u -D; source "${zshFile}"; print -r -- \${_comps[eofd]}`], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(registered.stdout.trim()).toBe('_eofd');
  });

  it("names every command of the program with its summary and every long option", () => {
    const text = fs.readFileSync(zshFile, 'utf8');
    expect(text).toMatch(/^#compdef eofd\n/);
    for (const command of createProgram().commands) {
      expect(text).toContain(`    '${command.name()}:`);
      for (const option of longOptions(command.name())) expect(text).toContain(`'*${option}[`);
    }
  });
});
