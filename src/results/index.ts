/** The on-disk contract of a run: layout, records, manifest, grid files; one reader, one writer. */
export * from './sweep.js';
export * from './layout.js';
export * from './manifest.js';
export * from './read.js';
export * from './records.js';
export * from './unit.js';
export * from './write.js';
