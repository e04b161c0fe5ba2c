/**
 * Reads a labelled data set — CSV with a header, or LIBSVM/SVMlight — into sparse rows, streaming
 * the file in fixed-size chunks (no whole-file string; a `.gz` file is decompressed into one buffer
 * of at most the size cap, then read the same way). Every problem is a ConfigError (exit 2) naming
 * `file:line:column`.
 *
 * Formats:
 * - CSV: line 1 is the header; the column named `label` (option) holds the labels, every other
 *   column is a numeric feature, in header order. Fields are split at commas and trimmed; a field
 *   wrapped in double quotes loses them, and is trimmed again (a comma inside quotes is not supported).
 * - LIBSVM: `label index:value index:value …`, whitespace-separated, indices 1-based and strictly
 *   increasing; `#` starts a comment. The number of features is the largest index, or given.
 * Blank lines are skipped in both. A line ends at LF, CRLF or a lone CR; a line longer than
 * ENVIRONMENT_LIMITS.maxLineChars, or a label longer than ENVIRONMENT_LIMITS.maxLabelChars, is refused.
 * An error quotes at most an excerpt of what it names (excerpt()), never a whole line.
 *
 * Numbers: decimal text only (`[+-]digits[.digits][e[+-]digits]`), converted by `Number` (exactly
 * rounded, so identical on every machine). Labels: text; a label that is such a number is written as
 * `String(Number(text))` when that denotes exactly the same decimal number (`+1`, `1` and `1.0` are
 * one label "1"), and kept as written when it does not (`9007199254740993`, above 2^53, stays itself
 * rather than becoming ...992). Classes are sorted: numeric labels by value first (ties: by exact
 * decimal value), then the others by UTF-16 code units.
 *
 * Memory: the rows live in SharedArrayBuffers, so that one parsed copy is shared by every worker
 * thread (classification.ts shareFeatureTable); nothing writes to them after the file is scaled.
 *
 * Rows are stored sparse (zeros dropped, indices increasing), so a CSV file and a LIBSVM file of the
 * same data give the same rows, value for value.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { ConfigError, describeFsError } from '../base/errors.js';
import { ENVIRONMENT_LIMITS } from './environment.js';

export const DATA_FORMATS = ['csv', 'libsvm'] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];

/** File extensions (after an optional `.gz`) that name a format. */
const FORMAT_EXTENSIONS: Readonly<Record<string, DataFormat>> = {
  '.csv': 'csv',
  '.libsvm': 'libsvm',
  '.svm': 'libsvm',
  '.svmlight': 'libsvm',
  '.scale': 'libsvm',
};

/** The format a file name implies, or null when its extension names none. */
export function formatFromExtension(file: string): DataFormat | null {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  const dot = name.lastIndexOf('.');
  return dot < 0 ? null : (FORMAT_EXTENSIONS[name.slice(dot)] ?? null);
}

/** The extensions formatFromExtension knows, for error messages. */
export const KNOWN_EXTENSIONS = Object.keys(FORMAT_EXTENSIONS);

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A decimal number's value, or NaN when `text` is not one (or overflows to ±Infinity). */
export function parseDecimal(text: string): number {
  if (!DECIMAL.test(text)) return Number.NaN;
  const value = Number(text);
  return Number.isFinite(value) ? value : Number.NaN;
}

/** A decimal's exact value as (sign, significant digits, exponent): value = sign · digits · 10^exponent; zero is (1, '', 0). */
function exactDecimal(text: string): { sign: number; digits: string; exponent: number } {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text) as RegExpExecArray;
  const fraction = match[3] ?? '';
  let digits = (match[2] ?? '') + fraction;
  let exponent = Number(match[4] ?? '0') - fraction.length;
  digits = digits.replace(/^0+/, '');
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return { sign: 1, digits: '', exponent: 0 };
  return { sign: match[1] === '-' ? -1 : 1, digits, exponent };
}

/** The exact order of two decimal texts (for labels whose doubles are equal: above 2^53, underflowing, …). */
function compareExact(a: string, b: string): number {
  const x = exactDecimal(a);
  const y = exactDecimal(b);
  if (x.digits === '' || y.digits === '') return (x.digits === '' ? 0 : x.sign) - (y.digits === '' ? 0 : y.sign);
  if (x.sign !== y.sign) return x.sign - y.sign;
  // Where the leading digit stands, then the digits.
  const magnitude = x.digits.length + x.exponent - (y.digits.length + y.exponent);
  if (magnitude !== 0) return x.sign * magnitude;
  const width = Math.max(x.digits.length, y.digits.length);
  const p = x.digits.padEnd(width, '0');
  const q = y.digits.padEnd(width, '0');
  return x.sign * (p < q ? -1 : p > q ? 1 : 0);
}

/** A label as the data and configs write it, in its one canonical text (see the module comment). */
export function canonicalLabel(label: string | number): string {
  if (typeof label === 'number') return String(label);
  const text = label.trim();
  const value = parseDecimal(text);
  if (Number.isNaN(value)) return text;
  const shortest = String(value);
  // Only a spelling of the same exact number: above 2^53 (or with more digits than a double holds) the text stays.
  const a = exactDecimal(text);
  const b = exactDecimal(shortest);
  return a.digits === b.digits && a.exponent === b.exponent && (a.sign === b.sign || a.digits === '') ? shortest : text;
}

/** Sort order of classes: numeric labels by value (equal doubles: by exact value), then the others by code units. */
export function compareLabels(a: string, b: string): number {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const xNumeric = !Number.isNaN(x);
  const yNumeric = !Number.isNaN(y);
  if (xNumeric && yNumeric) return x !== y ? x - y : compareExact(a, b);
  if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** At most this many characters of a text an error quotes. */
const EXCERPT_CHARS = 40;

/** `text` as an error quotes it: JSON, cut to an excerpt with its length when longer. */
export function excerpt(text: string): string {
  if (text.length <= EXCERPT_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(`${text.slice(0, EXCERPT_CHARS)}…`)} (${text.length} characters)`;
}

/** A CSV header's columns as an error lists them: the first few, cut to an excerpt. */
function listColumns(header: readonly string[]): string {
  const shown = header.slice(0, 8).map((c) => (c.length > 24 ? `${c.slice(0, 24)}…` : c));
  return header.length > shown.length ? `${header.length} columns: ${shown.join(', ')}, …` : `columns: ${shown.join(', ')}`;
}

/** A Float64Array on a SharedArrayBuffer (shared, not copied, when posted to a worker). */
export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT));
}

/** An Int32Array on a SharedArrayBuffer. */
export function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT));
}

let reads = 0;

/** How many data files this thread has parsed (readLabelledData calls): tests count that a run parses once. */
export function labelledDataReads(): number {
  return reads;
}

const BLOCK_BITS = 16;
const BLOCK_SIZE = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK_SIZE - 1;

/** A BlockColumn as plain data (structured-cloneable; shared when its blocks are). */
export interface SharedColumn<A extends Float64Array | Int32Array> {
  readonly blocks: readonly A[];
  readonly length: number;
}

/** A column that grows by fixed blocks (never reallocated or copied, so its peak is its size). */
export class BlockColumn<A extends Float64Array | Int32Array> {
  private blocks: A[] = [];
  length = 0;
  constructor(private readonly make: (n: number) => A) {}

  /** Its blocks and length, for a worker (the blocks themselves, not a copy). */
  toShared(): SharedColumn<A> {
    return { blocks: this.blocks, length: this.length };
  }

  /** A column over `shared`'s blocks (to read; it must not grow). */
  static fromShared<A extends Float64Array | Int32Array>(shared: SharedColumn<A>): BlockColumn<A> {
    const column = new BlockColumn<A>(() => {
      throw new Error('a shared column is read-only');
    });
    column.blocks = [...shared.blocks];
    column.length = shared.length;
    return column;
  }

  push(value: number): void {
    const offset = this.length & BLOCK_MASK;
    if (offset === 0) this.blocks.push(this.make(BLOCK_SIZE));
    this.blocks[this.blocks.length - 1][offset] = value;
    this.length++;
  }

  at(index: number): number {
    return this.blocks[index >>> BLOCK_BITS][index & BLOCK_MASK];
  }

  set(index: number, value: number): void {
    this.blocks[index >>> BLOCK_BITS][index & BLOCK_MASK] = value;
  }
}

/** A labelled data set, rows sparse (compressed rows), classes sorted. */
export interface LabelledData {
  /** The file as errors name it. */
  readonly file: string;
  readonly format: DataFormat;
  /** Number of feature columns (without any bias). */
  readonly features: number;
  /** CSV: the feature columns' names, in order; LIBSVM: null. */
  readonly featureNames: readonly string[] | null;
  /** Number of rows N. */
  readonly rows: number;
  /** The labels present, sorted (compareLabels). */
  readonly classes: readonly string[];
  /** Rows per class, in class order. */
  readonly counts: readonly number[];
  /** Per class, its rows' indices (0-based, file order). */
  readonly classRows: readonly Int32Array[];
  /** Class of each row (index into classes). */
  readonly labels: Int32Array;
  /** Row i's stored entries are rowStart[i] .. rowStart[i+1] − 1 (length rows + 1). */
  readonly rowStart: Float64Array;
  /** 0-based feature index of each stored entry (increasing within a row). */
  readonly indices: BlockColumn<Int32Array>;
  /** Value of each stored entry (non-zero as read; `normalize: standardize` may rewrite one to 0). */
  readonly values: BlockColumn<Float64Array>;
  /** The file's size and SHA-256, of the very bytes that were parsed (absent for data not read from one file). */
  readonly source?: FileSource;
}

/** Size and SHA-256 of the bytes read from a file (compressed bytes for a `.gz` file, as on disk). */
export interface FileSource {
  readonly bytes: number;
  /** Lowercase hex. */
  readonly sha256: string;
}

export interface ReadOptions {
  readonly format: DataFormat;
  /** The file as errors should name it (default: the path). */
  readonly displayName?: string;
  /** CSV: the label column's header (default: defaultLabelColumn). */
  readonly labelColumn?: string;
  /** The number of features; LIBSVM default: the largest index; CSV: must match the header. */
  readonly features?: number;
  /** Labels a row may carry; a row with another one is an error (default: any). */
  readonly allowedLabels?: readonly string[];
  /** Largest file (after decompression), in bytes (default ENVIRONMENT_LIMITS.maxFileMiB). */
  readonly maxBytes?: number;
  /** Most stored values (default ENVIRONMENT_LIMITS.maxStoredValues). */
  readonly maxValues?: number;
  /** Bytes read per chunk (tests make it tiny to cross every boundary). */
  readonly chunkBytes?: number;
  /** Longest line, in characters (default ENVIRONMENT_LIMITS.maxLineChars). */
  readonly maxLineChars?: number;
}

const DEFAULT_CHUNK_BYTES = 1 << 20;

/**
 * Calls `onLine(text, lineNumber)` for every line of `file`, reading it in chunks, until it returns
 * false; returns the size and SHA-256 of the bytes read (the whole file unless stopped early). A line
 * ends at LF, CRLF or a lone CR. Linear time: each character is scanned once, a line's pieces are
 * joined once, and a line longer than `maxLineChars` is refused as soon as it gets there.
 */
function forEachLine(
  file: string,
  name: string,
  maxBytes: number,
  chunkBytes: number,
  onLine: (text: string, line: number) => boolean | void,
  maxLineChars: number = ENVIRONMENT_LIMITS.maxLineChars,
): FileSource {
  function fail(detail: string, line?: number): never {
    throw new ConfigError({ file: name, ...(line === undefined ? {} : { line }), detail });
  }
  const tooLarge = `is larger than the limit of ${maxBytes} bytes (${(maxBytes / 2 ** 20).toFixed(0)} MiB); raise max_file_mb or use a sample of the data`;
  const tooLong = (at: number): never =>
    fail(
      `line ${at} is longer than the limit of ${maxLineChars} characters (${(maxLineChars / 2 ** 20).toFixed(0)} Mi); is it a data file with line ends? (a row of ${ENVIRONMENT_LIMITS.maxDimension - 1} features fits)`,
      at,
    );
  const hash = createHash('sha256');
  let size = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  /** The current line's text from earlier chunks. */
  const pieces: string[] = [];
  let pending = 0;
  /** The last chunk ended with CR: an LF starting the next one belongs to it. */
  let afterCR = false;
  let line = 0;
  let stopped = false;
  const emit = (text: string): void => {
    line++;
    const whole = pieces.length === 0 ? text : pieces.join('') + text;
    pieces.length = 0;
    pending = 0;
    if (whole.length > maxLineChars) tooLong(line);
    if (onLine(whole, line) === false) stopped = true;
  };
  const feed = (bytes: Uint8Array, last: boolean): void => {
    if (stopped) return;
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: !last });
    } catch {
      fail(`not valid UTF-8 text after line ${line}`);
    }
    let start = 0;
    if (afterCR && text.length > 0) {
      if (text.charCodeAt(0) === 10) start = 1;
      afterCR = false;
    }
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf >= 0 || cr >= 0) {
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (pending + end - start > maxLineChars) tooLong(line + 1);
      emit(text.slice(start, end));
      if (stopped) return;
      start = end + 1;
      if (end === cr) {
        if (start < text.length) {
          if (text.charCodeAt(start) === 10) start++;
        } else {
          afterCR = true;
        }
      }
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
    }
    if (start < text.length) {
      pending += text.length - start;
      if (pending > maxLineChars) tooLong(line + 1);
      pieces.push(start === 0 ? text : text.slice(start));
    }
    if (last && pending > 0) emit('');
  };

  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    fail(`cannot read the data file: ${describeFsError(error)}`);
  }
  try {
    const fileSize = fstatSync(fd).size;
    if (fileSize > maxBytes) fail(`${fileSize} bytes ${tooLarge}`);
    if (file.toLowerCase().endsWith('.gz')) {
      let bytes: Buffer;
      try {
        const compressed = readFileSync(fd);
        hash.update(compressed);
        size = compressed.length;
        bytes = gunzipSync(compressed, { maxOutputLength: maxBytes });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) fail(`decompressed ${tooLarge}`);
        fail(`cannot decompress (gzip): ${(error as Error).message}`);
      }
      for (let offset = 0; offset < bytes.length && !stopped; offset += chunkBytes) {
        feed(bytes.subarray(offset, Math.min(bytes.length, offset + chunkBytes)), false);
      }
      feed(new Uint8Array(0), true);
      return { bytes: size, sha256: hash.digest('hex') };
    }
    const chunk = Buffer.allocUnsafe(chunkBytes);
    while (!stopped) {
      const read = readSync(fd, chunk, 0, chunkBytes, null);
      const bytes = chunk.subarray(0, read);
      hash.update(bytes);
      size += read;
      if (size > maxBytes) fail(`grew to more than ${maxBytes} bytes while being read; ${tooLarge}`);
      feed(bytes, read === 0);
      if (read === 0) break;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes: size, sha256: hash.digest('hex') };
}

/** Strips one pair of surrounding double quotes. */
function unquote(field: string): string {
  return field.length >= 2 && field.startsWith('"') && field.endsWith('"') ? field.slice(1, -1) : field;
}

/** The label column names tried, in order, when a config names none (pandas and scikit-learn write `target`). */
export const DEFAULT_LABEL_COLUMNS = ['label', 'target'] as const;

/**
 * The label column of a CSV header when the config names none: the one of DEFAULT_LABEL_COLUMNS the
 * header has. Neither, or both (the other would be read as a feature), is a ConfigError at line 1.
 */
export function defaultLabelColumn(header: readonly string[], name: string): string {
  const present = DEFAULT_LABEL_COLUMNS.filter((column) => header.includes(column));
  if (present.length === 1) return present[0];
  const detail =
    present.length === 0
      ? `no column named ${DEFAULT_LABEL_COLUMNS.map((c) => JSON.stringify(c)).join(' or ')} in the header (${listColumns(header)}); set label: to the label column`
      : `the header has both ${DEFAULT_LABEL_COLUMNS.map((c) => JSON.stringify(c)).join(' and ')}; set label: to the label column (the other would be read as a feature)`;
  throw new ConfigError({ file: name, line: 1, column: 1, detail });
}

/** A CSV file's header (its first non-blank line), fields trimmed and unquoted; reads no further. */
export function readCsvHeader(file: string, options: { displayName?: string; maxBytes?: number } = {}): string[] {
  const name = options.displayName ?? file;
  let header: string[] | null = null;
  forEachLine(file, name, options.maxBytes ?? ENVIRONMENT_LIMITS.maxFileMiB * 2 ** 20, DEFAULT_CHUNK_BYTES, (text) => {
    if (text.trim() === '') return true;
    header = text.split(',').map((f) => unquote(f.trim()));
    return false;
  });
  if (header === null) throw new ConfigError({ file: name, line: 1, column: 1, detail: 'empty file: expected a header line' });
  return header;
}

/** Reads and checks a labelled data file (module comment); throws ConfigError at the first problem. */
export function readLabelledData(file: string, options: ReadOptions): LabelledData {
  const name = options.displayName ?? file;
  const maxBytes = options.maxBytes ?? ENVIRONMENT_LIMITS.maxFileMiB * 2 ** 20;
  const maxValues = options.maxValues ?? ENVIRONMENT_LIMITS.maxStoredValues;
  const maxFeatures = ENVIRONMENT_LIMITS.maxDimension - 1;
  const allowed = options.allowedLabels === undefined ? null : new Set(options.allowedLabels.map(canonicalLabel));
  function fail(line: number, column: number, detail: string): never {
    throw new ConfigError({ file: name, line, column, detail });
  }

  const classIds = new Map<string, number>();
  reads++;
  const rowLabels = new BlockColumn((n) => new Int32Array(n));
  const rowStarts: number[] = [0];
  const indices = new BlockColumn(sharedInt32);
  const values = new BlockColumn(sharedFloat64);
  let features = options.features ?? 0;
  let featureNames: string[] | null = null;
  let labelAt = -1;
  /** 1-based column of each CSV field in the current line. */
  const fieldColumns: number[] = [];

  const addLabel = (text: string, line: number, column: number): void => {
    if (text === '') fail(line, column, 'missing label');
    if (text.length > ENVIRONMENT_LIMITS.maxLabelChars) {
      fail(line, column, `a label of ${text.length} characters is longer than the limit of ${ENVIRONMENT_LIMITS.maxLabelChars} (${excerpt(text)}); is the label column the right one?`);
    }
    const label = canonicalLabel(text);
    if (allowed !== null && !allowed.has(label)) {
      fail(line, column, `label ${excerpt(label)} is not one of the classes (${[...allowed].join(', ')})`);
    }
    let id = classIds.get(label);
    if (id === undefined) {
      id = classIds.size;
      classIds.set(label, id);
    }
    rowLabels.push(id);
  };
  const addValue = (index: number, value: number, line: number, column: number): void => {
    if (value === 0) return;
    if (values.length >= maxValues) {
      fail(line, column, `more than ${maxValues} non-zero feature values; use a sample of the data`);
    }
    indices.push(index);
    values.push(value);
  };

  const csvLine = (text: string, line: number): void => {
    if (text.trim() === '') return;
    const fields = text.split(',');
    fieldColumns.length = 0;
    let column = 1;
    for (const field of fields) {
      fieldColumns.push(column);
      column += field.length + 1;
    }
    if (featureNames === null) {
      const header = fields.map((f) => unquote(f.trim()));
      const labelName = options.labelColumn ?? defaultLabelColumn(header, name);
      labelAt = header.indexOf(labelName);
      if (labelAt < 0) fail(line, 1, `no column named ${JSON.stringify(labelName)} in the header (${listColumns(header)}); set label: to the label column`);
      if (header.indexOf(labelName, labelAt + 1) >= 0) fail(line, 1, `two columns are named ${excerpt(labelName)}`);
      featureNames = header.filter((_, i) => i !== labelAt);
      if (featureNames.length === 0) fail(line, 1, 'the header names no feature column besides the label');
      if (featureNames.length > maxFeatures) fail(line, 1, `${featureNames.length} feature columns, more than the limit ${maxFeatures}`);
      if (options.features !== undefined && options.features !== featureNames.length) {
        fail(line, 1, `the header has ${featureNames.length} feature columns, the config says features: ${options.features}`);
      }
      features = featureNames.length;
      return;
    }
    if (fields.length !== featureNames.length + 1) {
      fail(line, 1, `expected ${featureNames.length + 1} columns as in the header, got ${fields.length}`);
    }
    addLabel(unquote(fields[labelAt].trim()), line, fieldColumns[labelAt]);
    let index = 0;
    for (let i = 0; i < fields.length; i++) {
      if (i === labelAt) continue;
      const field = unquote(fields[i].trim()).trim();
      const value = parseDecimal(field);
      if (Number.isNaN(value)) fail(line, fieldColumns[i], `${excerpt(field)} in column ${excerpt(featureNames[index])} is not a finite decimal number`);
      addValue(index, value, line, fieldColumns[i]);
      index++;
    }
    rowStarts.push(values.length);
  };

  const libsvmLine = (raw: string, line: number): void => {
    const hash = raw.indexOf('#');
    const text = hash >= 0 ? raw.slice(0, hash) : raw;
    const tokens = text.split(/[ \t]+/);
    let column = 1;
    let previous = 0;
    let first = true;
    for (const token of tokens) {
      const at = column;
      column += token.length + 1;
      if (token === '') continue;
      if (first) {
        first = false;
        if (token.includes(':')) fail(line, at, `expected a label before the index:value pairs, got ${excerpt(token)}`);
        addLabel(token, line, at);
        continue;
      }
      const colon = token.indexOf(':');
      const indexText = colon < 0 ? '' : token.slice(0, colon);
      if (!/^\d+$/.test(indexText)) fail(line, at, `expected index:value with a positive integer index, got ${excerpt(token)}`);
      const index = Number(indexText);
      if (index <= 0) fail(line, at, `feature index ${indexText} is ≤ 0 (LIBSVM indices are 1-based)`);
      if (index <= previous) fail(line, at, `feature index ${index} is not after the previous index ${previous} (indices must increase)`);
      if (index > maxFeatures) fail(line, at, `feature index ${index} is larger than the limit ${maxFeatures}`);
      if (options.features !== undefined && index > options.features) fail(line, at, `feature index ${index} is larger than features: ${options.features}`);
      const valueText = token.slice(colon + 1);
      const value = parseDecimal(valueText);
      if (Number.isNaN(value)) fail(line, at + colon + 1, `${excerpt(valueText)} is not a finite decimal number`);
      addValue(index - 1, value, line, at);
      previous = index;
      if (index > features) features = index;
    }
    if (first) return; // blank or comment-only line
    rowStarts.push(values.length);
  };

  const source = forEachLine(
    file,
    name,
    maxBytes,
    options.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    options.format === 'csv' ? csvLine : libsvmLine,
    options.maxLineChars,
  );

  const rows = rowStarts.length - 1;
  if (options.format === 'csv' && featureNames === null) fail(1, 1, 'empty file: expected a header line');
  if (rows === 0) fail(1, 1, 'no data rows');
  if (features === 0) fail(1, 1, 'no features: every value is 0 and no features: count was given');

  // Classes in sorted order; rows relabelled.
  const classes = [...classIds.keys()].sort(compareLabels);
  const remap = new Int32Array(classes.length);
  classes.forEach((label, sorted) => {
    remap[classIds.get(label) as number] = sorted;
  });
  const labels = sharedInt32(rows);
  const counts = new Array<number>(classes.length).fill(0);
  for (let i = 0; i < rows; i++) {
    labels[i] = remap[rowLabels.at(i)];
    counts[labels[i]]++;
  }
  const classRows = counts.map((count) => sharedInt32(count));
  const filled = new Array<number>(classes.length).fill(0);
  for (let i = 0; i < rows; i++) classRows[labels[i]][filled[labels[i]]++] = i;

  return {
    file: name,
    format: options.format,
    features,
    featureNames,
    rows,
    classes,
    counts,
    classRows,
    labels,
    rowStart: copyShared(rowStarts),
    indices,
    values,
    source,
  };
}

/** `numbers` in a shared Float64Array. */
function copyShared(numbers: readonly number[]): Float64Array {
  const array = sharedFloat64(numbers.length);
  for (let i = 0; i < numbers.length; i++) array[i] = numbers[i] as number;
  return array;
}

/** Per-column moments of a data set (see columnStatistics). */
export interface ColumnStatistics {
  /** μ_j, j = 0..features − 1. */
  readonly mean: Float64Array;
  /** s_j, the sample standard deviation (divisor N − 1); exactly 0 for a constant column. */
  readonly sd: Float64Array;
  /** 1 where every row holds the same value in column j (then μ_j is that value and s_j = 0). */
  readonly constant: Uint8Array;
}

/** Every cell of the data as if dense (a value a row does not store is 0): rows in file order, columns in index order. */
function forEachCell(data: LabelledData, visit: (column: number, value: number) => void): void {
  const { rows, features, rowStart, indices, values } = data;
  for (let i = 0; i < rows; i++) {
    let k = rowStart[i] as number;
    const end = rowStart[i + 1] as number;
    for (let j = 0; j < features; j++) {
      let v = 0;
      if (k < end && indices.at(k) === j) v = values.at(k++) as number;
      visit(j, v);
    }
  }
}

/**
 * The mean and sample standard deviation of every feature column over all `rows` of `data`, as if
 * the rows were dense (a value a row does not store is 0), in one fixed order so the bits are the
 * same on every run and machine: rows in file order, columns in index order.
 *   μ_j = (Σ_i v_ij) / N,   s_j = √( Σ_i (v_ij − μ_j)² / (N − 1) )   (two passes; N = 1 gives s_j = 0).
 * A column whose rows all hold the same value (its smallest and largest value are equal) is
 * constant: μ_j is that value exactly and s_j = 0 exactly (summing N copies of 0.1 would not give
 * back 0.1, and a rounding residue must not become a standard deviation). The sum of squares is taken
 * over (v_ij − μ_j) / r_j with r_j = max_i v_ij − min_i v_ij, and s_j = r_j · √(that sum / (N − 1)):
 * the same number, without overflow or underflow for values near 1e±154. Cost O(N · features) time,
 * O(features) memory.
 */
export function columnStatistics(data: LabelledData): ColumnStatistics {
  const { rows, features } = data;
  const sum = new Float64Array(features);
  const low = new Float64Array(features).fill(Number.POSITIVE_INFINITY);
  const high = new Float64Array(features).fill(Number.NEGATIVE_INFINITY);
  forEachCell(data, (j, v) => {
    sum[j] += v;
    if (v < low[j]) low[j] = v;
    if (v > high[j]) high[j] = v;
  });
  const mean = new Float64Array(features);
  const constant = new Uint8Array(features);
  for (let j = 0; j < features; j++) {
    if (low[j] === high[j]) {
      constant[j] = 1;
      mean[j] = low[j];
    } else {
      mean[j] = sum[j] / rows;
    }
  }
  // r_j (1 for a constant column, whose squares are never used).
  const range = new Float64Array(features);
  for (let j = 0; j < features; j++) range[j] = constant[j] === 1 ? 1 : high[j] - low[j];
  const squares = new Float64Array(features);
  forEachCell(data, (j, v) => {
    const centred = (v - mean[j]) / range[j];
    squares[j] += centred * centred;
  });
  const sd = new Float64Array(features);
  for (let j = 0; j < features; j++) sd[j] = constant[j] === 1 ? 0 : range[j] * Math.sqrt(squares[j] / (rows - 1));
  return { mean, sd, constant };
}
