/** One round's candidate actions: `count` rows of `d` features, row-major in `features`. */
export interface ActionSet {
  readonly count: number;
  readonly d: number;
  /** Row i (0-based) is action i: features[i·d .. (i+1)·d). Length ≥ count·d. */
  readonly features: Float64Array;
}

/** What the environment returns after an action is played. */
export interface Feedback {
  /** Observed outcome y ∈ {0..K}; 0 is the null outcome (r_0 = 0). */
  readonly outcome: number;
  /** Realised reward r_y. */
  readonly reward: number;
  /** Pseudo-regret of the round, eq. (2): max_x rᵀσ(W*x) − rᵀσ(W*x_t) (MNIST: 1 − reward). */
  readonly regret: number;
}

/**
 * A bandit environment. It owns the truth (W*, the outcome stream); policies only see actions and
 * outcomes. Rounds are taken in order: `actions(t)` then `play(i)`, for t = 1, 2, …
 */
export interface Environment {
  /** Feature dimension d. */
  readonly d: number;
  /** Number of non-null outcomes K. */
  readonly K: number;
  /** Rewards r_1..r_K of the non-null outcomes (r_0 = 0 is implicit). */
  readonly reward: Float64Array;
  /** D: an upper bound on every action's Euclidean norm (Assumption 1). */
  readonly maxActionNorm: number;
  /** Number of rounds this environment can produce (Infinity when unbounded). */
  readonly horizon: number;
  /** The candidate actions of round t (1-based). Valid until the next call. */
  actions(t: number): ActionSet;
  /** Plays action `index` of the current round and samples the outcome (DESIGN §1 outcome rule). */
  play(index: number): Feedback;
  /** ‖W − W*‖_F for a parameter in row-wise vectorisation, when W* is known. */
  parameterError?(weights: Float64Array): number;
}
