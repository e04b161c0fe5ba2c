/**
 * The one error base of the package: every failure the CLI reports as a single line carries the exit
 * code it maps to (2: bad usage or bad input, 1: anything else at run time).
 */

/** A failure with the process exit code it maps to; `message` is one line. */
export class EofdError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export interface ConfigErrorOptions {
  /** The file as the user named it (not made absolute). */
  file: string;
  /** 1-based line and column in `file`, when the problem has a place in it. */
  line?: number;
  column?: number;
  /** Dotted path of the offending field (`params.beta`, `environment.reward.0`). */
  field?: string;
  /** The `--set key=value` text the problem came from (or `--over key=value`, flag included). */
  override?: string;
  /** What is wrong, one line, e.g. `expected an integer ≥ 1, got -5`. */
  detail: string;
}

/**
 * Everything wrong with an input file (a config, a `--set` override, a trace, a best.json): exit 2,
 * message `file:line:column: field: detail` (or `--set text: field: detail`).
 */
export class ConfigError extends EofdError {
  readonly file: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly field: string | undefined;
  readonly override: string | undefined;
  readonly detail: string;

  constructor(options: ConfigErrorOptions) {
    super(formatConfigError(options), 2);
    this.file = options.file;
    this.line = options.line;
    this.column = options.column;
    this.field = options.field;
    this.override = options.override;
    this.detail = options.detail;
  }
}

function formatConfigError(options: ConfigErrorOptions): string {
  let where: string;
  if (options.override !== undefined) where = options.override.startsWith('--') ? options.override : `--set ${options.override}`;
  else if (options.line !== undefined) where = `${options.file}:${options.line}:${options.column ?? 1}`;
  else where = options.file;
  const parts = [where];
  if (options.field !== undefined && options.field !== '') parts.push(options.field);
  parts.push(options.detail);
  return parts.join(': ').replace(/[\r\n]+\s*/g, ' ');
}

/** The errno code of a file-system error (`ENOENT`, `EACCES`, …), or '' for anything else. */
export function errnoCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A file-system error as a few words for a one-line message. */
export function describeFsError(error: unknown): string {
  const code = errnoCode(error);
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'ENOTDIR') return 'a part of the path is a file, not a folder (ENOTDIR)';
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code === 'EROFS') return 'read-only file system (EROFS)';
  if (code === 'ENOSPC') return 'no space left on the device (ENOSPC)';
  return error instanceof Error ? (error.message.split('\n')[0] as string) : String(error);
}

/** A run (or grid, merge) that cannot start or go on: exit 2 for bad usage, 1 otherwise. */
export class RunError extends EofdError {
  constructor(message: string, exitCode: 1 | 2 = 1) {
    super(message, exitCode);
  }
}
