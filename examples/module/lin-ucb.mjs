/**
 * LinUCB on the expected reward as a module policy: eofd's worked example of a policy in JavaScript
 * (docs/policies.md). The reward of an action is modelled as linear in its features, r_y ≈ θᵀx; each
 * round plays the action of largest θᵀx + alpha·‖x‖_{A⁻¹} (ties: the lowest index).
 *
 *   policies:
 *     - {module: lin-ucb.mjs, label: LinUCB-js, params: {alpha: 0.5}}
 *
 * `eofd grid --over params.alpha=0.25,0.5,1` tunes it as it tunes a built-in.
 */
class LinUcb {
  constructor(spec, params) {
    const { d } = spec;
    this.name = 'LinUCB-js';
    this.d = d;
    this.alpha = params.alpha;
    this.reward = Float64Array.of(0, ...spec.reward); // r_0..r_K
    this.inverse = new Float64Array(d * d); // A⁻¹, A = ridge·I + Σ xxᵀ
    for (let i = 0; i < d; i++) this.inverse[i * d + i] = 1 / params.ridge;
    this.b = new Float64Array(d);
    this.ax = new Float64Array(d);
  }

  select(actions) {
    const { d, inverse, b, ax } = this;
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < actions.count; i++) {
      const x = actions.features.subarray(i * d, (i + 1) * d);
      let mean = 0;
      let width = 0;
      for (let j = 0; j < d; j++) {
        let row = 0;
        for (let k = 0; k < d; k++) row += inverse[j * d + k] * x[k];
        ax[j] = row;
      }
      for (let j = 0; j < d; j++) {
        let theta = 0;
        for (let k = 0; k < d; k++) theta += inverse[j * d + k] * b[k];
        mean += theta * x[j];
        width += x[j] * ax[j];
      }
      const score = mean + this.alpha * Math.sqrt(width);
      if (score > bestScore) [best, bestScore] = [i, score];
    }
    return best;
  }

  update(x, outcome) {
    // Sherman–Morrison: (A + xxᵀ)⁻¹ from A⁻¹.
    const { d, inverse, ax } = this;
    let denominator = 1;
    for (let j = 0; j < d; j++) {
      let row = 0;
      for (let k = 0; k < d; k++) row += inverse[j * d + k] * x[k];
      ax[j] = row;
      denominator += x[j] * row;
    }
    for (let j = 0; j < d; j++) for (let k = 0; k < d; k++) inverse[j * d + k] -= (ax[j] * ax[k]) / denominator;
    for (let j = 0; j < d; j++) this.b[j] += this.reward[outcome] * x[j];
  }
}

export default {
  name: 'LinUCB-js',
  summary: 'LinUCB on the expected reward rᵀσ(Wx) ≈ θᵀx (a worked example)',
  params: {
    alpha: { default: 1, min: 0, description: 'the width of the confidence bonus' },
    ridge: { default: 1, min: 1e-12, description: 'the ridge regularisation of A' },
  },
  create: (spec, params) => new LinUcb(spec, params),
};
