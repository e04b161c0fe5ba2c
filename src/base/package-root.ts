/** Where the installed package's own files (package.json, configs/) are. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder (this file is `src/base/` or `dist/base/` under it). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
