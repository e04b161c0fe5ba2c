import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import { changedInput, fileIdentity } from '../../src/environments/input-files.js';
import { runExperiments } from '../../src/experiment/runner.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-inputs-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, content);
  return file;
}

describe('fileIdentity and changedInput: bad arguments', () => {
  it('throws the file-system error for a missing file', () => {
    expect(() => fileIdentity(path.join(root, 'absent'))).toThrow(/ENOENT/);
  });
});

describe('fileIdentity', () => {
  it('is the size and the SHA-256 of the bytes, also past one read chunk', () => {
    const bytes = Buffer.alloc(3 * 2 ** 20 + 17);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const file = write('big.bin', bytes);
    expect(fileIdentity(file)).toEqual({ file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(fileIdentity(write('empty', '')).sha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('changedInput names a changed, a new and a missing file, and nothing for the same files', () => {
    const a = { file: '/a', bytes: 3, sha256: 'aa' };
    const b = { file: '/b', bytes: 4, sha256: 'bb' };
    expect(changedInput([a, b], [b, a])).toBeNull();
    expect(changedInput([a], [{ ...a, sha256: 'ab' }])).toMatch(/^\/a changed since that run \(3 bytes, SHA-256 aa… then; 3 bytes, SHA-256 ab… now\)/);
    expect(changedInput([a], [a, b])).toMatch(/\/b was not an input of that run/);
    expect(changedInput([a, b], [a])).toMatch(/\/b was an input of that run and is not one now/);
  });
});

describe('--resume refuses a run whose input file changed', () => {
  async function refusal(promise: Promise<unknown>): Promise<RunError> {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(RunError);
      return error as RunError;
    }
    throw new Error('expected a RunError');
  }

  const cases: [string, string, (file: string) => void][] = [
    [
      'trace',
      path.join(REPO, 'test', 'baselines', 'trace.json'),
      // The same instance, written with other white space: other bytes, so another run.
      (file) => fs.writeFileSync(file, JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8')), null, 1)),
    ],
    ['classification', path.join(REPO, 'data', 'iris.csv'), (file) => fs.appendFileSync(file, '5,3,1.5,0.2,setosa\n')],
  ];
  for (const [type, source, change] of cases) {
    it(`${type}: the manifest records the file's size and SHA-256; a changed file stops --resume (exit 2)`, async () => {
      const input = write(`input-${type}${path.extname(source)}`, fs.readFileSync(source));
      const environment = type === 'trace' ? `{type: trace, file: ${input}}` : `{type: classification, file: ${input}, target: virginica}`;
      const text = [`name: ${type}`, `environment: ${environment}`, 'horizon: 10', 'trials: 1', 'seed: 0', 'policies: [Random]', 'params: {S: 2}', ''].join('\n');
      const configs = loadConfigs(write(`${type}.yaml`, text));
      const out = path.join(root, `out-${type}`);
      await runExperiments(configs, { out, jobs: 1 });
      const manifest = JSON.parse(fs.readFileSync(path.join(out, type, 'manifest.json'), 'utf8'));
      expect(manifest.config.environment.inputs).toEqual([fileIdentity(input)]);
      // Unchanged: resumes.
      await runExperiments(configs, { out, jobs: 1, resume: true });
      change(input);
      const error = await refusal(runExperiments(configs, { out, jobs: 1, resume: true }));
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(new RegExp(`cannot resume .*: its input file ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed since that run`));
    });
  }
});
