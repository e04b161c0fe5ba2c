#!/usr/bin/env node
// Entry point of the `eofd` command: the compiled CLI, bundled into one file
// (dist/bundle/main.js, built by `npm ci` / `npm run build`; scripts/bundle.mjs).
import { main } from '../dist/bundle/main.js';

process.exitCode = await main(process.argv);
