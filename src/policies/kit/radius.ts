/**
 * Confidence-radius pieces several policies share: κ of the logistic link on the ball, and the
 * likelihood-ratio radius terms of the authors' code for Logistic-UCB-1 and OFULog-r
 * (criteo-research/logistic_bandit at d5e8aa2).
 */
import { logisticSlope } from '../../model/logistic.js';

const EPS = 2 ** -52;
/** Terms of the incomplete-gamma series and continued fraction at most. */
const GAMMA_MAX_TERMS = 100_000;
const TINY = 1e-300;

/** κ = 1/μ̇(S·D) = max 1/μ̇(θᵀx) over ‖θ‖ ≤ S, ‖x‖ ≤ D: the logistic link's flattest slope on the ball, inverted. */
export function logisticKappa(normBound: number, maxActionNorm: number): number {
  return 1 / logisticSlope(normBound * maxActionNorm);
}

/** λ_t after n observations: λ·ln(2 + n), and λ itself before the first (logistic_ucb_1.py lines 45, 77; ofulogr.py lines 38, 66). */
export function regularizationAfter(lambda: number, n: number): number {
  return n === 0 ? lambda : lambda * Math.log(2 + n);
}

/** ln Γ(d/2) for an integer d ≥ 1, as a sum of logarithms (Γ(k) = (k−1)!, Γ(k + ½) = √π·Π_{j<k}(j + ½)). */
function logGammaHalf(d: number): number {
  let total = d % 2 === 0 ? 0 : 0.5 * Math.log(Math.PI);
  for (let x = d % 2 === 0 ? 1 : 0.5; x < d / 2 - 0.25; x += 1) total += Math.log(x);
  return total;
}

/**
 * ln F_d(x), F_d the χ² distribution function with d degrees of freedom: ln P(d/2, x/2), P the regularised
 * lower incomplete gamma function (Numerical Recipes' series below u = a + 1, Lentz's continued fraction
 * of 1 − P above).
 */
export function logChiSquareCdf(d: number, x: number): number {
  if (!(x > 0)) return -Infinity;
  const a = d / 2;
  const u = x / 2;
  const lnPrefix = a * Math.log(u) - u - logGammaHalf(d);
  if (u < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < GAMMA_MAX_TERMS; n++) {
      term *= u / (a + n);
      sum += term;
      if (term <= sum * EPS) break;
    }
    return lnPrefix + Math.log(sum);
  }
  let b = u + 1 - a;
  let c = 1 / TINY;
  let dd = 1 / b;
  let h = dd;
  for (let i = 1; i < GAMMA_MAX_TERMS; i++) {
    const an = -i * (i - a);
    b += 2;
    dd = an * dd + b;
    if (Math.abs(dd) < TINY) dd = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    dd = 1 / dd;
    const delta = dd * c;
    h *= delta;
    if (Math.abs(delta - 1) <= EPS) break;
  }
  return Math.log1p(-Math.exp(lnPrefix) * h);
}

/**
 * c_t = ln(1/δ) + ½ ln det H_t − (d/2) ln λ_t + ln(F_d(2λ_t)/F_d(λ_t)): the part both radii of the authors'
 * code share (logistic_ucb_1.py lines 110–114, ofulogr.py lines 94–98).
 */
export function concentrationTerm(d: number, lambdaT: number, logDetH: number, delta: number): number {
  return Math.log(1 / delta) + 0.5 * logDetH - 0.5 * d * Math.log(lambdaT) + (logChiSquareCdf(d, 2 * lambdaT) - logChiSquareCdf(d, lambdaT));
}
