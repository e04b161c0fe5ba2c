/**
 * Small configs and helpers for the runner and CLI tests: a tiny synthetic experiment (d = 6, K = 2),
 * the CLI run in-process (captured output) or as a child process (`node bin/eofd.js`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(REPO, 'bin', 'eofd.js');

export function tempDir(prefix = 'eofd-run-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The small grid and sweep setting: synthetic d = 5, K = 2, T = 20, 2 trials. */
export function gridConfigText(name: string, policies = '[EOFD-MLogB, OFUL-MLogB, Random]', params = '{S: 2, m: 3, beta: order}'): string {
  return [
    `name: ${name}`,
    'environment: {type: synthetic, d: 5, K: 2, reward: [0, 0.5, 1], actions: [3, 5]}',
    'horizon: 20',
    'trials: 2',
    'seed: 0',
    `policies: ${policies}`,
    `params: ${params}`,
    '',
  ].join('\n');
}

/** One synthetic experiment: d = 6, K = 2, |A_t| in [3, 6]. */
export function tinyConfig(name: string, options: { horizon?: number; trials?: number; d?: number; policies?: string } = {}): string {
  const policies = options.policies ?? '[EOFD-MLogB, OFUL-MLogB, Random]';
  // Only keys a listed policy reads (others are refused): m for a sketch, β for a learner.
  const params = ['S: 2', /EOFD|SOFUL/.test(policies) ? 'm: 3' : null, policies === '[Random]' ? null : 'beta: order'].filter(Boolean).join(', ');
  return [
    `name: ${name}`,
    `environment: {type: synthetic, d: ${options.d ?? 6}, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}`,
    `horizon: ${options.horizon ?? 30}`,
    `trials: ${options.trials ?? 2}`,
    'seed: 0',
    `policies: ${policies}`,
    `params: {${params}}`,
    '',
  ].join('\n');
}

export function writeFile(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `eofd <args>` in this process, with stdout and stderr captured (not TTYs). */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'eofd', ...args], {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env,
  });
  return { code, stdout, stderr };
}

/** `node bin/eofd.js <args>` as a child process. */
export function spawnCli(args: string[], cwd: string): ChildProcess & { output: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }) as ChildProcess & {
    output: { stdout: string; stderr: string };
  };
  child.output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (child.output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (child.output.stderr += chunk.toString()));
  return child;
}

export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Polls `check` every 10 ms until it returns true (or fails after `timeoutMs`). */
export async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Every file under `dir` (relative paths, sorted). */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/** The trial CSVs under an experiment folder, relative path → text. */
export function trialCsvs(experimentDir: string): Map<string, string> {
  const files = listFiles(experimentDir).filter((f) => /trial-\d+\.csv$/.test(f));
  return new Map(files.map((f) => [f, fs.readFileSync(path.join(experimentDir, f), 'utf8')]));
}

/**
 * A trial CSV without its timing columns (select_ms, update_ms) and m (what a policy says of itself: a
 * process policy does not), by the header's names: the rounds as played, which must be reproducible.
 */
export function withoutTimings(csv: string): string {
  const lines = csv.split('\n');
  const keep = (lines[0] as string).split(',').map((name) => !name.endsWith('_ms') && name !== 'm');
  return lines.map((line) => line.split(',').filter((_, i) => keep[i]).join(',')).join('\n');
}

export function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}
