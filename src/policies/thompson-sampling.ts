/**
 * The Thompson-sampling rule shared by TS-MLogB and EOFD-TS: each round draw ξ ~ N(0, I_Kd) from the
 * policy's own seeded stream (Box–Muller of random/stream.ts), form W̃ = W_t + √β_t R ξ with the
 * policy's square root R of its curvature matrix's inverse (`perturbation`), and play the action of
 * largest expected reward rᵀσ(W̃x) (`OptimisticSelector.greedy`; K = 1: w̃ᵀx). W_t, its update and β_t
 * are the wrapped optimistic policy's (`core`).
 */
import type { ActionSet } from '../environments/environment.js';
import type { Workspace } from '../linalg/simd.js';
import { FunctionUniformStream } from '../random/stream.js';
import { assertFiniteActions } from './kit/checks.js';
import { OptimisticSelector } from './kit/optimistic-selector.js';
import type { Policy, PolicyStats } from './policy.js';
import type { PolicySpec } from './spec.js';

/** An optimistic policy whose estimate, update and β_t a Thompson-sampling policy reuses. */
export interface SampledCore extends Policy {
  /** β_t of round t (recorded in the core's stats). */
  confidenceRadius(t: number): number;
  /** Rounds in which the projection of eq. (9) was taken (the bench's projection probe reads it). */
  readonly projectionsTaken: number;
}

export abstract class ThompsonSampling<Core extends SampledCore> implements Policy {
  abstract readonly name: string;
  /** The wrapped policy: W_t, its update, β_t. */
  readonly core: Core;
  /** W̃ of the latest `select` (row-wise vectorised). */
  readonly sample: Float64Array;
  protected readonly dimension: number;
  private readonly normals: FunctionUniformStream;
  private readonly selector: OptimisticSelector;
  private readonly noise: Float64Array;

  /** `space`: where W̃ and ξ live (the core's workspace, so that products over its state run on its kernels). */
  constructor(core: Core, spec: PolicySpec, name: string, space: Workspace | null) {
    if (spec.uniform === undefined) throw new RangeError(`${name}: a seeded uniform stream (spec.uniform) is required`);
    this.core = core;
    this.dimension = spec.K * spec.d;
    this.normals = new FunctionUniformStream(spec.uniform);
    this.selector = new OptimisticSelector(spec.K, spec.d, spec.reward, space);
    this.sample = space?.float64(this.dimension) ?? new Float64Array(this.dimension);
    this.noise = space?.float64(this.dimension) ?? new Float64Array(this.dimension);
  }

  /** out = √β R ξ: the linear map ξ ↦ W̃ − W_t of a draw (covariance β R Rᵀ). */
  abstract perturbation(beta: number, xi: Float64Array, out: Float64Array): void;

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    const n = this.dimension;
    for (let i = 0; i < n; i++) this.noise[i] = this.normals.normal();
    this.perturbation(this.core.confidenceRadius(t), this.noise, this.sample);
    const estimate = this.core.estimate();
    for (let i = 0; i < n; i++) this.sample[i] += estimate[i];
    return this.selector.greedy(actions, this.sample);
  }

  update(x: Float64Array, outcome: number): void {
    this.core.update(x, outcome);
  }

  /** The core's stats, with the sampler's own arrays (`extraBytes`) added to its state. */
  protected statsWith(extraBytes: number): PolicyStats {
    const core = this.core.stats();
    return { ...core, stateBytes: core.stateBytes + extraBytes + 2 * this.sample.byteLength };
  }

  abstract stats(): PolicyStats;

  estimate(): Float64Array {
    return this.core.estimate();
  }

  /** The core's projection count (a cheap counter for the bench). */
  get projectionsTaken(): number {
    return this.core.projectionsTaken;
  }
}
