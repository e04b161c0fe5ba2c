/**
 * Reads and validates what a run wrote (layout.ts), for resume, merge and the report: the one import
 * path of the readers of JSON files (read-json.ts: manifest, best.json, unit summaries), CSV files
 * (read-csv.ts: summary.csv, trial CSVs) and experiment folders (read-folders.ts).
 */
export {
  readBestFile,
  readFinishedUnit,
  readJsonFile,
  readManifest,
  readSweepShard,
  ResultsError,
  type Provenance,
  type Setting,
  type Timing,
} from './read-json.js';
export { forEachCsvRecord, readPartialTrial, readTrial, type CsvRecord, type TrialSeries } from './read-csv.js';
export { experimentUnits, readExperiment, readResults, readUnit, type ExperimentData, type ExperimentUnits, type Progress, type ReadOptions } from './read-folders.js';
