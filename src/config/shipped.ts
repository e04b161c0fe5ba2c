/**
 * The configs shipped in the package's configs/ folder, reachable by name from anywhere the package
 * is installed: `eofd run quick` reads <package>/configs/quick.yaml when no file `quick` exists here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../base/package-root.js';

/** The package's configs/ folder. */
export const SHIPPED_CONFIG_DIR = path.join(PACKAGE_ROOT, 'configs');

/** Extensions a config file may have, in the order a bare name tries them. */
export const CONFIG_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

export interface ShippedConfig {
  /** What `eofd run <name>` accepts (the file name without extension). */
  name: string;
  /** Absolute path. */
  file: string;
  /** The file's first comment line (YAML), or ''. */
  summary: string;
}

/** Every config in the package's configs/ folder (YAML before a JSON twin of the same name). */
export function shippedConfigs(): ShippedConfig[] {
  let files: string[];
  try {
    files = fs.readdirSync(SHIPPED_CONFIG_DIR);
  } catch {
    return [];
  }
  const seen = new Set<string>();
  const configs: ShippedConfig[] = [];
  for (const extension of CONFIG_EXTENSIONS) {
    for (const entry of files.filter((f) => f.endsWith(extension) && !f.endsWith('.schema.json')).sort()) {
      const name = entry.slice(0, -extension.length);
      if (seen.has(name)) continue;
      seen.add(name);
      const file = path.join(SHIPPED_CONFIG_DIR, entry);
      configs.push({ name, file, summary: firstComment(fs.readFileSync(file, 'utf8')) });
    }
  }
  return configs.sort((a, b) => a.name.localeCompare(b.name));
}

function firstComment(text: string): string {
  for (const line of text.split('\n')) {
    const match = /^#\s*(.*)$/.exec(line);
    if (match === null) return '';
    if (!match[1]?.startsWith('yaml-language-server:')) return (match[1] ?? '').trim();
  }
  return '';
}

/**
 * The file a config argument names: the argument itself when it exists (or has a folder or an
 * extension), else the shipped config of that name, else the argument (reading it then fails and the
 * error lists the shipped names).
 */
export function configPath(argument: string): string {
  if (fs.existsSync(argument) || argument.includes('/') || argument.includes(path.sep) || path.extname(argument) !== '') return argument;
  return shippedConfigs().find((c) => c.name === argument)?.file ?? argument;
}
