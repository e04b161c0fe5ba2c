/**
 * One trial of an experiment: fresh policies played against fresh copies of the trial's environment
 * for T rounds. The loop fits on a screen; the environment owns the truth and reports regret.
 *
 * Several policies of one trial play in lock-step (runTrialsInStep), in blocks of LOCK_STEP_ROUNDS
 * rounds: every policy plays block b before any plays block b + 1. Blocks 2s − 1 and 2s run the k
 * policies still playing in one order and then in reverse (turnOrder), the order rotating by one every
 * two blocks: any two policies swap places every second block and each starts as often as the
 * others, so a change of machine state (other work starting, clock scaling) falls on both sides of
 * every paired time ratio within a few blocks. Blocks rather than single rounds: a policy whose round
 * follows another's may find its state pushed out of a core's caches by the other's (OFUL-MLogB's H⁻¹
 * alone is 8d² bytes, more than a 1 MiB L2 from d = 363), and a block pays such a switch once per
 * LOCK_STEP_ROUNDS rounds instead of every round (a precaution: 16 against 1 was not settled by
 * measurement). Each policy has its own environment copy, seeded by
 * the trial alone, so its decisions and records are those it makes alone.
 */
import { EofdError } from '../base/errors.js';
import type { Environment } from '../environments/environment.js';
import type { Policy } from '../policies/policy.js';
import type { RoundRecord, TrialSummary } from '../results/records.js';
import { mean, median } from '../stats/descriptive.js';

/** A policy failure, located by policy, trial and round (exit code 1 at the CLI). */
export class TrialError extends EofdError {
  constructor(policy: string, trial: number, round: number, cause: unknown) {
    super(`${policy}, trial ${trial}, round ${round}: ${cause instanceof Error ? cause.message : String(cause)}`, 1);
  }
}

/** Where a side resumes (a checkpoint, checkpoint.ts): rounds 1..rounds were played, with these regret and times. */
export interface ResumePoint {
  rounds: number;
  cumRegret: number;
  selectMs: Float64Array;
  updateMs: Float64Array;
}

/** One policy's side of a trial: its environment copy, the policy, and where its records go. */
export interface TrialSide {
  environment: Environment;
  policy: Policy;
  /** Sees every record of this side (the caller streams them to CSV); a throw fails this side. */
  onRound(record: RoundRecord): void;
  /** Set when the side continues from a checkpoint: the policy and environment are at round `rounds`. */
  resume?: ResumePoint;
}

/** How one side ended: its summary, or the TrialError that stopped it (the other sides play on). */
export type SideOutcome = { summary: TrialSummary; error: null } | { summary: null; error: TrialError };

/** A side's state between rounds. */
class SidePlay {
  readonly played: Float64Array;
  readonly selectMs: Float64Array;
  readonly updateMs: Float64Array;
  readonly sketched: boolean;
  cumRegret = 0;
  error: TrialError | null = null;

  constructor(
    readonly side: TrialSide,
    horizon: number,
    private readonly trial: number,
  ) {
    this.played = new Float64Array(side.environment.d);
    this.selectMs = new Float64Array(horizon);
    this.updateMs = new Float64Array(horizon);
    this.sketched = side.policy.sketchSize !== undefined;
    const resume = side.resume;
    if (resume !== undefined) {
      this.cumRegret = resume.cumRegret;
      this.selectMs.set(resume.selectMs.subarray(0, resume.rounds));
      this.updateMs.set(resume.updateMs.subarray(0, resume.rounds));
    }
  }

  /** Rounds this side played before this run (0 unless resumed). */
  get resumedRounds(): number {
    return this.side.resume?.rounds ?? 0;
  }

  /** Round t; a non-finite number, or a throw anywhere in it, stops this side with a TrialError. */
  round(t: number): void {
    const { environment, policy } = this.side;
    const d = environment.d;
    try {
      const actions = environment.actions(t);
      // m_t: the sketch this round's decision used (before the update may grow it).
      const m = this.sketched ? policy.sketchSize!() : null;
      const start = process.hrtime.bigint();
      const action = policy.select(actions, t);
      const selected = process.hrtime.bigint();
      const feedback = environment.play(action);
      const base = action * d;
      for (let j = 0; j < d; j++) this.played[j] = actions.features[base + j];
      const updateStart = process.hrtime.bigint();
      policy.update(this.played, feedback.outcome);
      const end = process.hrtime.bigint();
      if (!Number.isFinite(feedback.regret)) throw new Error(`regret is ${feedback.regret}`);
      this.cumRegret += feedback.regret;
      this.selectMs[t - 1] = Number(selected - start) / 1e6;
      this.updateMs[t - 1] = Number(end - updateStart) / 1e6;
      this.side.onRound({
        t,
        action,
        actions: actions.count,
        outcome: feedback.outcome,
        reward: feedback.reward,
        regret: feedback.regret,
        bestReward: feedback.bestReward ?? null,
        cumRegret: this.cumRegret,
        selectMs: this.selectMs[t - 1] as number,
        updateMs: this.updateMs[t - 1] as number,
        m,
      });
    } catch (error) {
      this.error = error instanceof TrialError ? error : new TrialError(policy.name, this.trial, t, error);
    }
  }

  summary(): TrialSummary {
    const { environment, policy } = this.side;
    const stats = policy.stats();
    const estimate = policy.estimate();
    const meanSelect = mean(this.selectMs);
    const meanUpdate = mean(this.updateMs);
    return {
      finalRegret: this.cumRegret,
      meanSelectMs: meanSelect,
      meanUpdateMs: meanUpdate,
      medianSelectMs: median(this.selectMs),
      medianUpdateMs: median(this.updateMs),
      meanRoundMs: meanSelect + meanUpdate,
      stateBytes: stats.stateBytes,
      sketchError: stats.sketchError,
      projections: stats.projections,
      parameterError: environment.parameterError && estimate.length > 0 ? environment.parameterError(estimate) : null,
      deltaT: Number.isFinite(stats.delta) ? stats.delta : null,
      betaT: Number.isFinite(stats.beta) ? stats.beta : null,
      mT: this.sketched ? policy.sketchSize!() : null,
    };
  }
}

/** Rounds a policy plays before the next policy of its trial takes its turn (see the module comment). */
export const LOCK_STEP_ROUNDS = 16;

/** Block b's turn j of k players: rotation ⌊(b − 1)/2⌋ mod k, reversed in even blocks (see the module comment). */
export function turnOrder(b: number, j: number, k: number): number {
  const rotation = Math.floor((b - 1) / 2) % k;
  const place = b % 2 === 1 ? j : k - 1 - j;
  return (rotation + place) % k;
}

/**
 * Plays `horizon` rounds of every side in lock-step, `block` rounds a turn (see the module comment).
 * `between(t)` runs after every round of every side, outside the timed sections, with t the rounds
 * every side has played; when it returns a promise the next round waits for it (the caller yields to
 * the event loop there, and stops the trial by rejecting it). `onTurn(side, t)`, when given, is
 * called as side number `side` starts round t.
 */
export async function runTrialsInStep(
  sides: readonly TrialSide[],
  horizon: number,
  trial: number,
  between?: (t: number) => Promise<void> | void,
  onTurn?: (side: number, t: number) => void,
  block: number = LOCK_STEP_ROUNDS,
): Promise<SideOutcome[]> {
  if (!Number.isInteger(block) || block < 1) throw new RangeError(`block must be an integer ≥ 1, got ${block}`);
  const plays = sides.map((side) => new SidePlay(side, horizon, trial));
  const playing = plays.map((_, i) => i);
  for (let b = 1, first = 1; first <= horizon && playing.length > 0; b++, first += block) {
    const last = Math.min(horizon, first + block - 1);
    const k = playing.length;
    for (let j = 0; j < k; j++) {
      const i = playing[turnOrder(b, j, k)] as number;
      const play = plays[i] as SidePlay;
      for (let t = Math.max(first, play.resumedRounds + 1); t <= last && play.error === null; t++) {
        onTurn?.(i, t);
        play.round(t);
        const pause = between?.(j === k - 1 ? t : first - 1);
        if (pause !== undefined) await pause;
      }
    }
    for (let j = playing.length - 1; j >= 0; j--) if ((plays[playing[j] as number] as SidePlay).error !== null) playing.splice(j, 1);
  }
  return plays.map((play): SideOutcome => (play.error === null ? { summary: play.summary(), error: null } : { summary: null, error: play.error }));
}
