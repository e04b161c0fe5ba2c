/** Where the installed package's own files (package.json, configs/) are, and which code they are. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder (this file is `src/base/` or `dist/base/` under it). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The package's name and version. */
export interface PackageInfo {
  name: string;
  version: string;
}

let packageCache: PackageInfo | undefined;

/** name and version from the package's package.json. */
export function packageInfo(): PackageInfo {
  if (packageCache === undefined) {
    const json = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Partial<PackageInfo>;
    packageCache = { name: String(json.name ?? 'eofd'), version: String(json.version ?? '0.0.0') };
  }
  return packageCache;
}

/**
 * The commit checked out in the package's folder, or null (not a git checkout, no git). Asked once per
 * process: the code running is the code loaded at its start, whatever is checked out later (and
 * `git rev-parse` is a process of its own, tens of milliseconds from a large one).
 */
export function gitCommit(): string | null {
  if (commitCache === undefined) commitCache = readGitCommit();
  return commitCache;
}

let commitCache: string | null | undefined;

function readGitCommit(): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    const hash = out.trim();
    return /^[0-9a-f]{40}$/.test(hash) ? hash : null;
  } catch {
    return null;
  }
}
