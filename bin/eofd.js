#!/usr/bin/env node
// Entry point of the `eofd` command: the compiled CLI, bundled into one file (dist/bundle/, built by `npm ci` / `npm run build`).
import { main } from '../dist/bundle/main.js';

process.exitCode = await main(process.argv);
