import type { ActionSet } from '../environments/environment.js';
import type { OptionDeclarations, OptionValues } from '../base/options.js';
import type { PolicySpec } from './spec.js';

/** Counters a policy reports about itself (written to summaries and manifests). */
export interface PolicyStats {
  /** Bytes held by the policy's numerical state (typed arrays). */
  stateBytes: number;
  /** ρ_{1:t}: the sketch's accumulated discarded mass (0 for exact policies). */
  sketchError: number;
  /** Rounds in which the projection of eq. (9) was taken. */
  projections: number;
  /** β_t of the most recent selection (NaN before the first, and for policies without one). */
  beta: number;
  /** Δ_t = 1 + ρ_{1:t}/λ (1 for exact policies; NaN for policies without λ). */
  delta: number;
}

/** An online multinomial logistic bandit policy: select, then update with the observed outcome. */
export interface Policy {
  /** As the registry spells it (the paper's spelling: `EOFD-MLogB`). */
  readonly name: string;
  /** Index (0-based) of the action to play in round t (1-based). Ties go to the lowest index. */
  select(actions: ActionSet, t: number): number;
  /** Learns from the played action `x` (length d) and its observed outcome y ∈ {0..K}. */
  update(x: Float64Array, outcome: number): void;
  stats(): PolicyStats;
  /** The current estimate W_t, row-wise vectorised (length Kd); empty for policies without one. */
  estimate(): Float64Array;
  /** m_t: a sketched policy's sketch size in this round (grows under params.m: adaptive); absent for the others. */
  sketchSize?(): number;
  /** A process policy: the mean ms per select and per update its process reports for itself (null: it reports none), apart from the transport. */
  processTime?(): { meanSelectMs: number | null; meanUpdateMs: number | null };
  /** Lets go of what it holds outside this thread (a process policy's process); the runner calls it once, when the unit's rounds end. */
  close?(): void;
}

/**
 * The config's shared `params` keys, in the order the docs list them. A policy reads some of them
 * (`PolicyDescriptor.reads`) and declares its own (`PolicyDescriptor.options`); giving a policy a key
 * it neither reads nor declares is a config error.
 */
export const PARAM_KEYS = ['S', 'l', 'e', 'lambda', 'eta', 'm', 'delta_max', 'beta', 'beta_scale', 'beta_rank', 'sketch', 'delta'] as const;
export type ParamKey = (typeof PARAM_KEYS)[number];

/** A params value a policy cannot work with: the field and why (the descriptor's `rangeProblem`). */
export interface RangeProblem {
  field: ParamKey;
  detail: string;
}

/** The keys that go with λ (l sets it through Section 4's scaling) and with η (e). */
export const REGULARIZATION_KEYS: readonly ParamKey[] = ['S', 'l', 'lambda', 'delta'];
/** β's keys: its mode and its factor. */
export const RADIUS_KEYS: readonly ParamKey[] = ['beta', 'beta_scale'];
/** η's keys. */
export const STEP_KEYS: readonly ParamKey[] = ['e', 'eta'];
/** A sketched policy's keys: m (and an adaptive m's budget), the FD variant, and the rank β uses. */
export const SKETCH_KEYS: readonly ParamKey[] = ['m', 'delta_max', 'sketch', 'beta_rank'];

/** The union of key groups, in PARAM_KEYS order (a descriptor's `reads`). */
export function paramKeys(...groups: (readonly ParamKey[])[]): readonly ParamKey[] {
  return PARAM_KEYS.filter((key) => groups.some((group) => group.includes(key)));
}

/** The size of a problem, as a policy's cost estimates read it. */
export interface ProblemShape {
  /** d */
  d: number;
  /** K */
  K: number;
  /** m (a sketched policy's sketch size, capped at Kd; Kd for exact ones). */
  m: number;
  /** |A_t| */
  actions: number;
  /** The round t (for policies whose cost grows with the history). */
  t: number;
  /** The policy's own keys as resolved (spec.options; absent: their declared defaults). */
  options?: OptionValues;
}

/** What a round costs: O-notation for people, estimates for the bench's caps. */
export interface PolicyCost {
  /** Per-round time, O-notation (README, `eofd list`). */
  readonly round: string;
  /** State, O-notation. */
  readonly memory: string;
  /** Estimated floating-point operations of round t (rare projections excepted). */
  flops(shape: ProblemShape): number;
  /** Estimated bytes of numerical state at round t. */
  bytes(shape: ProblemShape): number;
  /** A rare dense projection (eq. (9)) that the bench times with a probe in which every update projects. */
  readonly probeProjection: boolean;
}

/**
 * A policy as configs, the runner, the bench and `eofd list` know it. Each policy file exports one;
 * registry.ts lists them.
 */
export interface PolicyDescriptor {
  /** The name in configs, CSVs and plots, spelled as the paper spells it. */
  readonly name: string;
  /** One line for `eofd list` and the docs. */
  readonly summary: string;
  /** Where it comes from: authors and year of its paper ('—' for references that have none). */
  readonly reference: string;
  /** Which problems it can play: K = 1 (binary) and K ≥ 2 (multinomial). */
  readonly supports: { readonly binary: boolean; readonly multinomial: boolean };
  /** The config's shared `params` keys it reads (PARAM_KEYS order); an entry giving it a key it neither reads nor declares is refused. */
  readonly reads: readonly ParamKey[];
  /**
   * Its own keys (base/options.ts), each with its default, allowed values and meaning, and whether
   * it is cost-only: taken in `params` and in its entries, resolved into `spec.options`, read through
   * `policyOption`.
   */
  readonly options?: OptionDeclarations;
  /**
   * Its authors' values where they differ from the shared defaults (model/hyperparameters.ts). A value
   * the config gives, in `params` or in the policy's entry, overrides them.
   */
  readonly defaults?: Readonly<Partial<Record<ParamKey, unknown>>>;
  /** The dimension a sketched policy's sketch lives in (Kd for EOFD-MLogB, d for SOFUL): m is capped at it. */
  readonly sketchDimension?: (d: number, K: number) => number;
  /** Draws from its own seeded stream (spec.uniform), which the runner then seeds per trial. */
  readonly needsRandomStream: boolean;
  /** Relative cost per round, to run the slowest units first (a larger rank runs earlier). */
  readonly costRank: number;
  readonly cost: PolicyCost;
  /**
   * Where its hyperparameters lie outside what it computes with in double precision (a λ its Newton
   * system loses, a radius its cap cannot hold, a constant that overflows): the key and why, or null.
   * Run for every policy entry when a config is resolved (experiment/setup.ts), before any unit starts.
   */
  readonly rangeProblem?: (spec: PolicySpec) => RangeProblem | null;
  create(spec: PolicySpec): Policy;
}
