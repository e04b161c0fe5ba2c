#!/usr/bin/env node
// Entry point of the `eofd` command: the compiled CLI lives in dist/ (built by `npm ci` / `npm run build`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv);
