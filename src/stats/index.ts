/** Dependency-free statistics: descriptive summaries, Student's t distribution, paired-sample intervals, ratios, Holm. */
export { mean, median, sampleStd } from './descriptive.js';
export { holm, type HolmResult } from './holm.js';
export { atLevel, pairedDifference, pairedLogRatio, tInterval, tTestP, type PairedInterval } from './paired.js';
export { percentChange, percentReduction, ratioEstimate, type Estimate } from './ratio.js';
export { logGamma, regularizedIncompleteBeta, studentTCdf, studentTQuantile } from './student-t.js';
