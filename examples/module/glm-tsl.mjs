/**
 * GLM-TSL (Kveton, Zaheer, Szepesvári, Li, Ghavamzadeh and Boutilier, AISTATS 2020, "Randomized
 * exploration in generalized linear bandits", Alg. 1), for the multinomial logit model: each round,
 *   θ̂ = the regularised maximum-likelihood estimate,  H = ∇²L(θ̂) = λI + Σ_s ∇σ(θ̂x_s) ⊗ x_s x_sᵀ,
 *   θ̃ ~ N(θ̂, a²H⁻¹) (the Laplace approximation of the posterior),
 * and plays argmax_x rᵀσ(θ̃x) (ties: the lowest index). K = 1 is their logistic bandit.
 * eofd's worked example of a GLM-family policy from the policy kit (docs/policies.md): the kit's
 * RegularizedMle stores the history, fits θ̂ and factors H; the rest is this page.
 *
 *   policies:
 *     - {module: glm-tsl.mjs, label: GLM-TSL, params: {a: 0.5}}
 */
import { RegularizedMle } from 'eofd';

class GlmTsl {
  constructor(spec, params) {
    const { d, K } = spec;
    this.name = 'GLM-TSL';
    this.d = d;
    this.K = K;
    this.a = params.a;
    this.lambda = spec.regularization; // λ, the config's (params.lambda, or Section 4's scaling)
    this.uniform = spec.uniform; // seeded per trial and label (needsRandomStream)
    this.reward = spec.reward; // r_1..r_K (r_0 = 0)
    this.mle = new RegularizedMle(K, d);
    this.theta = new Float64Array(K * d); // θ̂, row-wise: θ_i = entries i·d … i·d + d − 1
    this.sample = new Float64Array(K * d); // θ̃
    this.logits = new Float64Array(K);
  }

  /** A standard normal from the policy's seeded uniform stream (Box–Muller, one of the pair). */
  normal() {
    const u = 1 - this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }

  select(actions) {
    const { d, K, sample, logits } = this;
    const n = K * d;
    // θ̃ = θ̂ + a·L⁻ᵀz with H = LLᵀ (the kit's factor, lower, row-major) and z ~ N(0, I): Cov = a²H⁻¹.
    this.mle.factorAt(this.theta, this.lambda, this.name);
    const L = this.mle.factor;
    for (let j = 0; j < n; j++) sample[j] = this.normal();
    for (let j = n - 1; j >= 0; j--) {
      let s = sample[j];
      for (let k = j + 1; k < n; k++) s -= L[k * n + j] * sample[k];
      sample[j] = s / L[j * n + j];
    }
    for (let j = 0; j < n; j++) sample[j] = this.theta[j] + this.a * sample[j];
    // argmax rᵀσ(θ̃x), σ the softmax with the null outcome's logit 0.
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < actions.count; i++) {
      let top = 0;
      for (let k = 0; k < K; k++) {
        let z = 0;
        for (let j = 0; j < d; j++) z += sample[k * d + j] * actions.features[i * d + j];
        logits[k] = z;
        top = Math.max(top, z);
      }
      let total = Math.exp(-top);
      let weighted = 0;
      for (let k = 0; k < K; k++) {
        const e = Math.exp(logits[k] - top);
        total += e;
        weighted += this.reward[k] * e;
      }
      if (weighted / total > bestScore) [best, bestScore] = [i, weighted / total];
    }
    return best;
  }

  update(x, outcome) {
    this.mle.add(x, outcome);
    this.mle.fit(this.theta, this.lambda, 'gradient', this.name); // warm-started at the last θ̂
  }

  estimate() {
    return this.theta;
  }
}

export default {
  name: 'GLM-TSL',
  summary: 'Thompson sampling from the Laplace approximation N(θ̂, a²H⁻¹) (Kveton et al., 2020)',
  needsRandomStream: true,
  params: { a: { default: 1, min: 0, description: 'the scale of the posterior sample (their a)' } },
  create: (spec, params) => new GlmTsl(spec, params),
};
