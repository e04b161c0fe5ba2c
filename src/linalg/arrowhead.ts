/**
 * Eigendecomposition of a real symmetric arrowhead matrix in O(n²):
 *
 *     A = [ diag(δ)  z ]     δ, z ∈ R^r, α ∈ R, order n = r + 1.
 *         [   zᵀ     α ]
 *
 * With distinct δ_i and every z_i ≠ 0 the eigenvalues interlace the δ's (λ_0 > δ_(0) > λ_1 > … >
 * δ_(r−1) > λ_r) and are the roots of the secular equation g(λ) = λ − α − Σ z_i²/(λ − δ_i) = 0; the
 * eigenvector of λ is (z_i/(λ − δ_i) …, 1) normalised. The steps, after Jakovčević Stor, Slapničar and
 * Barlow, "Accurate eigenvalue decomposition of real symmetric arrowhead matrices" (LAA 2015), with
 * the deflation of LAPACK's dlaed2:
 * 1. Deflation: a z_i at rounding level leaves (δ_i, e_i) as an eigenpair; two δ's closer than
 *    rounding level are rotated so that one z vanishes (the rotations are applied to the vectors last).
 * 2. Each root is found relative to its nearer pole (λ = δ_p + τ, so that λ − δ_i = τ − (δ_i − δ_p)
 *    keeps its relative accuracy): between two poles by the two-pole rational model of g fitted to g,
 *    g′ and g″ (Gragg's scheme; Li's "middle way" of LAPACK's dlaed4, fitted to g and g′, where that
 *    one's weights are not positive), outside them by Newton's method on
 *    h(τ) = τ·g(δ_p + τ), which has no pole at τ = 0; safeguarded by bisection of the bracket that
 *    the interlacing gives.
 * 3. Gu–Eisenstat: ẑ with |ẑ_i|² = −Π_j(λ_j − δ_i) / Π_{k≠i}(δ_k − δ_i) makes the computed λ's the
 *    exact eigenvalues of a nearby arrowhead; vectors built from ẑ are orthogonal to working accuracy.
 * The caller's arrays are not modified; all workspace is allocated once, in the constructor.
 */

const EPS = 2 ** -52;
/** Rounding-level tolerance of the deflation, in units of ε·‖A‖ (dlaed2 uses 8). */
const DEFLATION_FACTOR = 8;
const MAX_ITERATIONS = 200;
/** Bound on the rounding error of the secular function, in units of ε·(|τ| + |σ − α| + Σ|z_i²/(λ − δ_i)|) (dlaed4 uses 8). */
const ROUNDING_FACTOR = 8;

/** Reusable workspace for arrowhead eigendecompositions of order ≤ maxN. */
export class ArrowheadEigen {
  readonly maxN: number;
  /** Sorted (descending) order of the diagonal: slot numbers (indices into the caller's δ). */
  private readonly order: Int32Array;
  /** Non-deflated part: diagonal, border and slot of each entry (diagonal strictly decreasing). */
  private readonly activeDiagonal: Float64Array;
  private readonly activeBorder: Float64Array;
  private readonly activeSlot: Int32Array;
  /** Deflated eigenpairs: value and slot (the eigenvector is the slot's unit vector). */
  private readonly deflatedValue: Float64Array;
  private readonly deflatedSlot: Int32Array;
  /** Rotations of the deflation of close δ's: slots (p, i) and (c, s), applied in reverse order. */
  private readonly rotationP: Int32Array;
  private readonly rotationI: Int32Array;
  private readonly rotationC: Float64Array;
  private readonly rotationS: Float64Array;
  /** Roots λ_j = activeDiagonal[origin_j] + offset_j of the secular equation. */
  private readonly rootOrigin: Int32Array;
  private readonly rootOffset: Float64Array;
  /** Gu–Eisenstat border ẑ. */
  private readonly correctedBorder: Float64Array;
  /** Every eigenvalue before sorting, its source (≥ 0: root j; < 0: deflated −1−k), and the sort order. */
  private readonly unsortedValue: Float64Array;
  private readonly source: Int32Array;
  private readonly sorted: Int32Array;
  /** The output columns that hold a root's vector, and that root's offset, pole and squared norm (then 1/norm). */
  private readonly rootColumn: Int32Array;
  private readonly columnOffset: Float64Array;
  private readonly columnPole: Float64Array;
  private readonly columnNormSq: Float64Array;
  /** Sizes found by `deflate`. */
  private activeCount = 0;
  private deflatedCount = 0;
  private rotationCount = 0;
  // Scalars of the current decomposition live in fields, not arguments or return values: V8 boxes a
  // double that crosses a call it does not inline, and this solver runs hundreds of times per
  // divide-and-conquer eigendecomposition.
  /** 1/σ: the problem is solved for A/σ. */
  private inverseScale = 1;
  /** Deflation tolerance, corner α and ‖z‖ of A/σ. */
  private tolerance = 0;
  private corner = 0;
  private borderNorm = 0;
  /** The Newton iteration's start, point τ, bracket (lo, hi), and g, g′ at τ with a bound on g's rounding error. */
  private start = 0;
  private tau = 0;
  private lo = 0;
  private hi = 0;
  private g = 0;
  private dg = 0;
  private gError = 0;
  /** g′'s pole sums split at `secular`'s index `split`: Σ_{i<split} z_i²/(λ − δ_i)², and the rest. */
  private dLow = 0;
  private dHigh = 0;
  /** −g″/2 = Σ z_i²/(λ − δ_i)³. */
  private cube = 0;
  /** The two-pole model c − w_o/τ − w_q/(τ − Δ) of g between the poles δ_origin and δ_other (Δ = δ_other − δ_origin). */
  private modelConstant = 0;
  private originWeight = 0;
  private otherWeight = 0;

  constructor(maxN: number) {
    if (!Number.isInteger(maxN) || maxN < 0) {
      throw new Error(`ArrowheadEigen: maxN must be a non-negative integer, got ${maxN}`);
    }
    this.maxN = maxN;
    this.order = new Int32Array(maxN);
    this.activeDiagonal = new Float64Array(maxN);
    this.activeBorder = new Float64Array(maxN);
    this.activeSlot = new Int32Array(maxN);
    this.deflatedValue = new Float64Array(maxN);
    this.deflatedSlot = new Int32Array(maxN);
    this.rotationP = new Int32Array(maxN);
    this.rotationI = new Int32Array(maxN);
    this.rotationC = new Float64Array(maxN);
    this.rotationS = new Float64Array(maxN);
    this.rootOrigin = new Int32Array(maxN);
    this.rootOffset = new Float64Array(maxN);
    this.correctedBorder = new Float64Array(maxN);
    this.unsortedValue = new Float64Array(maxN);
    this.source = new Int32Array(maxN);
    this.sorted = new Int32Array(maxN);
    this.rootColumn = new Int32Array(maxN);
    this.columnOffset = new Float64Array(maxN);
    this.columnPole = new Float64Array(maxN);
    this.columnNormSq = new Float64Array(maxN);
  }

  /**
   * Eigendecomposition of the arrowhead with diagonal (δ, α) = diagonal[dOff..dOff+r] (the corner α
   * last) and border z = border[zOff..+r): values[0..n) in descending order and `vectors` row-major n×n
   * (ld = n, from vectors[vOff]) with column j the unit eigenvector of values[j]; rows 0..r−1 belong
   * to δ_0..δ_{r−1}, row r to the corner — the layout of SymmetricEigen.decompose on the dense matrix.
   * With `scales`, the columns are left unnormalised and scales[sOff + j] is 1/‖column j‖ (one pass
   * over the vectors fewer, for callers that can fold the scaling into their own products).
   */
  decompose(
    r: number,
    diagonal: Float64Array,
    dOff: number,
    border: Float64Array,
    zOff: number,
    values: Float64Array,
    vectors: Float64Array,
    vOff = 0,
    scales?: Float64Array,
    sOff = 0,
  ): void {
    const n = r + 1;
    if (!Number.isInteger(r) || r < 0 || n > this.maxN) {
      throw new Error(`ArrowheadEigen: order r + 1 = ${n} must be an integer in 1..${this.maxN}`);
    }
    if (values.length < n || vectors.length < vOff + n * n || (scales !== undefined && scales.length < sOff + n)) throw new Error(`ArrowheadEigen: output arrays too short for order ${n}`);
    const corner = diagonal[dOff + r];
    let scale = Math.abs(corner);
    let borderSq = 0;
    for (let i = 0; i < r; i++) {
      const di = diagonal[dOff + i];
      const zi = border[zOff + i];
      if (!Number.isFinite(di) || !Number.isFinite(zi)) throw new Error(`ArrowheadEigen: non-finite entry at index ${i}`);
      scale = Math.max(scale, Math.abs(di));
      borderSq += zi * zi;
    }
    if (!Number.isFinite(corner)) throw new Error('ArrowheadEigen: non-finite corner');
    // Work on A/σ with σ a power of two near ‖A‖ (exact): the products of step 3 then neither
    // underflow nor overflow for entries anywhere in the double range.
    const norm = scale + Math.sqrt(borderSq);
    const sigma = norm > 0 ? 2 ** Math.round(Math.log2(norm)) : 1;
    const inverse = 1 / sigma;
    this.inverseScale = inverse;
    this.borderNorm = Math.sqrt(borderSq) * inverse;
    this.tolerance = DEFLATION_FACTOR * EPS * norm * inverse;
    this.corner = corner * inverse;

    this.deflate(r, diagonal, dOff, border, zOff);
    const { activeCount: active, deflatedCount: deflated, rotationCount: rotations } = this;
    this.solveRoots(active);
    this.correctBorder(active);
    this.writeSorted(n, active, deflated, values, vectors, vOff, scales, sOff);
    for (let j = 0; j < n; j++) values[j] *= sigma;
    // Undo the deflation rotations, last first: slot p held u = c·e_p + s·e_i, slot i held w = −s·e_p + c·e_i.
    for (let k = rotations - 1; k >= 0; k--) {
      const rp = vOff + this.rotationP[k] * n;
      const ri = vOff + this.rotationI[k] * n;
      const c = this.rotationC[k];
      const s = this.rotationS[k];
      for (let col = 0; col < n; col++) {
        const u = vectors[rp + col];
        const w = vectors[ri + col];
        vectors[rp + col] = c * u - s * w;
        vectors[ri + col] = s * u + c * w;
      }
    }
  }

  /** Step 1 on A/σ: fills the active (non-deflated) arrays in descending order, the deflated pairs and the rotations. */
  private deflate(r: number, diagonal: Float64Array, dOff: number, border: Float64Array, zOff: number): void {
    const { order, inverseScale: inverse, tolerance } = this;
    // Insertion sort of the slots by descending δ (stable; the sketch's weights arrive sorted).
    for (let i = 0; i < r; i++) {
      const di = diagonal[dOff + i];
      let j = i - 1;
      while (j >= 0 && diagonal[dOff + order[j]] < di) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
    }
    const ad = this.activeDiagonal;
    const az = this.activeBorder;
    const slots = this.activeSlot;
    let active = 0;
    let deflated = 0;
    let rotations = 0;
    for (let k = 0; k < r; k++) {
      const slot = order[k];
      const d = diagonal[dOff + slot] * inverse;
      const z = border[zOff + slot] * inverse;
      if (Math.abs(z) <= tolerance) {
        this.deflatedValue[deflated] = d;
        this.deflatedSlot[deflated++] = slot;
        continue;
      }
      // |c·s| ≤ ½ below, so only δ's within 2·tolerance of the previous one can deflate.
      if (active > 0 && ad[active - 1] - d <= 2 * tolerance) {
        // Rotate (p, slot) so that slot's border vanishes: u = (z_p e_p + z e_slot)/ρ keeps ρ, w = (−z e_p + z_p e_slot)/ρ gets 0.
        const p = active - 1;
        const zp = az[p];
        const big = Math.max(Math.abs(zp), Math.abs(z));
        const rho = big * Math.sqrt((zp / big) ** 2 + (z / big) ** 2);
        const c = zp / rho;
        const s = z / rho;
        const dp = ad[p];
        if (Math.abs((dp - d) * c * s) <= tolerance) {
          ad[p] = c * c * dp + s * s * d;
          az[p] = rho;
          this.deflatedValue[deflated] = s * s * dp + c * c * d;
          this.deflatedSlot[deflated++] = slot;
          this.rotationP[rotations] = slots[p];
          this.rotationI[rotations] = slot;
          this.rotationC[rotations] = c;
          this.rotationS[rotations++] = s;
          continue;
        }
      }
      ad[active] = d;
      az[active] = z;
      slots[active++] = slot;
    }
    this.activeCount = active;
    this.deflatedCount = deflated;
    this.rotationCount = rotations;
  }

  /**
   * g and g′ at λ = δ_origin + τ (τ = this.tau), every difference λ − δ_i formed as τ − (δ_i − δ_origin),
   * with `split` the number of poles above λ: the terms z_i²/(λ − δ_i) are negative for i < split and
   * positive from it, so each side is summed apart (g′'s too: dLow, dHigh) and Σ|terms| is their difference.
   */
  private secular(active: number, origin: number, split: number): void {
    const ad = this.activeDiagonal;
    const az = this.activeBorder;
    const tau = this.tau;
    const sigma = ad[origin];
    let low = 0;
    let high = 0;
    let dLow = 0;
    let dHigh = 0;
    let cube = 0;
    for (let i = 0; i < split; i++) {
      const inv = 1 / (tau - (ad[i] - sigma));
      const t = az[i] * inv;
      low += az[i] * t;
      dLow += t * t;
      cube += t * t * inv;
    }
    for (let i = split; i < active; i++) {
      const inv = 1 / (tau - (ad[i] - sigma));
      const t = az[i] * inv;
      high += az[i] * t;
      dHigh += t * t;
      cube += t * t * inv;
    }
    this.cube = cube;
    const magnitude = high - low;
    this.g = tau + (sigma - this.corner) - (low + high);
    this.dLow = dLow;
    this.dHigh = dHigh;
    this.dg = 1 + (dLow + dHigh);
    this.gError = ROUNDING_FACTOR * EPS * (Math.abs(tau) + Math.abs(sigma - this.corner) + magnitude);
  }

  /** Step 2: the active + 1 roots, in descending order, each relative to its nearer pole. */
  private solveRoots(active: number): void {
    const ad = this.activeDiagonal;
    const { corner, borderNorm } = this;
    if (active === 0) {
      this.rootOrigin[0] = -1;
      this.rootOffset[0] = corner;
      return;
    }
    for (let j = 0; j <= active; j++) {
      let origin: number;
      if (j === 0) {
        // Above δ_0: Weyl's bound λ_max ≤ max(δ_0, α) + ‖z‖.
        origin = 0;
        this.lo = 0;
        this.hi = Math.max(ad[0], corner) + borderNorm - ad[0];
        this.start = 0.5 * (this.lo + this.hi);
      } else if (j === active) {
        origin = active - 1;
        this.lo = Math.min(ad[active - 1], corner) - borderNorm - ad[active - 1];
        this.hi = 0;
        this.start = 0.5 * (this.lo + this.hi);
      } else {
        // Between δ_j and δ_{j−1}: g is increasing, so the sign of g at the midpoint says which half holds the root.
        const half = 0.5 * (ad[j - 1] - ad[j]);
        this.tau = half;
        this.secular(active, j, j);
        if (this.g >= 0) {
          origin = j;
          this.lo = 0;
          this.hi = half;
        } else {
          origin = j - 1;
          this.lo = -half;
          this.hi = 0;
        }
        const other = origin === j ? j - 1 : j;
        this.modelConstant = this.g;
        const tm = origin === j ? half : -half;
        const fo = origin === j ? this.dHigh : this.dLow;
        const fq = origin === j ? this.dLow : this.dHigh;
        this.originWeight = tm * tm * fo;
        this.otherWeight = (tm - (ad[other] - ad[origin])) ** 2 * (1 + fq);
        this.twoPoleRoot(origin, other, origin === j ? half : -half);
        this.rootOrigin[j] = origin;
        this.rationalOnG(active, origin, other);
        this.rootOffset[j] = this.tau;
        continue;
      }
      this.rootOrigin[j] = origin;
      this.newtonOnH(active, origin, j === 0 ? 0 : active);
      this.rootOffset[j] = this.tau;
    }
  }

  /**
   * this.start ← the root in (lo, hi) of the model c − w_o/τ − w_q/(τ − Δ), Δ = δ_other − δ_origin, that
   * equals g = this.modelConstant at τ (relative to δ_origin), with the weights originWeight and
   * otherWeight; `fallback` if it has none. The roots between poles start from this model fitted at the
   * bracket's midpoint (dlaed4's initial guess freezes w = z² there instead: about one evaluation of g
   * more per root on divide-and-conquer merges).
   */
  private twoPoleRoot(origin: number, other: number, fallback: number, tau = fallback): void {
    const wo = this.originWeight;
    const wq = this.otherWeight;
    const delta = this.activeDiagonal[other] - this.activeDiagonal[origin];
    const c = this.modelConstant + wo / tau + wq / (tau - delta);
    // c τ² − (cΔ + w_o + w_q) τ + w_o Δ = 0, its roots in the form that avoids cancellation.
    const b = c * delta + wo + wq;
    const root = Math.sqrt(b * b - 4 * c * wo * delta);
    const q = b >= 0 ? b + root : b - root;
    const first = q / (2 * c);
    const second = (2 * wo * delta) / q;
    this.start = fallback;
    if (first > this.lo && first < this.hi) this.start = first;
    else if (second > this.lo && second < this.hi) this.start = second;
  }

  /**
   * this.tau ← the root τ ∈ (lo, hi) of g(δ_origin + τ) between the poles δ_origin and δ_other, from
   * this.start: each step solves the two-pole model c − w_o/τ − w_q/(τ − Δ) that matches g, g′ and g″
   * at τ (Gragg's scheme, cubically convergent), or where its weights are not both positive, the one
   * that matches g and g′ with the origin side's pole terms lumped into w_o/τ and the other side's
   * (with g's linear term) into w_q/(τ − Δ) (Li's "middle way", as in LAPACK's dlaed4); a Newton step
   * on h(τ) = τ·g if the model's root leaves the bracket, and bisection if that does too.
   */
  private rationalOnG(active: number, origin: number, other: number): void {
    const split = origin > other ? origin : other;
    const delta = this.activeDiagonal[other] - this.activeDiagonal[origin];
    let lo = this.lo;
    let hi = this.hi;
    let tau = this.start;
    for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      this.tau = tau;
      this.secular(active, origin, split);
      const g = this.g;
      if (Math.abs(g) <= this.gError) return;
      if (g < 0) lo = tau;
      else hi = tau;
      const originSide = origin > other ? this.dHigh : this.dLow;
      const otherSide = origin > other ? this.dLow : this.dHigh;
      const far = tau - delta;
      this.modelConstant = g;
      // Gragg's weights w_o = aτ², w_q = b·far²: a + b = g′ and a/τ + b/far = −g″/2.
      const dg = this.dg;
      const a = (-tau * (this.cube * far - dg)) / delta;
      const b = dg - a;
      if (a > 0 && b > 0) {
        this.originWeight = tau * tau * a;
        this.otherWeight = far * far * b;
      } else {
        this.originWeight = tau * tau * originSide;
        this.otherWeight = far * far * (1 + otherSide);
      }
      this.lo = lo;
      this.hi = hi;
      const h = tau * g;
      const dh = g + tau * this.dg;
      let newton = tau - h / dh;
      if (!(newton > lo && newton < hi)) newton = 0.5 * (lo + hi);
      this.twoPoleRoot(origin, other, newton, tau);
      const next = this.start;
      if (Math.abs(next - tau) <= 2 * EPS * Math.abs(next) || hi - lo <= 2 * EPS * Math.max(Math.abs(lo), Math.abs(hi))) {
        this.tau = next;
        return;
      }
      tau = next;
    }
    this.tau = tau;
  }

  /** this.tau ← the root τ ∈ (lo, hi) of g(δ_origin + τ), by Newton on h(τ) = τ·g from this.start with bisection when a step leaves the bracket. */
  private newtonOnH(active: number, origin: number, split: number): void {
    let lo = this.lo;
    let hi = this.hi;
    let tau = this.start;
    for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      this.tau = tau;
      this.secular(active, origin, split);
      const g = this.g;
      // g is zero to within its rounding error: τ is the root as well as g can tell (dlaed4's test).
      if (Math.abs(g) <= this.gError) return;
      if (g < 0) lo = tau;
      else hi = tau;
      const h = tau * g;
      const dh = g + tau * this.dg;
      let next = tau - h / dh;
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      if (Math.abs(next - tau) <= 2 * EPS * Math.abs(next) || hi - lo <= 2 * EPS * Math.max(Math.abs(lo), Math.abs(hi))) {
        this.tau = next;
        return;
      }
      tau = next;
    }
    this.tau = tau;
  }

  /** Step 3: ẑ_i² = −(λ_i − δ_i)(λ_{i+1} − δ_i) Π_{k<i} (λ_k − δ_i)/(δ_k − δ_i) Π_{k>i} (λ_{k+1} − δ_i)/(δ_k − δ_i). */
  private correctBorder(active: number): void {
    const ad = this.activeDiagonal;
    const origin = this.rootOrigin;
    const offset = this.rootOffset;
    // λ_j − δ_i = offset_j − (δ_i − δ_origin(j)), relative to λ_j's own pole. Past the two factors
    // of λ_i and λ_{i+1}, every |λ_k − δ_i| and |δ_k − δ_i| lies between the deflation gap 2·tolerance
    // and 4 (A/σ has norm ≤ 2), so four of them multiply without underflow or overflow: one division
    // per four factors.
    for (let i = 0; i < active; i++) {
      const di = ad[i];
      let product = -(offset[i] - (di - ad[origin[i]])) * (offset[i + 1] - (di - ad[origin[i + 1]]));
      let k = 0;
      for (; k + 3 < i; k += 4) {
        const num = (offset[k] - (di - ad[origin[k]])) * (offset[k + 1] - (di - ad[origin[k + 1]])) * ((offset[k + 2] - (di - ad[origin[k + 2]])) * (offset[k + 3] - (di - ad[origin[k + 3]])));
        const den = (ad[k] - di) * (ad[k + 1] - di) * ((ad[k + 2] - di) * (ad[k + 3] - di));
        product *= num / den;
      }
      for (; k < i; k++) product *= (offset[k] - (di - ad[origin[k]])) / (ad[k] - di);
      k = i + 1;
      for (; k + 3 < active; k += 4) {
        const num = (offset[k + 1] - (di - ad[origin[k + 1]])) * (offset[k + 2] - (di - ad[origin[k + 2]])) * ((offset[k + 3] - (di - ad[origin[k + 3]])) * (offset[k + 4] - (di - ad[origin[k + 4]])));
        const den = (ad[k] - di) * (ad[k + 1] - di) * ((ad[k + 2] - di) * (ad[k + 3] - di));
        product *= num / den;
      }
      for (; k < active; k++) product *= (offset[k + 1] - (di - ad[origin[k + 1]])) / (ad[k] - di);
      const magnitude = Math.sqrt(Math.max(0, product));
      this.correctedBorder[i] = this.activeBorder[i] < 0 ? -magnitude : magnitude;
    }
  }

  /** Eigenvalues in descending order, and the eigenvectors (before the deflation rotations) into their columns. */
  private writeSorted(
    n: number,
    active: number,
    deflated: number,
    values: Float64Array,
    vectors: Float64Array,
    vOff: number,
    scales: Float64Array | undefined,
    sOff: number,
  ): void {
    const ad = this.activeDiagonal;
    const unsorted = this.unsortedValue;
    const source = this.source;
    let count = 0;
    for (let j = 0; j <= active; j++) {
      unsorted[count] = this.rootOrigin[j] < 0 ? this.rootOffset[j] : ad[this.rootOrigin[j]] + this.rootOffset[j];
      source[count++] = j;
    }
    for (let k = 0; k < deflated; k++) {
      unsorted[count] = this.deflatedValue[k];
      source[count++] = -1 - k;
    }
    const sorted = this.sorted;
    for (let i = 0; i < n; i++) {
      const v = unsorted[i];
      let j = i - 1;
      while (j >= 0 && unsorted[sorted[j]] < v) {
        sorted[j + 1] = sorted[j];
        j--;
      }
      sorted[j + 1] = i;
    }
    const last = n - 1;
    // Every entry is written: the root columns on the active rows and the corner row below; zeros on
    // the deflated rows and in the unit columns.
    for (let k = 0; k < deflated; k++) vectors.fill(0, vOff + this.deflatedSlot[k] * n, vOff + (this.deflatedSlot[k] + 1) * n);
    const rootColumn = this.rootColumn;
    const columnOffset = this.columnOffset;
    const columnPole = this.columnPole;
    const normSq = this.columnNormSq;
    let roots = 0;
    if (scales !== undefined) scales.fill(1, sOff, sOff + n);
    for (let col = 0; col < n; col++) {
      const entry = sorted[col];
      values[col] = unsorted[entry];
      const src = source[entry];
      if (src < 0 || active === 0) {
        for (let row = 0; row < n; row++) vectors[vOff + row * n + col] = 0;
        vectors[vOff + (src < 0 ? this.deflatedSlot[-1 - src] : last) * n + col] = 1;
      } else {
        rootColumn[roots] = col;
        columnOffset[roots] = this.rootOffset[src];
        columnPole[roots] = ad[this.rootOrigin[src]];
        normSq[roots++] = 1;
      }
    }
    if (roots === 0) return;
    // Root j's vector (ẑ_i/(λ_j − δ_i) …, 1), normalised; written a row at a time (row-major memory),
    // each column's squared norm summed over i in order.
    for (let i = 0; i < active; i++) {
      const row = vOff + this.activeSlot[i] * n;
      const zi = this.correctedBorder[i];
      const di = ad[i];
      // Two columns share a division: ẑ_i/x = y·ẑ_i/(xy) (each |λ − δ_i| lies between the smallest
      // root offset and 4, so xy neither underflows nor overflows).
      let q = 0;
      for (; q + 1 < roots; q += 2) {
        const x = columnOffset[q] - (di - columnPole[q]);
        const y = columnOffset[q + 1] - (di - columnPole[q + 1]);
        const r = zi / (x * y);
        const v = y * r;
        const w = x * r;
        vectors[row + rootColumn[q]] = v;
        normSq[q] += v * v;
        vectors[row + rootColumn[q + 1]] = w;
        normSq[q + 1] += w * w;
      }
      for (; q < roots; q++) {
        const v = zi / (columnOffset[q] - (di - columnPole[q]));
        vectors[row + rootColumn[q]] = v;
        normSq[q] += v * v;
      }
    }
    for (let q = 0; q < roots; q++) normSq[q] = 1 / Math.sqrt(normSq[q]);
    if (scales !== undefined) {
      for (let q = 0; q < roots; q++) {
        scales[sOff + rootColumn[q]] = normSq[q];
        vectors[vOff + last * n + rootColumn[q]] = 1;
      }
      return;
    }
    for (let i = 0; i < active; i++) {
      const row = vOff + this.activeSlot[i] * n;
      for (let q = 0; q < roots; q++) vectors[row + rootColumn[q]] *= normSq[q];
    }
    for (let q = 0; q < roots; q++) vectors[vOff + last * n + rootColumn[q]] = normSq[q];
  }
}
