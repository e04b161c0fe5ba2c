#!/usr/bin/env node
// Makes results/paper/'s two reports again from what is committed (each run's manifest.json and
// summary.csv; the previous report.json for the curves and the identical decisions), for when the
// report's rules change without a new run. Run after a build, then `npm run docs`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rejudgeReproduction } from '../dist/experiment/reproduce-results.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
for (const file of rejudgeReproduction(path.join(root, 'results', 'paper'))) console.log(`wrote ${path.relative(process.cwd(), file)}`);
