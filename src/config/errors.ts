/**
 * The one error type for everything wrong with a config or a `--set` override. The CLI prints
 * `message` (always one line) and exits with `exitCode` (2: usage or config error).
 */
export interface ConfigErrorOptions {
  /** The config file as the user named it (not made absolute). */
  file: string;
  /** 1-based line and column in `file`, when the problem has a place in it. */
  line?: number;
  column?: number;
  /** Dotted path of the offending field (`params.beta`, `environment.reward.0`). */
  field?: string;
  /** The `--set key=value` text the problem came from, when it came from one. */
  override?: string;
  /** What is wrong, one line, e.g. `expected an integer ≥ 1, got -5`. */
  detail: string;
}

export class ConfigError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly field: string | undefined;
  readonly override: string | undefined;
  readonly detail: string;
  readonly exitCode = 2;

  constructor(options: ConfigErrorOptions) {
    super(formatConfigError(options));
    this.name = 'ConfigError';
    this.file = options.file;
    this.line = options.line;
    this.column = options.column;
    this.field = options.field;
    this.override = options.override;
    this.detail = options.detail;
  }
}

/** `file:line:column: field: detail`, or `--set text: field: detail` for an override; one line. */
function formatConfigError(options: ConfigErrorOptions): string {
  let where: string;
  if (options.override !== undefined) where = `--set ${options.override}`;
  else if (options.line !== undefined) where = `${options.file}:${options.line}:${options.column ?? 1}`;
  else where = options.file;
  const parts = [where];
  if (options.field !== undefined && options.field !== '') parts.push(options.field);
  parts.push(options.detail);
  return parts.join(': ').replace(/[\r\n]+\s*/g, ' ');
}
