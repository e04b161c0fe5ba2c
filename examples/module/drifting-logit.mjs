/**
 * A multinomial logit environment whose true parameter drifts: eofd's worked example of an environment
 * from a module (docs/policies.md "Environments from a module").
 *
 *   W*_t = cos(ω t) A + sin(ω t) B,   ω = params.drift (radians per round),
 *
 * A and B (K×d) orthogonal with ‖A‖_F = ‖B‖_F = S*, so ‖W*_t‖_F = S* every round: W*_t turns at a
 * constant speed in the plane of A and B (ω = 0: a fixed W*, as the synthetic environment's). Every
 * round offers `actions` actions uniform on the unit sphere, and outcome y of action x has probability
 * σ_y(W*_t x) (eq. (1)); rewards r_k = k/K. Random numbers, all from the trial's stream, in this order:
 * K·d normals for A, then K·d for B (row-wise); each round, d normals per action, then the outcome's
 * uniform u.
 *
 *   environment: {module: drifting-logit.mjs, params: {d: 5, K: 2, drift: 0.002}}
 */
import { LogisticInstance } from 'eofd';

/** K·d standard normals, row-wise. */
function normals(stream, n) {
  return Float64Array.from({ length: n }, () => stream.normal());
}

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function scaleTo(v, norm) {
  const factor = norm / Math.sqrt(dot(v, v));
  for (let i = 0; i < v.length; i++) v[i] *= factor;
}

class DriftingLogit {
  constructor(params, { stream }) {
    const { d, K } = params;
    this.d = d;
    this.K = K;
    this.reward = Float64Array.from({ length: K }, (_, k) => (k + 1) / K); // r_1..r_K (r_0 = 0)
    this.maxActionNorm = 1; // D: actions are unit vectors
    this.stream = stream;
    this.count = params.actions;
    this.drift = params.drift;
    // A, then B made orthogonal to A (Gram–Schmidt), both of norm S*.
    this.a = normals(stream, K * d);
    this.b = normals(stream, K * d);
    const along = dot(this.b, this.a) / dot(this.a, this.a);
    for (let i = 0; i < K * d; i++) this.b[i] -= along * this.a[i];
    scaleTo(this.a, params.norm);
    scaleTo(this.b, params.norm);
    this.weights = new Float64Array(K * d); // W*_t, row-wise
    this.set = { count: this.count, d, features: new Float64Array(this.count * d) };
    // σ(W*x), rᵀσ(W*x), the outcome rule and the regret of the round's actions (it reads this.weights).
    this.instance = new LogisticInstance(this.reward, this.weights, d, this.count);
  }

  actions(t) {
    const { d, stream, set } = this;
    for (let i = 0; i < set.count; i++) stream.unitVector(set.features, i * d, d);
    this.u = stream.uniform();
    const c = Math.cos(this.drift * t);
    const s = Math.sin(this.drift * t);
    for (let i = 0; i < this.weights.length; i++) this.weights[i] = c * this.a[i] + s * this.b[i];
    this.instance.evaluate(set);
    return set;
  }

  play(index) {
    return this.instance.feedback(index, this.u); // {outcome, reward, regret, bestReward}
  }

  /** ‖W − W*_t‖_F against the current round's W*. */
  parameterError(weights) {
    return this.instance.parameterError(weights);
  }
}

export default {
  name: 'drifting-logit',
  summary: 'multinomial logit with W*_t turning at a constant speed, unit-sphere actions',
  params: {
    d: { default: 5, integer: true, min: 1, max: 1000, description: 'dimension of the actions' },
    K: { default: 2, integer: true, min: 1, max: 16, description: 'non-null outcomes (rewards k/K)' },
    actions: { default: 10, integer: true, min: 1, max: 1000, description: 'actions a round' },
    norm: { default: 2, min: 0, description: 'S* = ‖W*_t‖_F' },
    drift: { default: 0.001, min: 0, max: 3.2, description: 'ω: radians W*_t turns a round' },
  },
  create: (params, context) => new DriftingLogit(params, context),
};
