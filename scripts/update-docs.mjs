#!/usr/bin/env node
// Regenerates what the docs derive from the config schema: docs/config-reference.md (between the
// config-reference markers) and configs/eofd.schema.json. Run after a build: `npm run docs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configJsonSchema, configReference, replaceGeneratedSection, SCHEMA_FILE } from '../dist/config/json-schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reference = path.join(root, 'docs', 'config-reference.md');
fs.writeFileSync(reference, replaceGeneratedSection(fs.readFileSync(reference, 'utf8'), configReference()));
fs.writeFileSync(path.join(root, 'configs', SCHEMA_FILE), JSON.stringify(configJsonSchema(), null, 2) + '\n');
console.log(`updated ${path.relative(process.cwd(), reference)} and configs/${SCHEMA_FILE}`);
