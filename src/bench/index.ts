/** `eofd bench`: per-round cost of the policies against d, K and m (see run.ts). */
export { BenchWorkload } from './workload.js';
export { benchSpec, decisionsDigest, isSketched, measurePoint, quantiles, type BenchPoint, type PointMeasurement } from './measure.js';
export {
  BENCH_OPTIONS,
  DEFAULT_BENCH_OPTIONS,
  nominalRoundFlops,
  planPoints,
  resolveSketchSize,
  unavailableBackend,
  type BenchOptions,
  type BenchOptionSpec,
  type PlannedPoint,
  type SketchChoice,
  type WarmupChoice,
} from './plan.js';
export {
  BENCH_COLUMNS,
  backendDisagreements,
  benchCsv,
  fitSlopes,
  leastSquaresSlope,
  LINALG_COLUMNS,
  linalgCsv,
  linalgTable,
  numpyComparisons,
  numpyComparisonTable,
  roundGflopPerS,
  type BenchRow,
  type NumpyBySize,
  type NumpyComparison,
  type SeriesSlope,
} from './output.js';
export { LINALG_OPERATIONS, linalgRows, measureEofdLinalg, numpyTargets, spdMatrix, type EofdLinalg, type LinalgRow, type NumpyTarget } from './linalg.js';
export { measureNumpyLinalg, parseLinalgOutput, type NumpyLinalg, type NumpyOperation } from './numpy.js';
export { describeDgemm, measureDgemm, parseDgemmOutput, type DgemmCommand, type DgemmReference } from './dgemm.js';
export { renderBenchSvg } from './svg.js';
export { BENCH_FILES, BenchError, LINALG_FILES, runBench, type BenchIo, type BenchResult, type NumpyMeasure } from './run.js';
