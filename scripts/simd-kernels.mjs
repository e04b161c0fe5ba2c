/**
 * The WebAssembly SIMD128 kernels of src/linalg/blas.ts, written as WAT text and assembled with wabt.
 *
 * Every kernel computes each output element with exactly the operations, in exactly the order, of its
 * plain-TypeScript twin in blas.ts: vectors run across independent outputs (two columns of C, two rows of
 * A), never along a sum, so the two backends agree bit for bit. Only plain f64x2 mul/add (no FMA, no
 * relaxed SIMD): results are the same on every machine. Pointers are byte addresses into the imported
 * shared memory; leading dimensions are in elements.
 *
 * `node scripts/gen-simd.mjs` writes src/linalg/simd.wat and src/linalg/simd-module.ts; a test checks that
 * both are what this file generates.
 */
import wabtInit from 'wabt';

/** Maximum pages (64 KiB each) of a workspace memory: the whole 32-bit address space. */
export const MAX_PAGES = 65536;

const get = (name) => `(local.get $${name})`;
const set = (name, value) => `(local.set $${name} ${value})`;
const add = (a, b) => `(i32.add ${a} ${b})`;
const bytes = (name) => `(i32.shl ${get(name)} (i32.const 3))`;
const vadd = (a, b) => `(f64x2.add ${a} ${b})`;
const vmul = (a, b) => `(f64x2.mul ${a} ${b})`;
const splat = (address) => `(v128.load64_splat ${address})`;
/** (mem[p0], mem[p1]): two doubles from unrelated addresses. */
const pair = (p0, p1) => `(v128.load64_lane 1 ${p1} (v128.load64_zero ${p0}))`;
const locals = (type, names) => names.map((n) => `(local $${n} ${type})`).join(' ');

/**
 * `for (o = 0; o < end; o += step) body` over byte offsets; `end` is an i32 expression evaluated once
 * into local `$${o}End`.
 */
function loop(o, end, step, body, label) {
  return [
    set(o, '(i32.const 0)'),
    set(`${o}End`, end),
    `(block $${label}_done (br_if $${label}_done (i32.ge_s ${get(o)} ${get(`${o}End`)}))`,
    `  (loop $${label}`,
    ...body.map((line) => `    ${line}`),
    `    ${set(o, add(get(o), `(i32.const ${step})`))}`,
    `    (br_if $${label} (i32.lt_s ${get(o)} ${get(`${o}End`)}))))`,
  ];
}

/** `while (cond) { body }` with the condition tested first. */
function whileLoop(label, exitWhen, body) {
  return [`(block $${label}_done (loop $${label}`, `  (br_if $${label}_done ${exitWhen})`, ...body.map((l) => `  ${l}`), `  (br $${label})))`];
}

/** Σ x_i y_i with blas.ts `dot`'s four accumulators s0..s3 (lanes of s01, s23): (s0 + s1) + (s2 + s3). */
function dotKernel() {
  return `
  (func $dot (export "dot") (param $n i32) (param $x i32) (param $y i32) (result f64)
    ${locals('i32', ['i'])} ${locals('v128', ['s01', 's23'])} ${locals('f64', ['s0'])}
    ${whileLoop('quad', `(i32.ge_s ${add(get('i'), '(i32.const 3)')} ${get('n')})`, [
      set('s01', vadd(get('s01'), vmul(`(v128.load ${get('x')})`, `(v128.load ${get('y')})`))),
      set('s23', vadd(get('s23'), vmul(`(v128.load offset=16 ${get('x')})`, `(v128.load offset=16 ${get('y')})`))),
      set('x', add(get('x'), '(i32.const 32)')),
      set('y', add(get('y'), '(i32.const 32)')),
      set('i', add(get('i'), '(i32.const 4)')),
    ]).join('\n    ')}
    ${set('s0', `(f64x2.extract_lane 0 ${get('s01')})`)}
    ${whileLoop('single', `(i32.ge_s ${get('i')} ${get('n')})`, [
      set('s0', `(f64.add ${get('s0')} (f64.mul (f64.load ${get('x')}) (f64.load ${get('y')})))`),
      set('x', add(get('x'), '(i32.const 8)')),
      set('y', add(get('y'), '(i32.const 8)')),
      set('i', add(get('i'), '(i32.const 1)')),
    ]).join('\n    ')}
    (f64.add
      (f64.add ${get('s0')} (f64x2.extract_lane 1 ${get('s01')}))
      (f64.add (f64x2.extract_lane 0 ${get('s23')}) (f64x2.extract_lane 1 ${get('s23')}))))`;
}

/** y_i = dot(row i of A, x). */
function gemvKernel() {
  return `
  (func (export "gemv") (param $m i32) (param $n i32) (param $a i32) (param $lda i32) (param $x i32) (param $y i32)
    ${locals('i32', ['i', 'ldaBytes'])}
    ${set('ldaBytes', bytes('lda'))}
    ${whileLoop('rows', `(i32.ge_s ${get('i')} ${get('m')})`, [
      `(f64.store ${get('y')} (call $dot ${get('n')} ${get('a')} ${get('x')}))`,
      set('a', add(get('a'), get('ldaBytes'))),
      set('y', add(get('y'), '(i32.const 8)')),
      set('i', add(get('i'), '(i32.const 1)')),
    ]).join('\n    ')}
  )`;
}

/**
 * y += Σ_q coefficient_q · row_q over `rows` (expressions), two columns per vector, then the odd column:
 * y_j + ((c_0 r_0j + c_1 r_1j) + …), the association of blas.ts (`y[j] += x0 * a0 + x1 * a1 + …`).
 * `o`, `oEnd` are byte-offset locals; the row pointers are locals.
 */
function rowCombination(label, n, y, coefficients, rows) {
  const scalarSum = coefficients
    .map((c, q) => `(f64.mul ${get(c)} (f64.load ${add(get(rows[q]), get('o'))}))`)
    .reduce((acc, term) => `(f64.add ${acc} ${term})`);
  const vectorSumAt = (offset) =>
    coefficients
      .map((c, q) => vmul(get(`${c}v`), `(v128.load offset=${offset} ${add(get(rows[q]), get('o'))})`))
      .reduce((acc, term) => vadd(acc, term));
  const updateAt = (offset) =>
    `(v128.store offset=${offset} ${add(get(y), get('o'))} ${vadd(`(v128.load offset=${offset} ${add(get(y), get('o'))})`, vectorSumAt(offset))})`;
  return [
    ...coefficients.map((c) => set(`${c}v`, `(f64x2.splat ${get(c)})`)),
    // Four columns per iteration (two independent vectors), then a last pair, then the odd column.
    ...loop('o', `(i32.shl (i32.and ${n} (i32.const -4)) (i32.const 3))`, 32, [updateAt(0), updateAt(16)], `${label}_quads`),
    `(if (i32.and ${n} (i32.const 2)) (then`,
    `  ${set('o', `(i32.shl (i32.and ${n} (i32.const -4)) (i32.const 3))`)}`,
    `  ${updateAt(0)}))`,
    `(if (i32.and ${n} (i32.const 1)) (then`,
    `  ${set('o', `(i32.shl (i32.sub ${n} (i32.const 1)) (i32.const 3))`)}`,
    `  (f64.store ${add(get(y), get('o'))} (f64.add (f64.load ${add(get(y), get('o'))}) ${scalarSum}))))`,
  ];
}

/** y = Aᵀx, two rows of A per sweep over y (blas.ts `gemvT`). */
function gemvTKernel() {
  return `
  (func (export "gemvT") (param $m i32) (param $n i32) (param $a i32) (param $lda i32) (param $x i32) (param $y i32)
    ${locals('i32', ['i', 'o', 'oEnd', 'r0', 'r1', 'ldaBytes'])} ${locals('f64', ['x0', 'x1'])} ${locals('v128', ['x0v', 'x1v'])}
    ${set('ldaBytes', bytes('lda'))}
    (memory.fill ${get('y')} (i32.const 0) ${bytes('n')})
    ${whileLoop('pairs', `(i32.ge_s ${add(get('i'), '(i32.const 1)')} ${get('m')})`, [
      set('x0', `(f64.load ${add(get('x'), `(i32.shl ${get('i')} (i32.const 3))`)})`),
      set('x1', `(f64.load offset=8 ${add(get('x'), `(i32.shl ${get('i')} (i32.const 3))`)})`),
      set('r0', add(get('a'), `(i32.mul ${get('i')} ${get('ldaBytes')})`)),
      set('r1', add(get('r0'), get('ldaBytes'))),
      ...rowCombination('gemvT2', get('n'), 'y', ['x0', 'x1'], ['r0', 'r1']),
      set('i', add(get('i'), '(i32.const 2)')),
    ]).join('\n    ')}
    (if (i32.lt_s ${get('i')} ${get('m')}) (then
      ${set('x0', `(f64.load ${add(get('x'), `(i32.shl ${get('i')} (i32.const 3))`)})`)}
      ${set('r0', add(get('a'), `(i32.mul ${get('i')} ${get('ldaBytes')})`))}
      ${rowCombination('gemvT1', get('n'), 'y', ['x0'], ['r0']).join('\n      ')}))
  )`;
}

/** y += αx (blas.ts `axpy`: nothing when α = 0). */
function axpyKernel() {
  return `
  (func $axpy (export "axpy") (param $n i32) (param $alpha f64) (param $x i32) (param $y i32)
    ${locals('i32', ['o', 'oEnd'])} ${locals('v128', ['alphav'])}
    (if (f64.eq ${get('alpha')} (f64.const 0)) (then (return)))
    ${rowCombination('axpy', get('n'), 'y', ['alpha'], ['x']).join('\n    ')}
  )`;
}

/** Row i of A += (α x_{i·incx}) y for i < m (blas.ts `ger`: rows whose coefficient is 0 are skipped). */
function gerKernel() {
  return `
  (func (export "ger") (param $m i32) (param $n i32) (param $alpha f64) (param $x i32) (param $incx i32) (param $y i32) (param $a i32) (param $lda i32)
    ${locals('i32', ['i', 'ldaBytes', 'incBytes'])}
    ${set('ldaBytes', bytes('lda'))}
    ${set('incBytes', bytes('incx'))}
    ${whileLoop('rows', `(i32.ge_s ${get('i')} ${get('m')})`, [
      `(call $axpy ${get('n')} (f64.mul ${get('alpha')} (f64.load ${get('x')})) ${get('y')} ${get('a')})`,
      set('x', add(get('x'), get('incBytes'))),
      set('a', add(get('a'), get('ldaBytes'))),
      set('i', add(get('i'), '(i32.const 1)')),
    ]).join('\n    ')}
  )`;
}

/**
 * Micro-tile of the packed gemm kernels: GEMM_MR rows of C × 2·GEMM_NV columns (GEMM_NV vectors of two
 * columns), GEMM_MR·GEMM_NV f64x2 accumulators held in registers over the whole sum.
 */
export const GEMM_MR = 4;
export const GEMM_NV = 2;

const i32c = (v) => `(i32.const ${v})`;
const lt = (a, b) => `(i32.lt_s ${a} ${b})`;
const ge = (a, b) => `(i32.ge_s ${a} ${b})`;
const mul = (a, b) => `(i32.mul ${a} ${b})`;
const minS = (a, b) => `(select ${a} ${b} ${lt(a, b)})`;
/** `value` (an i32 expression) rounded up to a multiple of the constant `step`. */
const roundUp = (value, step) => mul(`(i32.div_u ${add(value, i32c(step - 1))} ${i32c(step)})`, i32c(step));
const inc = (name, step) => set(name, add(get(name), typeof step === 'number' ? i32c(step) : step));

/**
 * Packs `count` rows (A's rows for gemmNT's A and B, gemmNNUpdate's A) or columns (gemmNNUpdate's B) of
 * a source into an interleaved panel: element p of source line q goes to dst + 8·(⌊q/width⌋·width·len +
 * p·width + q mod width), lines from `count` up to the next multiple of `width` are zeros. A line starts
 * at src + q·lineStride and steps by pStride bytes; `scale` (an f64 expression) multiplies each value.
 * Whole groups of `width` lines are copied by vectors: `contiguous` 'p' (each line contiguous, pStride 8:
 * two lines' pairs of elements transposed by shuffles) or 'q' (lineStride 8: a group is `width`
 * consecutive doubles of each step p); the last partial group element by element.
 */
function packPanel(label, { dst, src, count, width, len, lineStride, pStride, scale, contiguous }) {
  const value = `(f64.load ${add(get('pk_s'), mul(get('pk_p'), pStride))})`;
  const scaled = (v) => (scale === undefined ? v : `(f64x2.mul ${get('pk_alpha')} ${v})`);
  const groupBytes = mul(i32c(8 * width), len);
  const whole = [];
  if (contiguous === 'p') {
    // Lines q + t, q + t + 1 for each even t: (x_p, y_p) and (x_p+1, y_p+1) from (x_p, x_p+1), (y_p, y_p+1).
    for (let t = 0; t < width; t += 2) {
      whole.push(
        set('pk_s', add(src, mul(add(get('pk_q'), i32c(t)), lineStride))),
        set('pk_s1', add(get('pk_s'), lineStride)),
        set('pk_d', add(get('pk_g'), i32c(8 * t))),
        set('pk_e', add(get('pk_s'), `(i32.shl (i32.and ${len} (i32.const -2)) (i32.const 3))`)),
        ...whileLoop(`${label}_pairs${t}`, ge(get('pk_s'), get('pk_e')), [
          set('pk_va', scaled(`(v128.load ${get('pk_s')})`)),
          set('pk_vb', scaled(`(v128.load ${get('pk_s1')})`)),
          `(v128.store ${get('pk_d')} (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 ${get('pk_va')} ${get('pk_vb')}))`,
          `(v128.store offset=${8 * width} ${get('pk_d')} (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 ${get('pk_va')} ${get('pk_vb')}))`,
          inc('pk_s', 16),
          inc('pk_s1', 16),
          inc('pk_d', 16 * width),
        ]),
        `(if (i32.and ${len} (i32.const 1)) (then (v128.store ${get('pk_d')} ${scaled(pair(get('pk_s'), get('pk_s1')))})))`,
      );
    }
    whole.unshift(set('pk_g', add(dst, mul(`(i32.div_u ${get('pk_q')} ${i32c(width)})`, groupBytes))));
    whole.push(inc('pk_q', width));
  } else {
    // Step p: the group's `width` doubles from the source row p, to dst + group·width·len + p·width.
    whole.push(
      set('pk_s', add(src, mul(get('pk_p'), pStride))),
      set('pk_d', add(dst, `(i32.shl ${mul(get('pk_p'), i32c(width))} (i32.const 3))`)),
      set('pk_e', add(get('pk_s'), `(i32.shl ${get('pk_qWhole')} (i32.const 3))`)),
      ...whileLoop(`${label}_groups`, ge(get('pk_s'), get('pk_e')), [
        ...Array.from({ length: width / 2 }, (_, v) => `(v128.store offset=${16 * v} ${get('pk_d')} ${scaled(`(v128.load offset=${16 * v} ${get('pk_s')})`)})`),
        inc('pk_s', 8 * width),
        inc('pk_d', groupBytes),
      ]),
      inc('pk_p', 1),
    );
  }
  return [
    ...(scale === undefined ? [] : [set('pk_alpha', `(f64x2.splat ${scale})`)]),
    set('pk_qWhole', mul(`(i32.div_u ${count} ${i32c(width)})`, i32c(width))),
    set('pk_q', i32c(0)),
    set('pk_p', i32c(0)),
    ...(contiguous === 'p'
      ? whileLoop(`${label}_whole`, ge(get('pk_q'), get('pk_qWhole')), whole)
      : [`(if (i32.gt_s ${get('pk_qWhole')} (i32.const 0)) (then`, ...whileLoop(`${label}_steps`, ge(get('pk_p'), len), whole), `))`, set('pk_q', get('pk_qWhole'))]),
    set('pk_qEnd', roundUp(count, width)),
    ...whileLoop(`${label}_lines`, ge(get('pk_q'), get('pk_qEnd')), [
      set('pk_d', add(dst, `(i32.shl (i32.add ${mul(`(i32.div_u ${get('pk_q')} ${i32c(width)})`, mul(i32c(width), len))} (i32.rem_u ${get('pk_q')} ${i32c(width)})) (i32.const 3))`)),
      set('pk_s', add(src, mul(get('pk_q'), lineStride))),
      set('pk_p', i32c(0)),
      `(if ${lt(get('pk_q'), count)} (then`,
      ...whileLoop(`${label}_copy`, ge(get('pk_p'), len), [
        `(f64.store ${add(get('pk_d'), `(i32.shl ${mul(get('pk_p'), i32c(width))} (i32.const 3))`)} ${scale === undefined ? value : `(f64.mul ${scale} ${value})`})`,
        inc('pk_p', 1),
      ]),
      `) (else`,
      ...whileLoop(`${label}_zero`, ge(get('pk_p'), len), [
        `(f64.store ${add(get('pk_d'), `(i32.shl ${mul(get('pk_p'), i32c(width))} (i32.const 3))`)} (f64.const 0))`,
        inc('pk_p', 1),
      ]),
      `))`,
      inc('pk_q', 1),
    ]),
  ];
}

const packLocals = ['pk_q', 'pk_qEnd', 'pk_qWhole', 'pk_d', 'pk_s', 'pk_s1', 'pk_e', 'pk_g', 'pk_p'];
const packVectorLocals = ['pk_va', 'pk_vb', 'pk_alpha'];

/** The accumulators of one micro-tile. */
const tileAcc = (MR, NV) => Array.from({ length: MR * NV }, (_, x) => `s${Math.floor(x / NV)}_${x % NV}`);

/**
 * A micro-tile of C through the staging tile $t (MR × NR doubles at $t): `toTile` the valid elements of
 * C (rows < $rows, columns < $cols, and `keep(r, t)` true) in or out, with `write` (value expression of
 * the C address and the tile address) giving the stored value.
 */
function tileCopy(label, NR, { toC, keep }) {
  const cAddr = add(add(get('c'), mul(add(get('i'), get('tr')), get('ldcBytes'))), `(i32.shl ${add(get('j'), get('tt'))} (i32.const 3))`);
  const tAddr = add(get('t'), `(i32.shl ${add(mul(get('tr'), i32c(NR)), get('tt'))} (i32.const 3))`);
  return [
    set('tr', i32c(0)),
    ...whileLoop(`${label}_r`, ge(get('tr'), get('rows')), [
      set('tt', i32c(0)),
      ...whileLoop(`${label}_t`, ge(get('tt'), get('cols')), [
        `(if ${keep} (then ${toC(cAddr, tAddr)}))`,
        inc('tt', 1),
      ]),
      inc('tr', 1),
    ]),
  ];
}

/**
 * C (=, or += when accumulate) A Bᵀ over `len` columns (blas.ts `gemmNTPanel`): every element is the sum
 * over p in order from 0, then stored or added to C. The sum runs over sub-panels of `kc` terms; between
 * them a tile's partial sums wait in the scratch S (m × nc), stored and reloaded exactly, so the order
 * stays that of one pass. Per sub-panel B's rows are packed by blocks of `nc` into panels of 2·GEMM_NV
 * rows interleaved (two columns of C per vector), A's rows by GEMM_MR (each splatted); tiles are
 * GEMM_MR × 2·GEMM_NV, the edges through a staging tile (for at most two tiles of columns A is read in
 * place, unpacked). The TypeScript's last row when m is odd sums
 * its columns past the last multiple of four by `dot` (four partial sums): so does this kernel.
 * `work` holds (nc rounded up to 2·GEMM_NV, + GEMM_MR)·kc + GEMM_MR·2·GEMM_NV doubles, then S: m rounded
 * up to GEMM_MR × nc rounded up to 2·GEMM_NV.
 */
function gemmNTKernel(MR = GEMM_MR, NV = GEMM_NV) {
  const NR = 2 * NV;
  const acc = tileAcc(MR, NV);
  const sVec = (x) => add(add(get('s'), mul(add(get('i'), i32c(Math.floor(x / NV))), get('sRow'))), add(`(i32.shl (i32.sub ${get('j')} ${get('jc')}) (i32.const 3))`, i32c(16 * (x % NV))));
  // One term per step: B's vectors, then each row's splat of A (`splatA(r)`) times them.
  const step = (label, splatA, advance) => whileLoop(label, ge(get('bp'), get('bpEnd')), [
    ...Array.from({ length: NV }, (_, v) => set(`y${v}`, `(v128.load offset=${16 * v} ${get('bp')})`)),
    ...Array.from({ length: MR }, (_, r) => [
      set('xv', splatA(r)),
      ...Array.from({ length: NV }, (_, v) => set(`s${r}_${v}`, vadd(get(`s${r}_${v}`), vmul(get('xv'), get(`y${v}`))))),
    ]).flat(),
    ...advance,
    inc('bp', 8 * NR),
  ]);
  const micro = [
    `(if ${get('first')} (then`,
    ...acc.map((s) => set(s, '(v128.const f64x2 0 0)')),
    `) (else`,
    ...acc.map((s, x) => set(s, `(v128.load ${sVec(x)})`)),
    `))`,
    set('bp', get('bg')),
    set('bpEnd', add(get('bg'), mul(get('klen'), i32c(8 * NR)))),
    `(if ${get('packA')} (then`,
    set('ap', get('apack')),
    ...step('nt_p', (r) => `(v128.load64_splat offset=${8 * r} ${get('ap')})`, [inc('ap', 8 * MR)]),
    `) (else`,
    ...Array.from({ length: MR }, (_, r) => set(`ar${r}`, get(`ra${r}`))),
    ...step('nt_pd', (r) => `(v128.load64_splat ${get(`ar${r}`)})`, Array.from({ length: MR }, (_, r) => inc(`ar${r}`, 8))),
    `))`,
  ];
  const cVec = (r, v) => add(add(get('c'), mul(add(get('i'), i32c(r)), get('ldcBytes'))), add(`(i32.shl ${get('j')} (i32.const 3))`, i32c(16 * v)));
  const storeFull = (accumulate) => acc.map((s, x) => {
    const address = cVec(Math.floor(x / NV), x % NV);
    return `(v128.store ${address} ${accumulate ? vadd(`(v128.load ${address})`, get(s)) : get(s)})`;
  });
  // The dot-summed elements: row m−1 for odd m, columns from n rounded down to four.
  const special = `(i32.and ${get('mOdd')} (i32.and (i32.eq ${add(get('i'), get('tr'))} (i32.sub ${get('m')} (i32.const 1))) ${ge(add(get('j'), get('tt')), get('n4'))}))`;
  // Whole rows, no dot-summed element, the first `cols` < 2·GEMM_NV columns: vectors, then a lane.
  const storeColumns = acc.map((s, x) => {
    const r = Math.floor(x / NV);
    const v = x % NV;
    const address = cVec(r, v);
    const lane = `(f64x2.extract_lane 0 ${get(s)})`;
    return `(if ${ge(get('cols'), i32c(2 * v + 2))} (then (v128.store ${address} (if (result v128) ${get('accumulate')} (then ${vadd(`(v128.load ${address})`, get(s))}) (else ${get(s)})))) ` +
      `(else (if (i32.eq ${get('cols')} ${i32c(2 * v + 1)}) (then (f64.store ${address} (if (result f64) ${get('accumulate')} (then (f64.add (f64.load ${address}) ${lane})) (else ${lane})))))))`;
  });
  const storeEdge = [
    ...acc.map((s, x) => `(v128.store offset=${16 * x} ${get('t')} ${get(s)})`),
    ...tileCopy('nt_edge', NR, {
      keep: `(i32.eqz ${special})`,
      toC: (cAddr, tAddr) => `(f64.store ${cAddr} (if (result f64) ${get('accumulate')} (then (f64.add (f64.load ${cAddr}) (f64.load ${tAddr}))) (else (f64.load ${tAddr}))))`,
    }),
  ];
  return `
  (func (export "gemmNTPanel") (param $m i32) (param $n i32) (param $len i32) (param $a i32) (param $lda i32) (param $b i32) (param $ldb i32) (param $c i32) (param $ldc i32) (param $accumulate i32) (param $work i32) (param $nc i32) (param $kc i32)
    ${locals('i32', ['i', 'j', 'jc', 'jEnd', 'ncur', 'rows', 'cols', 'jLimit', 'mOdd', 'n4', 'tr', 'tt', 'ldaBytes', 'ldbBytes', 'ldcBytes', 'apack', 'bpack', 't', 's', 'sRow', 'k0', 'klen', 'first', 'last', 'packA', 'ap', 'bp', 'bpEnd', 'bg', ...packLocals, ...Array.from({ length: MR }, (_, r) => [`ra${r}`, `ar${r}`]).flat()])}
    ${locals('v128', ['xv', ...packVectorLocals, ...Array.from({ length: NV }, (_, v) => `y${v}`), ...acc])} ${locals('f64', ['xs'])}
    ${set('ldaBytes', bytes('lda'))} ${set('ldbBytes', bytes('ldb'))} ${set('ldcBytes', bytes('ldc'))}
    ${set('bpack', get('work'))}
    ${set('apack', add(get('work'), `(i32.shl ${mul(roundUp(get('nc'), NR), get('kc'))} (i32.const 3))`))}
    ${set('t', add(get('apack'), `(i32.shl ${mul(i32c(MR), get('kc'))} (i32.const 3))`))}
    ${set('s', add(get('t'), i32c(8 * MR * NR)))}
    ${set('sRow', `(i32.shl ${roundUp(get('nc'), NR)} (i32.const 3))`)}
    ${set('mOdd', `(i32.and ${get('m')} (i32.const 1))`)} ${set('n4', `(i32.and ${get('n')} (i32.const -4))`)}
    ${whileLoop('nt_jc', ge(get('jc'), get('n')), [
      set('ncur', minS(get('nc'), `(i32.sub ${get('n')} ${get('jc')})`)),
      set('jEnd', add(get('jc'), get('ncur'))),
      // A's rows are packed when more than two tiles of columns share them.
      set('packA', `(i32.gt_s ${get('ncur')} ${i32c(2 * NR)})`),
      set('k0', i32c(0)),
      // Sub-panels of kc terms; at least one, so that len = 0 stores zeros.
      `(loop $nt_kc`,
      set('klen', minS(get('kc'), `(i32.sub ${get('len')} ${get('k0')})`)),
      set('first', `(i32.eqz ${get('k0')})`),
      set('last', ge(add(get('k0'), get('klen')), get('len'))),
      ...packPanel('nt_packb', { dst: get('bpack'), src: add(add(get('b'), mul(get('jc'), get('ldbBytes'))), `(i32.shl ${get('k0')} (i32.const 3))`), count: get('ncur'), width: NR, len: get('klen'), lineStride: get('ldbBytes'), pStride: i32c(8), contiguous: 'p' }),
      set('i', i32c(0)),
      ...whileLoop('nt_i', ge(get('i'), get('m')), [
        set('rows', minS(i32c(MR), `(i32.sub ${get('m')} ${get('i')})`)),
        `(if ${get('packA')} (then`,
        ...packPanel('nt_packa', { dst: get('apack'), src: add(add(get('a'), mul(get('i'), get('ldaBytes'))), `(i32.shl ${get('k0')} (i32.const 3))`), count: get('rows'), width: MR, len: get('klen'), lineStride: get('ldaBytes'), pStride: i32c(8), contiguous: 'p' }),
        `) (else`,
        // A's rows read in place; rows past m repeat row m − 1 (their sums are discarded).
        ...Array.from({ length: MR }, (_, r) => set(`ra${r}`, add(add(get('a'), mul(minS(add(get('i'), i32c(r)), `(i32.sub ${get('m')} (i32.const 1))`), get('ldaBytes'))), `(i32.shl ${get('k0')} (i32.const 3))`))),
        `))`,
        // Tiles up to jLimit are whole and hold no dot-summed element.
        set('jLimit', `(if (result i32) ${lt(get('rows'), i32c(MR))} (then (i32.const -1)) (else (if (result i32) (i32.and ${get('mOdd')} ${ge(add(get('i'), i32c(MR)), get('m'))}) (then ${get('n4')}) (else ${get('n')}))))`),
        set('j', get('jc')),
        set('bg', get('bpack')),
        ...whileLoop('nt_j', ge(get('j'), get('jEnd')), [
          ...micro,
          `(if ${get('last')} (then`,
          `(if (i32.and (i32.le_s ${add(get('j'), i32c(NR))} ${get('jLimit')}) (i32.le_s ${add(get('j'), i32c(NR))} ${get('jEnd')})) (then`,
          `  (if ${get('accumulate')} (then ${storeFull(true).join(' ')}) (else ${storeFull(false).join(' ')}))`,
          `) (else`,
          set('cols', minS(i32c(NR), `(i32.sub ${get('jEnd')} ${get('j')})`)),
          `(if (i32.eq ${get('jLimit')} ${get('n')}) (then`,
          ...storeColumns,
          `) (else`,
          ...storeEdge,
          `))`,
          `))`,
          `) (else`,
          ...acc.map((s, x) => `(v128.store ${sVec(x)} ${get(s)})`),
          `))`,
          inc('j', NR),
          inc('bg', mul(get('klen'), i32c(8 * NR))),
        ]),
        inc('i', MR),
      ]),
      inc('k0', get('klen')),
      `(br_if $nt_kc ${lt(get('k0'), get('len'))}))`,
      inc('jc', get('nc')),
    ]).join('\n    ')}
    ;; Row m−1 for odd m, columns n4..n: by dot, as blas.ts.
    (if ${get('mOdd')} (then
      ${set('j', get('n4'))}
      ${whileLoop('nt_dot', ge(get('j'), get('n')), [
        set('bp', add(add(get('c'), mul(`(i32.sub ${get('m')} (i32.const 1))`, get('ldcBytes'))), `(i32.shl ${get('j')} (i32.const 3))`)),
        set('xs', `(call $dot ${get('len')} ${add(get('a'), mul(`(i32.sub ${get('m')} (i32.const 1))`, get('ldaBytes')))} ${add(get('b'), mul(get('j'), get('ldbBytes')))})`),
        `(f64.store ${get('bp')} (if (result f64) ${get('accumulate')} (then (f64.add (f64.load ${get('bp')}) ${get('xs')})) (else ${get('xs')})))`,
        inc('j', 1),
      ]).join('\n      ')}))
  )`;
}

/** Micro-tile of gemmNNUpdate: GEMM_NN_MR rows × 2·GEMM_NN_NV columns. */
export const GEMM_NN_MR = 4;
export const GEMM_NN_NV = 2;

/**
 * C += α A B (blas.ts `gemmNNUpdate`): every element, k in blocks of four, c + (((a0 y0 + a1 y1) + a2 y2)
 * + a3 y3) with a_q = α·A[i, p+q], then single terms c + a·y. A block's sum t is its first product, then
 * gains the other three in an inner loop: a loop rather than unrolled steps keeps V8 from hoisting all
 * four steps' loads (and spilling).
 * B's columns are packed by blocks of `nc` into panels of 2·GEMM_NN_NV (two columns of C per vector), α·A's
 * rows by GEMM_NN_MR; tiles GEMM_NN_MR × 2·GEMM_NN_NV, the edges through a staging tile.
 * `work` holds (nc rounded up to 2·GEMM_NN_NV, + GEMM_NN_MR)·k + GEMM_NN_MR·2·GEMM_NN_NV doubles.
 */
function gemmNNUpdateKernel(MR = GEMM_NN_MR, NV = GEMM_NN_NV) {
  const NR = 2 * NV;
  const sums = tileAcc(MR, NV);
  const row = (r) => `cr${r}`;
  const term = (update) => [
    ...Array.from({ length: NV }, (_, v) => set(`y${v}`, `(v128.load offset=${16 * v} ${get('bp')})`)),
    ...Array.from({ length: MR }, (_, r) => [
      set('xv', `(v128.load64_splat offset=${8 * r} ${get('ap')})`),
      ...Array.from({ length: NV }, (_, v) => update(r, v, vmul(get('xv'), get(`y${v}`)))),
    ]).flat(),
    inc('ap', 8 * MR),
    inc('bp', 8 * NR),
  ];
  const addTo = (r, v, value) => `(v128.store offset=${16 * v} ${get(row(r))} ${vadd(`(v128.load offset=${16 * v} ${get(row(r))})`, value)})`;
  const full = `(i32.and ${`(i32.eq ${get('rows')} ${i32c(MR)})`} ${`(i32.le_s ${add(get('j'), i32c(NR))} ${get('jEnd')})`})`;
  return `
  (func (export "gemmNNUpdate") (param $m i32) (param $n i32) (param $k i32) (param $alpha f64) (param $a i32) (param $lda i32) (param $b i32) (param $ldb i32) (param $c i32) (param $ldc i32) (param $work i32) (param $nc i32)
    ${locals('i32', ['i', 'j', 'jc', 'jEnd', 'ncur', 'rows', 'cols', 'tr', 'tt', 'ldaBytes', 'ldbBytes', 'ldcBytes', 'apack', 'bpack', 't', 'ap', 'bp', 'bpEnd', 'qEnd', 'bg', 'k4', 'cs', ...packLocals, ...Array.from({ length: MR }, (_, r) => row(r))])}
    ${locals('v128', ['xv', ...packVectorLocals, ...Array.from({ length: NV }, (_, v) => `y${v}`), ...sums])}
    ${set('ldaBytes', bytes('lda'))} ${set('ldbBytes', bytes('ldb'))} ${set('ldcBytes', bytes('ldc'))}
    ${set('bpack', get('work'))}
    ${set('apack', add(get('work'), `(i32.shl ${mul(roundUp(get('nc'), NR), get('k'))} (i32.const 3))`))}
    ${set('t', add(get('apack'), `(i32.shl ${mul(i32c(MR), get('k'))} (i32.const 3))`))}
    ${set('k4', `(i32.and ${get('k')} (i32.const -4))`)}
    ${whileLoop('nn_jc', ge(get('jc'), get('n')), [
      set('ncur', minS(get('nc'), `(i32.sub ${get('n')} ${get('jc')})`)),
      set('jEnd', add(get('jc'), get('ncur'))),
      ...packPanel('nn_packb', { dst: get('bpack'), src: add(get('b'), `(i32.shl ${get('jc')} (i32.const 3))`), count: get('ncur'), width: NR, len: get('k'), lineStride: i32c(8), pStride: get('ldbBytes'), contiguous: 'q' }),
      set('i', i32c(0)),
      ...whileLoop('nn_i', ge(get('i'), get('m')), [
        set('rows', minS(i32c(MR), `(i32.sub ${get('m')} ${get('i')})`)),
        ...packPanel('nn_packa', { dst: get('apack'), src: add(get('a'), mul(get('i'), get('ldaBytes'))), count: get('rows'), width: MR, len: get('k'), lineStride: get('ldaBytes'), pStride: i32c(8), scale: get('alpha'), contiguous: 'p' }),
        set('j', get('jc')),
        set('bg', get('bpack')),
        ...whileLoop('nn_j', ge(get('j'), get('jEnd')), [
          // The tile is updated in place in C, or (at the edges) in the staging tile.
          `(if ${full} (then`,
          set(row(0), add(add(get('c'), mul(get('i'), get('ldcBytes'))), `(i32.shl ${get('j')} (i32.const 3))`)),
          set('cs', get('ldcBytes')),
          `) (else`,
          set('cols', minS(i32c(NR), `(i32.sub ${get('jEnd')} ${get('j')})`)),
          `(memory.fill ${get('t')} (i32.const 0) ${i32c(8 * MR * NR)})`,
          ...tileCopy('nn_in', NR, { keep: '(i32.const 1)', toC: (cAddr, tAddr) => `(f64.store ${tAddr} (f64.load ${cAddr}))` }),
          set(row(0), get('t')),
          set('cs', i32c(8 * NR)),
          `))`,
          ...Array.from({ length: MR - 1 }, (_, r) => set(row(r + 1), add(get(row(r)), get('cs')))),
          set('ap', get('apack')),
          set('bp', get('bg')),
          set('bpEnd', add(get('bg'), mul(get('k4'), i32c(8 * NR)))),
          ...whileLoop('nn_quads', ge(get('bp'), get('bpEnd')), [
            ...term((r, v, product) => set(`s${r}_${v}`, product)),
            set('qEnd', add(get('bp'), i32c(24 * NR))),
            `(loop $nn_terms`,
            ...term((r, v, product) => set(`s${r}_${v}`, vadd(get(`s${r}_${v}`), product))).map((l) => `  ${l}`),
            `  (br_if $nn_terms ${lt(get('bp'), get('qEnd'))}))`,
            ...sums.map((s, x) => addTo(Math.floor(x / NV), x % NV, get(s))),
          ]),
          set('bpEnd', add(get('bg'), mul(get('k'), i32c(8 * NR)))),
          ...whileLoop('nn_singles', ge(get('bp'), get('bpEnd')), term(addTo)),
          `(if (i32.eqz ${full}) (then`,
          ...tileCopy('nn_out', NR, { keep: '(i32.const 1)', toC: (cAddr, tAddr) => `(f64.store ${cAddr} (f64.load ${tAddr}))` }),
          `))`,
          inc('j', NR),
          inc('bg', mul(get('k'), i32c(8 * NR))),
        ]),
        inc('i', MR),
      ]),
      inc('jc', get('nc')),
    ]).join('\n    ')}
  )`;
}

/**
 * One pass of eigen.ts `applyRotations` over rows r0, r1, r2 of W (n doubles each; locals $r0..$r2 hold
 * their addresses, $n the row length): `double` applies rotation (c1, s1) to rows (r1, r2), then
 * (c0, s0) to (r0, r1); `single` applies (c0, s0) to rows (r0, r1). Pairs of columns as vectors, an odd
 * last column as scalars; the same products and sums per element as the TypeScript. The caller declares
 * the locals o, oEnd, c0, s0, c1, s1, xf, yf, zf, x1f (f64) and c0v, s0v, c1v, s1v, xv, yv, zv, x1v (v128).
 */
function rotationPasses() {
  const vsub = (a, b) => `(f64x2.sub ${a} ${b})`;
  const fsub = (a, b) => `(f64.sub ${a} ${b})`;
  const fadd = (a, b) => `(f64.add ${a} ${b})`;
  const fmul = (a, b) => `(f64.mul ${a} ${b})`;
  const at = (row, type) => (type === 'v' ? `(v128.load ${add(get(row), get('o'))})` : `(f64.load ${add(get(row), get('o'))})`);
  const store = (row, type, value) => (type === 'v' ? `(v128.store ${add(get(row), get('o'))} ${value})` : `(f64.store ${add(get(row), get('o'))} ${value})`);
  const ops = (type) => (type === 'v' ? { a: vadd, s: vsub, m: vmul, c: (n) => get(`${n}v`) } : { a: fadd, s: fsub, m: fmul, c: (n) => get(n) });
  const double = (type) => {
    const { a, s, m, c } = ops(type);
    const x = `x${type}`;
    const y = `y${type}`;
    const z = `z${type}`;
    const x1 = `x1${type}`;
    return [
      set(x, at('r1', type)),
      set(y, at('r2', type)),
      set(z, at('r0', type)),
      store('r2', type, a(m(c('s1'), get(x)), m(c('c1'), get(y)))),
      set(x1, s(m(c('c1'), get(x)), m(c('s1'), get(y)))),
      store('r1', type, a(m(c('s0'), get(z)), m(c('c0'), get(x1)))),
      store('r0', type, s(m(c('c0'), get(z)), m(c('s0'), get(x1)))),
    ];
  };
  const single = (type) => {
    const { a, s, m, c } = ops(type);
    const x = `x${type}`;
    const y = `y${type}`;
    return [
      set(x, at('r0', type)),
      set(y, at('r1', type)),
      store('r1', type, a(m(c('s0'), get(x)), m(c('c0'), get(y)))),
      store('r0', type, s(m(c('c0'), get(x)), m(c('s0'), get(y)))),
    ];
  };
  const sweep = (body, label) => [
    ...loop('o', `(i32.shl (i32.and ${get('n')} (i32.const -2)) (i32.const 3))`, 16, body('v'), `${label}_pairs`),
    `(if (i32.and ${get('n')} (i32.const 1)) (then`,
    `  ${set('o', `(i32.shl (i32.sub ${get('n')} (i32.const 1)) (i32.const 3))`)}`,
    ...body('f').map((line) => `  ${line}`),
    `))`,
  ];
  /** `double` on the column pairs from byte offset `start` to `end` (i32 expressions, multiples of 16) alone. */
  const doubleColumns = (label, start, end) => [
    set('o', start),
    set('oEnd', end),
    `(block $${label}_done (br_if $${label}_done (i32.ge_s ${get('o')} ${get('oEnd')}))`,
    `  (loop $${label}`,
    ...double('v').map((line) => `    ${line}`),
    `    ${set('o', add(get('o'), '(i32.const 16)'))}`,
    `    (br_if $${label} (i32.lt_s ${get('o')} ${get('oEnd')}))))`,
  ];
  /** `double` on the last column alone when n is odd. */
  const doubleOddColumn = () => [
    `(if (i32.and ${get('n')} (i32.const 1)) (then`,
    `  ${set('o', `(i32.shl (i32.sub ${get('n')} (i32.const 1)) (i32.const 3))`)}`,
    ...double('f').map((line) => `  ${line}`),
    `))`,
  ];
  return { double: (label) => sweep(double, label), single: (label) => sweep(single, label), doubleColumns, doubleOddColumn };
}

/**
 * Rows (i, i+1) of W (n×n) rotated for i = m−1 down to l, two rotations per sweep (eigen.ts
 * `applyRotations`, the QL iteration's eigenvector update): the same products and sums per element.
 */
function rotateRowsKernel() {
  const passes = rotationPasses();
  const load = (array, index) => `(f64.load ${add(get(array), `(i32.shl ${index} (i32.const 3))`)})`;
  const splats = (names) => names.map((n) => set(`${n}v`, `(f64x2.splat ${get(n)})`));
  return `
  (func (export "rotateRows") (param $n i32) (param $w i32) (param $l i32) (param $m i32) (param $rc i32) (param $rs i32)
    ${locals('i32', ['i', 'o', 'oEnd', 'r0', 'r1', 'r2', 'rowBytes'])} ${locals('f64', ['c0', 's0', 'c1', 's1', 'xf', 'yf', 'zf', 'x1f'])}
    ${locals('v128', ['c0v', 's0v', 'c1v', 's1v', 'xv', 'yv', 'zv', 'x1v'])}
    ${set('rowBytes', bytes('n'))}
    ${set('i', `(i32.sub ${get('m')} (i32.const 1))`)}
    ${whileLoop('doubles', `(i32.lt_s (i32.sub ${get('i')} (i32.const 1)) ${get('l')})`, [
      set('c1', load('rc', get('i'))),
      set('s1', load('rs', get('i'))),
      set('c0', load('rc', `(i32.sub ${get('i')} (i32.const 1))`)),
      set('s0', load('rs', `(i32.sub ${get('i')} (i32.const 1))`)),
      ...splats(['c0', 's0', 'c1', 's1']),
      set('r0', add(get('w'), `(i32.mul (i32.sub ${get('i')} (i32.const 1)) ${get('rowBytes')})`)),
      set('r1', add(get('r0'), get('rowBytes'))),
      set('r2', add(get('r1'), get('rowBytes'))),
      ...passes.double('double'),
      set('i', `(i32.sub ${get('i')} (i32.const 2))`),
    ]).join('\n    ')}
    (if (i32.ge_s ${get('i')} ${get('l')}) (then
      ${set('c0', load('rc', get('i')))}
      ${set('s0', load('rs', get('i')))}
      ${splats(['c0', 's0']).join('\n      ')}
      ${set('r0', add(get('w'), `(i32.mul ${get('i')} ${get('rowBytes')})`))}
      ${set('r1', add(get('r0'), get('rowBytes')))}
      ${passes.single('single').join('\n      ')}))
  )`;
}

/** Rows per pass of the accumulation's dot products, even (measured at order 44: 2 rows 16.1 µs, 4 rows 12.7, 6 rows 11.8, 8 rows 12.4). */
const ACCUMULATE_ROWS = 6;

/**
 * eigen.ts `accumulate` (EISPACK tred2's second half: the reflections of `reduce` accumulated into W, then
 * d, e set up for the QL iteration) with the same operations per element: the dot products of
 * ACCUMULATE_ROWS rows (then of pairs) two by two as the lanes of vectors (each a sum in order), the
 * updates and the division by h across k.
 * w: n×n (ld = n); d, e: length n.
 */
function accumulateKernel() {
  const blockRows = Array.from({ length: ACCUMULATE_ROWS }, (_, q) => `r${q}`);
  const chains = Array.from({ length: ACCUMULATE_ROWS / 2 }, (_, q) => `chain${q}`);
  const at = (array, index) => add(get(array), `(i32.shl ${index} (i32.const 3))`);
  const f64 = (address) => `(f64.load ${address})`;
  const row = (r) => `(i32.mul ${r} ${get('rowBytes')})`;
  /** for (k = 0; k < len; k++) body, with pairs of k as vectors then the odd k (bodies get a byte offset local `o`). */
  const acrossK = (label, vectorBody, scalarBody) => [
    ...loop('o', `(i32.shl (i32.and ${get('len')} (i32.const -2)) (i32.const 3))`, 16, vectorBody, `${label}_v`),
    `(if (i32.and ${get('len')} (i32.const 1)) (then`,
    `  ${set('o', `(i32.shl (i32.sub ${get('len')} (i32.const 1)) (i32.const 3))`)}`,
    ...scalarBody.map((l) => `  ${l}`),
    `))`,
  ];
  return `
  (func (export "accumulate") (param $n i32) (param $w i32) (param $d i32) (param $e i32)
    ${locals('i32', ['i', 'j', 'k', 'o', 'oEnd', 'len', 'ri', 'ri1', ...blockRows.slice(2), 'rowBytes'])} ${locals('i32', ['r0', 'r1'])}
    ${locals('f64', ['h', ...blockRows.map((_, q) => `g${q}`)])}
    ${locals('v128', ['hv', 'g', 'u', ...chains, ...blockRows.map((_, q) => `g${q}v`)])}
    ${set('rowBytes', bytes('n'))}
    ${whileLoop('steps', `(i32.ge_s ${get('i')} (i32.sub ${get('n')} (i32.const 1)))`, [
      set('ri', add(get('w'), row(get('i')))),
      set('ri1', add(get('ri'), get('rowBytes'))),
      `(f64.store ${at('ri', `(i32.sub ${get('n')} (i32.const 1))`)} ${f64(at('ri', get('i')))})`,
      `(f64.store ${at('ri', get('i'))} (f64.const 1))`,
      set('h', f64(at('d', add(get('i'), '(i32.const 1)')))),
      `(if (f64.ne ${get('h')} (f64.const 0)) (then`,
      `  ${set('len', add(get('i'), '(i32.const 1)'))}`,
      `  ${set('hv', `(f64x2.splat ${get('h')})`)}`,
      ...acrossK('divide', [
        `(v128.store ${add(get('d'), get('o'))} (f64x2.div (v128.load ${add(get('ri1'), get('o'))}) ${get('hv')}))`,
      ], [`(f64.store ${add(get('d'), get('o'))} (f64.div (f64.load ${add(get('ri1'), get('o'))}) ${get('h')}))`]).map((l) => `  ${l}`),
      `  ${set('j', '(i32.const 0)')}`,
      // ACCUMULATE_ROWS rows per pass: independent chains of dot-product additions, two rows a chain (a
      // pair's chain alone is bound by the addition's latency).
      ...whileLoop('blocks', `(i32.ge_s ${add(get('j'), `(i32.const ${ACCUMULATE_ROWS - 1})`)} ${get('len')})`, [
        set('r0', add(get('w'), row(get('j')))),
        ...blockRows.slice(1).map((r, q) => set(r, add(get(blockRows[q]), get('rowBytes')))),
        ...chains.map((acc) => set(acc, '(v128.const f64x2 0 0)')),
        ...loop('o', `(i32.shl ${get('len')} (i32.const 3))`, 8, [
          set('u', splat(add(get('ri1'), get('o')))),
          ...chains.map((acc, q) => set(acc, vadd(get(acc), vmul(get('u'), pair(add(get(blockRows[2 * q]), get('o')), add(get(blockRows[2 * q + 1]), get('o'))))))),
        ], 'block_dots'),
        ...blockRows.map((_, q) => set(`g${q}v`, `(f64x2.splat (f64x2.extract_lane ${q & 1} ${get(chains[q >> 1])}))`)),
        ...blockRows.map((_, q) => set(`g${q}`, `(f64x2.extract_lane ${q & 1} ${get(chains[q >> 1])})`)),
        ...acrossK('update_block', blockRows.map((r, q) =>
          `(v128.store ${add(get(r), get('o'))} (f64x2.sub (v128.load ${add(get(r), get('o'))}) ${vmul(get(`g${q}v`), `(v128.load ${add(get('d'), get('o'))})`)}))`,
        ), blockRows.map((r, q) =>
          `(f64.store ${add(get(r), get('o'))} (f64.sub (f64.load ${add(get(r), get('o'))}) (f64.mul ${get(`g${q}`)} (f64.load ${add(get('d'), get('o'))}))))`,
        )),
        set('j', add(get('j'), `(i32.const ${ACCUMULATE_ROWS})`)),
      ]).map((l) => `  ${l}`),
      ...whileLoop('pairs', `(i32.ge_s ${add(get('j'), '(i32.const 1)')} ${get('len')})`, [
        set('r0', add(get('w'), row(get('j')))),
        set('r1', add(get('r0'), get('rowBytes'))),
        set('g', '(v128.const f64x2 0 0)'),
        ...loop('o', `(i32.shl ${get('len')} (i32.const 3))`, 8, [
          set('g', vadd(get('g'), vmul(splat(add(get('ri1'), get('o'))), pair(add(get('r0'), get('o')), add(get('r1'), get('o')))))),
        ], 'dots'),
        set('g0v', `(f64x2.splat (f64x2.extract_lane 0 ${get('g')}))`),
        set('g1v', `(f64x2.splat (f64x2.extract_lane 1 ${get('g')}))`),
        set('g0', `(f64x2.extract_lane 0 ${get('g')})`),
        set('g1', `(f64x2.extract_lane 1 ${get('g')})`),
        ...acrossK('update2', [
          `(v128.store ${add(get('r0'), get('o'))} (f64x2.sub (v128.load ${add(get('r0'), get('o'))}) ${vmul(get('g0v'), `(v128.load ${add(get('d'), get('o'))})`)}))`,
          `(v128.store ${add(get('r1'), get('o'))} (f64x2.sub (v128.load ${add(get('r1'), get('o'))}) ${vmul(get('g1v'), `(v128.load ${add(get('d'), get('o'))})`)}))`,
        ], [
          `(f64.store ${add(get('r0'), get('o'))} (f64.sub (f64.load ${add(get('r0'), get('o'))}) (f64.mul ${get('g0')} (f64.load ${add(get('d'), get('o'))}))))`,
          `(f64.store ${add(get('r1'), get('o'))} (f64.sub (f64.load ${add(get('r1'), get('o'))}) (f64.mul ${get('g1')} (f64.load ${add(get('d'), get('o'))}))))`,
        ]),
        set('j', add(get('j'), '(i32.const 2)')),
      ]).map((l) => `  ${l}`),
      `  (if (i32.lt_s ${get('j')} ${get('len')}) (then`,
      `    ${set('r0', add(get('w'), row(get('j'))))}`,
      `    ${set('g0', '(f64.const 0)')}`,
      ...loop('o', `(i32.shl ${get('len')} (i32.const 3))`, 8, [
        set('g0', `(f64.add ${get('g0')} (f64.mul (f64.load ${add(get('ri1'), get('o'))}) (f64.load ${add(get('r0'), get('o'))})))`),
      ], 'dot1').map((l) => `    ${l}`),
      `    ${set('g0v', `(f64x2.splat ${get('g0')})`)}`,
      ...acrossK('update1', [
        `(v128.store ${add(get('r0'), get('o'))} (f64x2.sub (v128.load ${add(get('r0'), get('o'))}) ${vmul(get('g0v'), `(v128.load ${add(get('d'), get('o'))})`)}))`,
      ], [
        `(f64.store ${add(get('r0'), get('o'))} (f64.sub (f64.load ${add(get('r0'), get('o'))}) (f64.mul ${get('g0')} (f64.load ${add(get('d'), get('o'))}))))`,
      ]).map((l) => `    ${l}`),
      `  ))`,
      `))`,
      // for (k = 0; k <= i; k++) w[ri1 + k] = 0
      `(memory.fill ${get('ri1')} (i32.const 0) (i32.shl ${add(get('i'), '(i32.const 1)')} (i32.const 3)))`,
      set('i', add(get('i'), '(i32.const 1)')),
    ]).join('\n    ')}
    ${set('j', '(i32.const 0)')}
    ${whileLoop('last', `(i32.ge_s ${get('j')} ${get('n')})`, [
      set('r0', add(add(get('w'), row(get('j'))), `(i32.shl (i32.sub ${get('n')} (i32.const 1)) (i32.const 3))`)),
      `(f64.store ${at('d', get('j'))} (f64.load ${get('r0')}))`,
      `(f64.store ${get('r0')} (f64.const 0))`,
      set('j', add(get('j'), '(i32.const 1)')),
    ]).join('\n    ')}
    (f64.store ${add(add(get('w'), row(`(i32.sub ${get('n')} (i32.const 1))`)), `(i32.shl (i32.sub ${get('n')} (i32.const 1)) (i32.const 3))`)} (f64.const 1))
    (f64.store ${get('e')} (f64.const 0))
  )`;
}

/** C (m×n, leading dimension ldc) = 0, row by row (blas.ts `gemmNN`'s first step). */
function zeroKernel() {
  return `
  (func (export "zero") (param $m i32) (param $n i32) (param $c i32) (param $ldc i32)
    ${locals('i32', ['i', 'ldcBytes'])}
    ${set('ldcBytes', bytes('ldc'))}
    ${whileLoop('rows', `(i32.ge_s ${get('i')} ${get('m')})`, [
      `(memory.fill ${get('c')} (i32.const 0) ${bytes('n')})`,
      set('c', add(get('c'), get('ldcBytes'))),
      set('i', add(get('i'), '(i32.const 1)')),
    ]).join('\n    ')}
  )`;
}

/**
 * y = A x for A symmetric m×m from its lower triangle (blas.ts `symvLower`): rows r..r+3 per sweep over
 * y[0..r), four columns per iteration, each row's dot with x in the two lanes of one vector (even and
 * odd columns, the TypeScript's two accumulators) and y_k ← (y_k + p01) + p23, the pairs' axpys; then
 * each pair's diagonal entries (and the second pair's columns r, r+1) in the TypeScript's order. A last
 * pair and a last row as two- and one-row sweeps.
 */
function symvLowerKernel() {
  const fadd = (a, b) => `(f64.add ${a} ${b})`;
  const fmul = (a, b) => `(f64.mul ${a} ${b})`;
  const at = (array, index) => add(get(array), `(i32.shl ${index} (i32.const 3))`);
  const yAt = (index) => at('y', index);
  const lanes = (v) => fadd(`(f64x2.extract_lane 0 ${get(v)})`, `(f64x2.extract_lane 1 ${get(v)})`);
  const rowPtr = ['pa', 'pb', 'pc', 'pd'];
  const acc = ['s0', 's1', 's2', 's3'];
  const coef = ['x0', 'x1', 'x2', 'x3'];
  const loaded = ['av', 'bv', 'cv', 'dv'];
  const load = (ptr, off) => `(v128.load offset=${off} ${get(ptr)})`;
  /** Columns (k, k+1) at byte offset `off` of rows q ∈ `qs`: dots, and y's update by pairs of rows. */
  const step = (qs, off) => [
    ...qs.map((q) => set(loaded[q], load(rowPtr[q], off))),
    set('xv', load('px', off)),
    ...qs.map((q) => set(acc[q], vadd(get(acc[q]), vmul(get(loaded[q]), get('xv'))))),
    `(v128.store offset=${off} ${get('py')} ${[0, 2]
      .filter((q) => q < qs.length)
      .map((q) => (qs.length === 1 ? vmul(get(`${coef[qs[q]]}v`), get(loaded[qs[q]])) : vadd(vmul(get(`${coef[qs[q]]}v`), get(loaded[qs[q]])), vmul(get(`${coef[qs[q + 1]]}v`), get(loaded[qs[q + 1]])))))
      .reduce((sum, p) => vadd(sum, p), load('py', off))})`,
  ];
  /** Rows `qs` (pointers set, from row r) over columns [0, r): `step` per `width` columns. */
  const sweep = (qs, width, label) => [
    set('px', get('x')),
    set('py', get('y')),
    set('xEnd', at('x', get('r'))),
    `(block $${label}_done (br_if $${label}_done (i32.ge_u ${get('px')} ${get('xEnd')}))`,
    `  (loop $${label}`,
    ...Array.from({ length: width / 2 }, (_, h) => step(qs, 16 * h)).flat().map((l) => `    ${l}`),
    ...[...qs.map((q) => rowPtr[q]), 'px', 'py'].map((ptr) => `    ${set(ptr, add(get(ptr), `(i32.const ${8 * width})`))}`),
    `    (br_if $${label} (i32.lt_u ${get('px')} ${get('xEnd')}))))`,
  ];
  /** Rows `qs`, the first at row index `row`: pointers at the rows' starts, their coefficients x_row.., zero dots. */
  const start = (qs, row) => [
    ...qs.map((q, i) => set(rowPtr[q], i === 0 ? add(get('a'), `(i32.mul ${row} ${get('ldaBytes')})`) : add(get(rowPtr[qs[i - 1]]), get('ldaBytes')))),
    ...qs.map((q, i) => set(coef[q], `(f64.load offset=${8 * i} ${at('x', row)})`)),
    ...qs.map((q) => set(`${coef[q]}v`, `(f64x2.splat ${get(coef[q])})`)),
    ...qs.map((q) => set(acc[q], '(v128.const f64x2 0 0)')),
  ];
  /** The end of pair (q, q+1) at row index `row`, pointers at its columns `row`: blas.ts `symvPairDiagonal`. */
  const pairDiagonal = (q, row) => [
    set('b', `(f64.load ${get(rowPtr[q + 1])})`),
    `(f64.store ${yAt(row)} ${fadd(lanes(acc[q]), fmul(`(f64.load ${get(rowPtr[q])})`, get(coef[q])))})`,
    `(f64.store ${yAt(row)} ${fadd(`(f64.load ${yAt(row)})`, fmul(get(coef[q + 1]), get('b')))})`,
    `(f64.store ${yAt(add(row, '(i32.const 1)'))} ${fadd(fadd(fadd(`(f64x2.extract_lane 0 ${get(acc[q + 1])})`, fmul(get('b'), `(f64.load ${at('x', row)})`)), `(f64x2.extract_lane 1 ${get(acc[q + 1])})`), fmul(`(f64.load offset=8 ${get(rowPtr[q + 1])})`, get(coef[q + 1])))})`,
  ];
  const r2 = add(get('r'), '(i32.const 2)');
  return `
  (func (export "symvLower") (param $m i32) (param $a i32) (param $lda i32) (param $x i32) (param $y i32)
    ${locals('i32', ['r', 'pa', 'pb', 'pc', 'pd', 'px', 'py', 'xEnd', 'ldaBytes'])} ${locals('f64', ['x0', 'x1', 'x2', 'x3', 'b'])}
    ${locals('v128', ['x0v', 'x1v', 'x2v', 'x3v', 's0', 's1', 's2', 's3', 'av', 'bv', 'cv', 'dv', 'xv'])}
    ${set('ldaBytes', bytes('lda'))}
    ${whileLoop('quads', `(i32.ge_s ${add(get('r'), '(i32.const 3)')} ${get('m')})`, [
      ...start([0, 1, 2, 3], get('r')),
      ...sweep([0, 1, 2, 3], 4, 'symv_quad'),
      ...pairDiagonal(0, get('r')),
      // Rows r+2, r+3 in columns r, r+1: the end of their pair's sweep over y[0..r+2).
      ...step([2, 3], 0),
      set('pc', add(get('pc'), '(i32.const 16)')),
      set('pd', add(get('pd'), '(i32.const 16)')),
      ...pairDiagonal(2, r2),
      set('r', add(get('r'), '(i32.const 4)')),
    ]).join('\n    ')}
    (if (i32.lt_s ${add(get('r'), '(i32.const 1)')} ${get('m')}) (then
      ${[...start([0, 1], get('r')), ...sweep([0, 1], 2, 'symv_pair'), ...pairDiagonal(0, get('r')), set('r', r2)].join('\n      ')}))
    (if (i32.lt_s ${get('r')} ${get('m')}) (then
      ${[...start([0], get('r')), ...sweep([0], 2, 'symv_last')].join('\n      ')}
      (f64.store ${yAt(get('r'))} ${fadd(lanes('s0'), fmul(`(f64.load ${get('pa')})`, get('x0')))})))
  )`;
}

/**
 * One implicit QL sweep of eigen.ts `qlSweep` (EISPACK tql2's inner loop, after the shift): the
 * rotations' recurrence on (d, e) from i = m−1 down to l with tql2's hypot, each pair of rotations
 * applied to rows of W (n×n) as `applyRotations` pairs them (`rotationPasses`), then the sweep's last
 * values into e[l], d[l]. Software-pipelined: a pair's rotations are applied, a quarter of the columns
 * at a time, while the next pair's two recurrence steps (divisions and square roots, independent of W)
 * are in flight; every element of W still sees the rotations in the TypeScript's order, with the same
 * operations.
 */
function qlSweepKernel() {
  const passes = rotationPasses();
  const f = (name) => get(name);
  const fmul = (a, b) => `(f64.mul ${a} ${b})`;
  const fadd = (a, b) => `(f64.add ${a} ${b})`;
  const fsub = (a, b) => `(f64.sub ${a} ${b})`;
  const fdiv = (a, b) => `(f64.div ${a} ${b})`;
  const at = (array, index) => add(get(array), `(i32.shl ${index} (i32.const 3))`);
  const next = add(get('k'), '(i32.const 1)');
  /** √(1 + t²)·big with t = small/big (eigen.ts `hypot`'s branches). */
  const scaled = (big, small) => fmul(f(big), `(f64.sqrt ${fadd('(f64.const 1)', fmul(`(local.tee $t ${fdiv(f(small), f(big))})`, f('t')))})`);
  /** Recurrence step k, up to r = hypot(p, e[k]). */
  const stepToHypot = [
    set('c3', f('c2')),
    set('c2', f('c')),
    set('s2', f('s')),
    set('ei', `(f64.load ${at('e', get('k'))})`),
    set('di', `(f64.load ${at('d', get('k'))})`),
    set('g', fmul(f('c'), f('ei'))),
    set('h', fmul(f('c'), f('p'))),
    set('x', `(f64.abs ${f('p')})`),
    set('y', `(f64.abs ${f('ei')})`),
    set('r', `(if (result f64) (f64.gt ${f('x')} ${f('y')}) (then ${scaled('x', 'y')}) (else (if (result f64) (f64.eq ${f('y')} (f64.const 0)) (then (f64.const 0)) (else ${scaled('y', 'x')}))))`),
  ];
  /** The rest of step k: c, s of rotation k; e[k+1], d[k+1], p updated. */
  const stepFromHypot = [
    `(f64.store ${at('e', next)} ${fmul(f('s'), f('r'))})`,
    set('s', fdiv(f('ei'), f('r'))),
    set('c', fdiv(f('p'), f('r'))),
    set('p', fsub(fmul(f('c'), f('di')), fmul(f('s'), f('g')))),
    `(f64.store ${at('d', next)} ${fadd(f('h'), fmul(f('s'), fadd(fmul(f('c'), f('g')), fmul(f('s'), f('di')))))})`,
  ];
  const splats = (names) => names.map((n) => set(`${n}v`, `(f64x2.splat ${get(n)})`));
  const row = (index) => add(get('w'), `(i32.mul ${index} ${get('rowBytes')})`);
  /**
   * The pending pair's rotations on its column pairs [$b{q}, $b{q+1}) (byte offsets; $b0 = 0, $b4 the
   * last pair's end): a quarter of the columns behind each half of a step, where the rotations overlap
   * the step's divisions and square roots best (measured: after the hypot and after the step).
   */
  const quarter = (q) => [
    `(if ${get('pending')} (then`,
    ...passes.doubleColumns(`ql_quarter${q}`, q === 0 ? '(i32.const 0)' : get(`b${q}`), get(`b${q + 1}`)).map((line) => `  ${line}`),
    `))`,
  ];
  return `
  (func (export "qlSweep") (param $n i32) (param $w i32) (param $d i32) (param $e i32) (param $l i32) (param $m i32)
    ${locals('i32', ['i', 'k', 'o', 'oEnd', 'r0', 'r1', 'r2', 'rowBytes', 'pending', 'pairs', 'b1', 'b2', 'b3', 'b4'])}
    ${locals('f64', ['c1n', 's1n', 'p', 'c', 'c2', 'c3', 's', 's2', 'g', 'h', 'r', 't', 'x', 'y', 'ei', 'di', 'el1', 'dl1', 'c0', 's0', 'c1', 's1', 'xf', 'yf', 'zf', 'x1f'])}
    ${locals('v128', ['c0v', 's0v', 'c1v', 's1v', 'xv', 'yv', 'zv', 'x1v'])}
    ${set('rowBytes', bytes('n'))}
    ${set('dl1', `(f64.load offset=8 ${at('d', get('l'))})`)}
    ${set('el1', `(f64.load offset=8 ${at('e', get('l'))})`)}
    ${set('p', `(f64.load ${at('d', get('m'))})`)}
    ${set('c', '(f64.const 1)')} ${set('c2', '(f64.const 1)')} ${set('c3', '(f64.const 1)')}
    ${set('i', `(i32.sub ${get('m')} (i32.const 1))`)}
    ${set('pairs', `(i32.shr_u ${get('n')} (i32.const 1))`)}
    ${[1, 2, 3, 4].map((q) => set(`b${q}`, `(i32.shl (i32.shr_u (i32.mul ${get('pairs')} (i32.const ${q})) (i32.const 2)) (i32.const 4))`)).join('\n    ')}
    ${whileLoop('ql_pairs', `(i32.lt_s (i32.sub ${get('i')} (i32.const 1)) ${get('l')})`, [
      set('k', get('i')),
      ...stepToHypot,
      ...quarter(0),
      ...stepFromHypot,
      ...quarter(1),
      set('c1n', f('c')),
      set('s1n', f('s')),
      set('k', `(i32.sub ${get('i')} (i32.const 1))`),
      ...stepToHypot,
      ...quarter(2),
      ...stepFromHypot,
      ...quarter(3),
      `(if ${get('pending')} (then`,
      ...passes.doubleOddColumn().map((line) => `  ${line}`),
      `))`,
      set('c1', f('c1n')),
      set('s1', f('s1n')),
      set('c0', f('c')),
      set('s0', f('s')),
      ...splats(['c0', 's0', 'c1', 's1']),
      set('r0', row(`(i32.sub ${get('i')} (i32.const 1))`)),
      set('r1', add(get('r0'), get('rowBytes'))),
      set('r2', add(get('r1'), get('rowBytes'))),
      set('pending', '(i32.const 1)'),
      set('i', `(i32.sub ${get('i')} (i32.const 2))`),
    ]).join('\n    ')}
    (if ${get('pending')} (then
      ${passes.double('ql_double_last').join('\n      ')}))
    (if (i32.ge_s ${get('i')} ${get('l')}) (then
      ${[
        set('k', get('i')),
        ...stepToHypot,
        ...stepFromHypot,
        set('c0', f('c')),
        set('s0', f('s')),
        ...splats(['c0', 's0']),
        set('r0', row(get('i'))),
        set('r1', add(get('r0'), get('rowBytes'))),
        ...passes.single('ql_single'),
      ].join('\n      ')}))
    ${set('p', fdiv(fmul(fmul(fmul(fmul(`(f64.neg ${f('s')})`, f('s2')), f('c3')), f('el1')), `(f64.load ${at('e', get('l'))})`), f('dl1')))}
    (f64.store ${at('e', get('l'))} ${fmul(f('s'), f('p'))})
    (f64.store ${at('d', get('l'))} ${fmul(f('c'), f('p'))})
  )`;
}

/**
 * eigen.ts `reduceUnblocked` (EISPACK tred2's first half, one reflection at a time) with the same
 * operations in the same order: the sums (scale, h, f, and each row's dot with u) in order as scalars
 * or as the two lanes of one vector for a pair of rows, the updates of e and of the trailing block
 * across k as vectors. w: n×n (ld = n); d, e: length n.
 */
function reduceUnblockedKernel() {
  const fadd = (a, b) => `(f64.add ${a} ${b})`;
  const fsub = (a, b) => `(f64.sub ${a} ${b})`;
  const fmul = (a, b) => `(f64.mul ${a} ${b})`;
  const fdiv = (a, b) => `(f64.div ${a} ${b})`;
  const vsub = (a, b) => `(f64x2.sub ${a} ${b})`;
  const i32 = (c) => `(i32.const ${c})`;
  const plus = (a, c) => add(a, i32(c));
  /** Byte address of element `index` (an i32 expression) of the array or row at local `base`. */
  const at = (base, index) => add(get(base), `(i32.shl ${index} (i32.const 3))`);
  const load = (base, index) => `(f64.load ${at(base, index)})`;
  const store = (base, index, value) => `(f64.store ${at(base, index)} ${value})`;
  const vload = (base, index) => `(v128.load ${at(base, index)})`;
  const vstore = (base, index, value) => `(v128.store ${at(base, index)} ${value})`;
  const i = get('i');
  const j = get('j');
  const k = get('k');
  const iMinus1 = `(i32.sub ${i} (i32.const 1))`;
  /** for (k = start; k < i; k++) body, scalar. */
  const scalarLoop = (label, start, body) => [set('k', start), ...whileLoop(label, `(i32.ge_s ${k} ${i})`, [...body, set('k', plus(k, 1))])];
  /** for (k = start; k + 1 < i; k += 2) vectorBody; then k < i: scalarBody. */
  const pairLoop = (label, start, vectorBody, scalarBody) => [
    set('k', start),
    ...whileLoop(label, `(i32.ge_s ${plus(k, 1)} ${i})`, [...vectorBody, set('k', plus(k, 2))]),
    `(if (i32.lt_s ${k} ${i}) (then`,
    ...scalarBody.map((line) => `  ${line}`),
    `))`,
  ];
  const lanes02 = (a, b) => `(i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 ${a} ${b})`;
  const lanes13 = (a, b) => `(i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 ${a} ${b})`;

  // e ← (trailing block)·u, rows j, j+1 per pass (eigen.ts's order within each sum).
  const productPairs = whileLoop('product_pairs', `(i32.ge_s ${plus(j, 1)} ${i})`, [
    set('r0', add(get('w'), `(i32.mul ${j} ${get('rowBytes')})`)),
    set('r1', add(get('r0'), get('rowBytes'))),
    set('f0', load('d', j)),
    set('f1', load('d', plus(j, 1))),
    store('ri', j, get('f0')),
    store('ri', plus(j, 1), get('f1')),
    set('w01', load('r0', plus(j, 1))),
    set('g0', fadd(fadd(load('e', j), fmul(load('r0', j), get('f0'))), fmul(get('w01'), get('f1')))),
    store('e', plus(j, 1), fadd(load('e', plus(j, 1)), fmul(get('w01'), get('f0')))),
    set('g1', fadd(load('e', plus(j, 1)), fmul(load('r1', plus(j, 1)), get('f1')))),
    set('gv', `(f64x2.replace_lane 1 (f64x2.splat ${get('g0')}) ${get('g1')})`),
    set('f0v', `(f64x2.splat ${get('f0')})`),
    set('f1v', `(f64x2.splat ${get('f1')})`),
    ...pairLoop('product_k', plus(j, 2), [
      set('a0v', vload('r0', k)),
      set('a1v', vload('r1', k)),
      set('dv', vload('d', k)),
      vstore('e', k, vadd(vload('e', k), vadd(vmul(get('a0v'), get('f0v')), vmul(get('a1v'), get('f1v'))))),
      set('gv', vadd(get('gv'), vmul(lanes02(get('a0v'), get('a1v')), lanes02(get('dv'), get('dv'))))),
      set('gv', vadd(get('gv'), vmul(lanes13(get('a0v'), get('a1v')), lanes13(get('dv'), get('dv'))))),
    ], [
      set('a0v', `(f64x2.replace_lane 1 (f64x2.splat ${load('r0', k)}) ${load('r1', k)})`),
      set('gv', vadd(get('gv'), vmul(get('a0v'), splat(at('d', k))))),
      store('e', k, fadd(load('e', k), fadd(fmul(`(f64x2.extract_lane 0 ${get('a0v')})`, get('f0')), fmul(`(f64x2.extract_lane 1 ${get('a0v')})`, get('f1'))))),
    ]),
    store('e', j, `(f64x2.extract_lane 0 ${get('gv')})`),
    store('e', plus(j, 1), `(f64x2.extract_lane 1 ${get('gv')})`),
    set('j', plus(j, 2)),
  ]);
  // B ← B − u·eᵀ − e·uᵀ on rows j, j+1 per pass; d[j] then takes row j's entry in column i−1.
  const updatePairs = whileLoop('update_pairs', `(i32.ge_s ${plus(j, 1)} ${i})`, [
    set('r0', add(get('w'), `(i32.mul ${j} ${get('rowBytes')})`)),
    set('r1', add(get('r0'), get('rowBytes'))),
    set('f0', load('d', j)),
    set('g0', load('e', j)),
    set('f1', load('d', plus(j, 1))),
    set('g1', load('e', plus(j, 1))),
    store('r0', j, fsub(load('r0', j), fadd(fmul(get('f0'), load('e', j)), fmul(get('g0'), load('d', j))))),
    set('f0v', `(f64x2.splat ${get('f0')})`),
    set('f1v', `(f64x2.splat ${get('f1')})`),
    set('g0v', `(f64x2.splat ${get('g0')})`),
    set('g1v', `(f64x2.splat ${get('g1')})`),
    ...pairLoop('update_k', plus(j, 1), [
      set('ev', vload('e', k)),
      set('dv', vload('d', k)),
      vstore('r0', k, vsub(vload('r0', k), vadd(vmul(get('f0v'), get('ev')), vmul(get('g0v'), get('dv'))))),
      vstore('r1', k, vsub(vload('r1', k), vadd(vmul(get('f1v'), get('ev')), vmul(get('g1v'), get('dv'))))),
    ], [
      store('r0', k, fsub(load('r0', k), fadd(fmul(get('f0'), load('e', k)), fmul(get('g0'), load('d', k))))),
      store('r1', k, fsub(load('r1', k), fadd(fmul(get('f1'), load('e', k)), fmul(get('g1'), load('d', k))))),
    ]),
    store('d', j, load('r0', iMinus1)),
    store('r0', i, '(f64.const 0)'),
    store('d', plus(j, 1), load('r1', iMinus1)),
    store('r1', i, '(f64.const 0)'),
    set('j', plus(j, 2)),
  ]);
  const steps = whileLoop('steps', `(i32.le_s ${i} (i32.const 0))`, [
    set('ri', add(get('w'), `(i32.mul ${i} ${get('rowBytes')})`)),
    set('scale', '(f64.const 0)'),
    ...scalarLoop('scale', i32(0), [set('scale', fadd(get('scale'), `(f64.abs ${load('d', k)})`))]),
    set('h', '(f64.const 0)'),
    `(if (f64.eq ${get('scale')} (f64.const 0)) (then`,
    ...[
      store('e', i, load('d', iMinus1)),
      set('j', i32(0)),
      ...whileLoop('zero_row', `(i32.ge_s ${j} ${i})`, [
        set('r0', add(get('w'), `(i32.mul ${j} ${get('rowBytes')})`)),
        store('d', j, load('r0', iMinus1)),
        store('r0', i, '(f64.const 0)'),
        store('ri', j, '(f64.const 0)'),
        set('j', plus(j, 1)),
      ]),
    ].map((line) => `  ${line}`),
    `) (else`,
    ...[
      ...scalarLoop('normalize', i32(0), [
        store('d', k, fdiv(load('d', k), get('scale'))),
        set('h', fadd(get('h'), fmul(load('d', k), load('d', k)))),
      ]),
      set('f', load('d', iMinus1)),
      set('g', `(f64.sqrt ${get('h')})`),
      set('g', `(select (f64.neg ${get('g')}) ${get('g')} (f64.gt ${get('f')} (f64.const 0)))`),
      store('e', i, fmul(get('scale'), get('g'))),
      set('h', fsub(get('h'), fmul(get('f'), get('g')))),
      store('d', iMinus1, fsub(get('f'), get('g'))),
      `(memory.fill ${get('e')} (i32.const 0) (i32.shl ${i} (i32.const 3)))`,
      set('j', i32(0)),
      ...productPairs,
      `(if (i32.lt_s ${j} ${i}) (then`,
      `  ${store('ri', j, load('d', j))}`,
      `  ${store('e', j, fadd(load('e', j), fmul(load('w', `(i32.mul ${j} ${plus(get('n'), 1)})`), load('d', j))))}`,
      `))`,
      set('f', '(f64.const 0)'),
      ...scalarLoop('divide', i32(0), [
        store('e', k, fdiv(load('e', k), get('h'))),
        set('f', fadd(get('f'), fmul(load('e', k), load('d', k)))),
      ]),
      set('hh', fdiv(get('f'), fadd(get('h'), get('h')))),
      ...scalarLoop('correct', i32(0), [store('e', k, fsub(load('e', k), fmul(get('hh'), load('d', k))))]),
      set('j', i32(0)),
      ...updatePairs,
      `(if (i32.lt_s ${j} ${i}) (then`,
      `  ${set('r0', add(get('w'), `(i32.mul ${j} ${get('rowBytes')})`))}`,
      `  ${store('r0', j, fsub(load('r0', j), fmul(fmul('(f64.const 2)', load('d', j)), load('e', j))))}`,
      `  ${store('d', j, load('r0', iMinus1))}`,
      `  ${store('r0', i, '(f64.const 0)')}`,
      `))`,
    ].map((line) => `  ${line}`),
    `))`,
    store('d', i, get('h')),
    set('i', iMinus1),
  ]);
  return `
  (func (export "reduceUnblocked") (param $n i32) (param $w i32) (param $d i32) (param $e i32)
    ${locals('i32', ['i', 'j', 'k', 'ri', 'r0', 'r1', 'rowBytes'])}
    ${locals('f64', ['scale', 'h', 'f', 'g', 'hh', 'f0', 'f1', 'g0', 'g1', 'w01'])}
    ${locals('v128', ['gv', 'f0v', 'f1v', 'g0v', 'g1v', 'a0v', 'a1v', 'dv', 'ev'])}
    ${set('rowBytes', bytes('n'))}
    ${set('i', `(i32.sub ${get('n')} (i32.const 1))`)}
    (memory.copy ${get('d')} ${add(get('w'), `(i32.mul ${get('i')} ${get('rowBytes')})`)} ${get('rowBytes')})
    ${steps.join('\n    ')}
  )`;
}

/** The module's WAT text. */
export function kernelsWat() {
  return `;; Generated by scripts/gen-simd.mjs from scripts/simd-kernels.mjs. Do not edit.
(module
  (import "env" "memory" (memory 1 ${MAX_PAGES} shared))
${[dotKernel(), gemvKernel(), gemvTKernel(), axpyKernel(), gerKernel(), gemmNNUpdateKernel(), gemmNTKernel(), rotateRowsKernel(), accumulateKernel(), zeroKernel(), symvLowerKernel(), qlSweepKernel(), reduceUnblockedKernel()].join('\n')}
)
`;
}

/**
 * The module's bytes, assembled by wabt (SIMD and threads for the shared memory; no relaxed SIMD).
 * wabt's validator rejects shared memories whatever its feature flags; `new WebAssembly.Module` validates.
 */
export async function assemble(wat) {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('simd.wat', wat, { simd: true, threads: true, bulk_memory: true });
  try {
    return new Uint8Array(parsed.toBinary({ log: false, write_debug_names: false }).buffer);
  } finally {
    parsed.destroy();
  }
}
