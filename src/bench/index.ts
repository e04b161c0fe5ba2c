/** `eofd bench`: per-round cost of the policies against d, K and m (see run.ts). */
export { BenchWorkload } from './workload.js';
export { benchSpec, isSketched, measurePoint, quantiles, type BenchPoint, type PointMeasurement } from './measure.js';
export { DEFAULT_BENCH_OPTIONS, planPoints, resolveSketchSize, type BenchOptions, type PlannedPoint, type SketchChoice, type WarmupChoice } from './plan.js';
export { BENCH_COLUMNS, benchCsv, fitSlopes, leastSquaresSlope, type BenchRow, type SeriesSlope } from './output.js';
export { renderBenchSvg } from './svg.js';
export { BENCH_FILES, BenchError, runBench, type BenchIo, type BenchResult } from './run.js';
