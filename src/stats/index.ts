/** Dependency-free statistics: descriptive summaries, Student's t distribution, paired-sample intervals. */
export { mean, median, sampleStd } from './descriptive.js';
export { pairedDifference, pairedRelativeDifference, type PairedInterval } from './paired.js';
export { logGamma, regularizedIncompleteBeta, studentTCdf, studentTQuantile } from './student-t.js';
