#!/usr/bin/env node
// Regenerates what the docs derive from the code and the committed results: docs/config-reference.md
// (between the config-reference markers) and configs/eofd.schema.json from the config schema, and the
// README's Results (between the paper-results markers) from the reproduction in results/paper/.
// Run after a build: `npm run docs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceGeneratedSection } from '../dist/base/generated-section.js';
import { configJsonSchema, configReference, REFERENCE_SECTION, SCHEMA_FILE } from '../dist/config/json-schema.js';
import { reproductionSection, RESULTS_SECTION } from '../dist/experiment/reproduce-results.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const update = (file, section, name) => fs.writeFileSync(file, replaceGeneratedSection(fs.readFileSync(file, 'utf8'), section, name));

const reference = path.join(root, 'docs', 'config-reference.md');
update(reference, configReference(), REFERENCE_SECTION);
fs.writeFileSync(path.join(root, 'configs', SCHEMA_FILE), JSON.stringify(configJsonSchema(), null, 2) + '\n');
const readme = path.join(root, 'README.md');
update(readme, reproductionSection(path.join(root, 'results', 'paper'), 'results/paper'), RESULTS_SECTION);
console.log(`updated ${path.relative(process.cwd(), reference)}, configs/${SCHEMA_FILE} and the Results of ${path.relative(process.cwd(), readme)}`);
