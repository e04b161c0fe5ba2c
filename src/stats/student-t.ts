/**
 * Student's t distribution: CDF and quantile for any real df ≥ 1, from the regularized incomplete beta
 * function. With a = df/2, x = df/(df + t²) and y = 1 − x = t²/(df + t²),
 *
 *     P(T > |t|) = ½·I_x(a, ½),        P(|T| < |t|) = I_y(½, a) = 1 − I_x(a, ½).
 *
 * I_x is evaluated as in Numerical Recipes (`betai`/`betacf`): the prefactor x^a·y^b/(a·B(a, b)) times
 * the continued fraction (modified Lentz), on whichever of I_x(a, b) and I_y(b, a) = 1 − I_x(a, b)
 * converges quickly, and everything is kept in logarithms so that far tails neither underflow nor
 * lose relative accuracy. For large df (a ≥ 50) the far side, where x is within ~1/a of 1 and the
 * continued fraction would lose a·ε to the cancellation in 1 − x, uses an asymptotic expansion in
 * incomplete gamma functions instead (`logBetaIncLargeA`). The quantile solves ln P(T > t) = ln q
 * (or, near the centre, ln P(|T| < t) = ln(1 − 2q)) by Newton's method in ln t, safeguarded by a
 * bracket with geometric bisection; both sides are nearly linear in ln t, so 1 to 4 steps reach
 * ~1e−15 relative accuracy.
 */

const EPS = Number.EPSILON;
const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
/** Smallest magnitude the Lentz recurrences let a denominator take (NR's FPMIN). */
const TINY = 1e-300;
const QUANTILE_MAX_ITERATIONS = 200;
const SERIES_MAX_TERMS = 1000;
/** A Newton step in ln t below this ends the quantile iteration. */
const NEWTON_TOLERANCE = 1e-10;
/** From this a = df/2 on, the far side of the t CDF uses the large-a expansion (`logBetaIncLargeA`). */
const LARGE_A = 50;

/** Lanczos coefficients of Numerical Recipes, 3rd ed. (g = 671/128, 14 terms; error about 1e−15). */
const LANCZOS_G = 671 / 128;
const LANCZOS = [
  57.1562356658629235, -59.5979603554754912, 14.1360979747417471, -0.491913816097620199,
  0.339946499848118887e-4, 0.465236289270485756e-4, -0.983744753048795646e-4, 0.158088703224912494e-3,
  -0.210264441724104883e-3, 0.217439618115212643e-3, -0.164318106536763890e-3, 0.844182239838527433e-4,
  -0.261908384015814087e-4, 0.368991826595316234e-5,
];

/** ln Γ(x) for x > 0 by the Lanczos approximation (NaN otherwise). */
export function logGamma(x: number): number {
  if (!(x > 0)) return NaN;
  if (x === Infinity) return Infinity;
  const base = x + LANCZOS_G;
  let series = 0.999999999999997092;
  for (let j = 0; j < LANCZOS.length; j++) series += LANCZOS[j] / (x + j + 1);
  return (x + 0.5) * Math.log(base) - base + Math.log((2.5066282746310005 * series) / x);
}

/**
 * ln Γ(x) − Stirling's approximation, (x − ½)·ln x − x + ½·ln 2π, for x ≥ 10: the asymptotic series
 * Σ B_2k / (2k(2k − 1)·x^(2k−1)), whose omitted terms are below 1e−16 there. Used by `logBeta` so that
 * the large ln Γ values cancel analytically instead of in floating point.
 */
function stirlingCorrection(x: number): number {
  const r = 1 / x;
  const r2 = r * r;
  return (
    r *
    (1 / 12 +
      r2 *
        (-1 / 360 +
          r2 * (1 / 1260 + r2 * (-1 / 1680 + r2 * (1 / 1188 + r2 * (-691 / 360360 + r2 * (1 / 156)))))))
  );
}

/** ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b), accurate also when a or b is large (as R's lbeta). */
function logBeta(a: number, b: number): number {
  const p = Math.min(a, b);
  const q = Math.max(a, b);
  const ratio = p / (p + q);
  if (p >= 10) {
    const correction = stirlingCorrection(p) + stirlingCorrection(q) - stirlingCorrection(p + q);
    return (
      -0.5 * Math.log(q) + LN_SQRT_2PI + correction + (p - 0.5) * Math.log(ratio) + q * Math.log1p(-ratio)
    );
  }
  if (q >= 10) {
    const correction = stirlingCorrection(q) - stirlingCorrection(p + q);
    return logGamma(p) + correction + p - p * Math.log(p + q) + (q - 0.5) * Math.log1p(-ratio);
  }
  return logGamma(p) + logGamma(q) - logGamma(p + q);
}

/** ln(1 − e^u) for u ≤ 0, without cancellation at either end. */
function log1mExp(u: number): number {
  return u > -Math.LN2 ? Math.log(-Math.expm1(u)) : Math.log1p(-Math.exp(u));
}

/**
 * The continued fraction of I_x(a, b) (Numerical Recipes `betacf`, modified Lentz), which converges
 * quickly for x < (a + 1)/(a + b + 2); it needs O(√max(a, b)) terms at worst.
 */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const maxIterations = 1000 + Math.ceil(20 * Math.sqrt(Math.max(a, b)));
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= maxIterations; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) <= EPS) return h;
  }
  throw new Error(`incomplete beta continued fraction did not converge (x = ${x}, a = ${a}, b = ${b})`);
}

/**
 * [ln I_x(a, b), ln I_y(b, a)] with y = 1 − x, both accurate: the one whose continued fraction
 * converges is computed directly, the other as ln(1 − e^·) of it. x, y and their logarithms are passed
 * separately so that the caller can form them without cancellation or overflow.
 */
function logBetaIncPair(
  x: number,
  lnX: number,
  y: number,
  lnY: number,
  a: number,
  b: number,
): [number, number] {
  if (lnX === -Infinity) return [-Infinity, 0];
  if (lnY === -Infinity) return [0, -Infinity];
  const lnFront = a * lnX + b * lnY - logBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) {
    const lnI = lnFront - Math.log(a) + Math.log(betaContinuedFraction(x, a, b));
    return [lnI, log1mExp(lnI)];
  }
  const lnJ = lnFront - Math.log(b) + Math.log(betaContinuedFraction(y, b, a));
  return [log1mExp(lnJ), lnJ];
}

/**
 * ln Q(s, u), Q(s, u) = Γ(s, u)/Γ(s) the regularized upper incomplete gamma function, for s > 0,
 * u ≥ 0 (Numerical Recipes `gser`/`gcf`: the series of P = 1 − Q below u = s + 1, the continued
 * fraction of Q, by modified Lentz, above).
 */
function logGammaQ(s: number, u: number): number {
  if (u === 0) return 0;
  const lnPrefix = s * Math.log(u) - u - logGamma(s);
  if (u < s + 1) {
    let term = 1 / s;
    let sum = term;
    for (let n = 1; n < SERIES_MAX_TERMS; n++) {
      term *= u / (s + n);
      sum += term;
      if (term <= sum * EPS) break;
    }
    return log1mExp(lnPrefix + Math.log(sum));
  }
  let b = u + 1 - s;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < SERIES_MAX_TERMS; i++) {
    const an = -i * (i - s);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) <= EPS) break;
  }
  return lnPrefix + Math.log(h);
}

/** Coefficients c_n of (sinh(w/2)/(w/2))^(−½) = Σ_n c_n·w^(2n), by the power-of-a-series recurrence. */
const SINH_POWER: readonly number[] = (() => {
  const count = 30;
  const power = -0.5;
  const f = [1]; // sinh(v)/v = Σ_j v^(2j)/(2j + 1)!
  for (let j = 1; j < count; j++) f.push(f[j - 1] / (2 * j * (2 * j + 1)));
  const g = [1]; // (sinh(v)/v)^power = Σ_k g_k·v^(2k)
  for (let k = 1; k < count; k++) {
    let sum = 0;
    for (let j = 1; j <= k; j++) sum += ((power + 1) * j - k) * f[j] * g[k - j];
    g.push(sum / k);
  }
  return g.map((gk, n) => gk / 4 ** n); // v = w/2
})();

/**
 * ln I_x(a, ½) for large a and x near 1 (w₀ = −ln x ≤ 1), where the continued fraction would lose
 * about a·ε to the cancellation in 1 − x. Substituting t = e^(−w) in the integral and expanding
 * (sinh(w/2)/(w/2))^(−½) = Σ c_n·w^(2n) gives, with T = a − ¼ and u = T·w₀ (the expansion of
 * DiDonato & Morris's BGRAT, TOMS 708),
 *
 *     I_x(a, ½) = Γ(½)·T^(−½)/B(a, ½) · Σ_n c_n·T^(−2n)·Γ(½ + 2n, u)/Γ(½),
 *
 * whose terms fall like max(w₀/2π, n/πT)^(2n). Γ(½ + k, u) follows upwards from Q(½, u) by
 * Γ(s + 1, u) = s·Γ(s, u) + u^s·e^(−u), carried as σ_k = Γ(½ + k, u)/(Γ(½, u)·T^k).
 */
function logBetaIncLargeA(lnX: number, a: number): number {
  const b = 0.5;
  const T = a - 0.25;
  const lnT = Math.log(T);
  const u = -T * lnX;
  const lnU = Math.log(u);
  const lnQ = logGammaQ(b, u);
  const lnGammaB = logGamma(b);
  let sigma = 1;
  let sum = 1;
  for (let n = 1, k = 0; n < SINH_POWER.length; n++) {
    for (let step = 0; step < 2; step++, k++) {
      sigma = ((b + k) * sigma + Math.exp((b + k) * lnU - k * lnT - u - lnGammaB - lnQ)) / T;
    }
    const term = SINH_POWER[n] * sigma;
    sum += term;
    if (Math.abs(term) <= EPS * sum) break;
  }
  return lnGammaB - b * lnT - logBeta(a, b) + lnQ + Math.log(sum);
}

/** The regularized incomplete beta function I_x(a, b) for x ∈ [0, 1], a, b > 0 (NaN otherwise). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(x >= 0 && x <= 1 && a > 0 && b > 0)) return NaN;
  return Math.exp(logBetaIncPair(x, Math.log(x), 1 - x, Math.log1p(-x), a, b)[0]);
}

/** ln P(T > t), ln P(|T| < t) and ln f(t) (the density) of Student's t with df degrees of freedom; t ≥ 0. */
function logTails(t: number, df: number): { lnTail: number; lnCentral: number; lnPdf: number } {
  const a = df / 2;
  const w = t / Math.sqrt(df);
  let x: number;
  let y: number;
  let lnX: number;
  let lnY: number;
  if (w <= 1) {
    // r = t²/df ≤ 1: x = 1/(1 + r), y = r/(1 + r).
    const r = w * w;
    lnX = -Math.log1p(r);
    lnY = 2 * Math.log(w) + lnX;
    x = 1 / (1 + r);
    y = r / (1 + r);
  } else {
    // 1/r = df/t² < 1, kept away from overflow for huge t: x = (1/r)/(1 + 1/r), y = 1/(1 + 1/r).
    const inverse = 1 / w / w;
    lnY = -Math.log1p(inverse);
    lnX = -2 * Math.log(w) + lnY;
    x = inverse / (1 + inverse);
    y = 1 / (1 + inverse);
  }
  let lnI: number;
  let lnJ: number;
  if (a >= LARGE_A && lnX >= -1 && x < (a + 1) / (a + 2.5)) {
    lnI = logBetaIncLargeA(lnX, a);
    lnJ = log1mExp(lnI);
  } else {
    [lnI, lnJ] = logBetaIncPair(x, lnX, y, lnY, a, 0.5);
  }
  const lnPdf = (a + 0.5) * lnX - logBeta(a, 0.5) - 0.5 * Math.log(df);
  return { lnTail: lnI - Math.LN2, lnCentral: lnJ, lnPdf };
}

function checkDf(df: number): void {
  if (!(df >= 1 && Number.isFinite(df))) {
    throw new RangeError(`df must be a finite number ≥ 1, got ${df}`);
  }
}

/**
 * P(T ≤ t) for Student's t with `df` degrees of freedom (finite df ≥ 1, not necessarily an integer;
 * RangeError otherwise). NaN for NaN t.
 */
export function studentTCdf(t: number, df: number): number {
  checkDf(df);
  if (Number.isNaN(t)) return NaN;
  if (t === 0) return 0.5;
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = Math.exp(logTails(Math.abs(t), df).lnTail);
  return t < 0 ? tail : 1 - tail;
}

/**
 * Standard normal upper-tail quantile, z with Φ(−z) = q for q ∈ (0, ½] (Abramowitz & Stegun 26.2.23,
 * |error| < 4.5e−4): only a starting point for the t quantile's Newton iteration.
 */
function normalUpperQuantileGuess(q: number): number {
  const s = Math.sqrt(-2 * Math.log(q));
  const numerator = 2.515517 + s * (0.802853 + s * 0.010328);
  const denominator = 1 + s * (1.432788 + s * (0.189269 + s * 0.001308));
  return s - numerator / denominator;
}

/**
 * The p-quantile of Student's t with `df` degrees of freedom (finite df ≥ 1, not necessarily an
 * integer): the t with P(T ≤ t) = p, to a relative error of about 1e−15 (a few 1e−14 in the far
 * tails, min(p, 1 − p) < 1e−50); ±Infinity where it exceeds the largest double. Throws RangeError
 * unless 0 < p < 1.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must lie in (0, 1), got ${p}`);
  checkDf(df);
  if (p === 0.5) return 0;
  const sign = p < 0.5 ? -1 : 1;
  const q = p < 0.5 ? p : 1 - p; // exact for p ≥ ½
  // Solve F(t) = 0 on t > 0, with F in logarithms: in the tails ln P(T > t) = ln q; near the centre,
  // where P(T > t) ≈ ½, the accurately computable ln P(|T| < t) = ln(1 − 2q) (1 − 2q is exact here).
  const useTail = q <= 0.25;
  const target = useTail ? Math.log(q) : Math.log(p < 0.5 ? 1 - 2 * p : 2 * p - 1);

  // Starting point: Cornish–Fisher expansion about the normal quantile or, in the heavy tail where it
  // is larger and t² ≫ df, the leading term of P(T > t) ≈ (df/t²)^a / (2a·B(a, ½)).
  const z = normalUpperQuantileGuess(q);
  const z2 = z * z;
  let t = z + (z * (z2 + 1)) / (4 * df) + (z * (3 + z2 * (16 + 5 * z2))) / (96 * df * df);
  if (useTail) {
    const a = df / 2;
    const asymptotic = Math.exp(0.5 * Math.log(df) - (Math.log(2 * a * q) + logBeta(a, 0.5)) / a / 2);
    if (asymptotic > t && asymptotic * asymptotic > 4 * df) t = asymptotic;
    // Only for df near 1 and q near the smallest doubles: the quantile may lie beyond Number.MAX_VALUE.
    if (t > 1e300 && logTails(Number.MAX_VALUE, df).lnTail > target) return sign * Infinity;
  }
  if (!(t > 0 && Number.isFinite(t))) t = Number.MAX_VALUE;

  let low = 0;
  let high = Infinity;
  for (let iteration = 0; iteration < QUANTILE_MAX_ITERATIONS; iteration++) {
    const { lnTail, lnCentral, lnPdf } = logTails(t, df);
    const value = useTail ? lnTail : lnCentral;
    const residual = value - target;
    if (residual === 0) break;
    // F increases with t near the centre, decreases in the tail.
    const tooSmall = useTail ? residual > 0 : residual < 0;
    if (tooSmall) low = t;
    else high = t;
    // Newton in s = ln t: dF/ds = t·dF/dt = ∓ t·f(t)/P (factor 2 for the central probability).
    const lnT = Math.log(t);
    const slope = useTail ? -Math.exp(lnT + lnPdf - lnTail) : 2 * Math.exp(lnT + lnPdf - lnCentral);
    const step = -residual / slope;
    let next = t * Math.exp(step);
    if (!(next > low && next < high && Number.isFinite(next))) {
      if (high === Infinity) next = low * 16;
      else if (low === 0) next = high / 16;
      else next = Math.sqrt(low * high);
    } else if (Math.abs(step) <= NEWTON_TOLERANCE) {
      t = next; // the error left after a Newton step this small is of order step², below ε
      break;
    }
    if (high / low - 1 <= 4 * EPS) break;
    t = next;
  }
  return sign * t;
}
