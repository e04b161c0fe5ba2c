/**
 * One unit of an experiment: a fresh policy played against a fresh environment for T rounds.
 * The loop fits on a screen; the environment owns the truth and reports regret.
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

/**
 * Plays `horizon` rounds; `onRound` sees every record (the caller streams them to CSV). When it
 * returns a promise, the next round waits for it, outside the timed sections: the caller yields to
 * the event loop there (a signal handler can run) and stops the trial by rejecting it.
 * A non-finite number anywhere in a round stops the trial with a TrialError.
 */
export async function runTrial(
  environment: Environment,
  policy: Policy,
  horizon: number,
  trial: number,
  onRound: (record: RoundRecord) => Promise<void> | void,
): Promise<TrialSummary> {
  const d = environment.d;
  const played = new Float64Array(d);
  const selectMs = new Float64Array(horizon);
  const updateMs = new Float64Array(horizon);
  let cumRegret = 0;
  const sketched = policy.sketchSize !== undefined;
  for (let t = 1; t <= horizon; t++) {
    let pause: Promise<void> | void;
    try {
      const actions = environment.actions(t);
      // m_t: the sketch this round's decision used (before the update may grow it).
      const m = sketched ? policy.sketchSize!() : null;
      const start = process.hrtime.bigint();
      const action = policy.select(actions, t);
      const selected = process.hrtime.bigint();
      const feedback = environment.play(action);
      const base = action * d;
      for (let j = 0; j < d; j++) played[j] = actions.features[base + j];
      const updateStart = process.hrtime.bigint();
      policy.update(played, feedback.outcome);
      const end = process.hrtime.bigint();
      if (!Number.isFinite(feedback.regret)) throw new Error(`regret is ${feedback.regret}`);
      cumRegret += feedback.regret;
      selectMs[t - 1] = Number(selected - start) / 1e6;
      updateMs[t - 1] = Number(end - updateStart) / 1e6;
      pause = onRound({
        t,
        action,
        outcome: feedback.outcome,
        reward: feedback.reward,
        regret: feedback.regret,
        cumRegret,
        selectMs: selectMs[t - 1],
        updateMs: updateMs[t - 1],
        m,
      });
    } catch (error) {
      throw error instanceof TrialError ? error : new TrialError(policy.name, trial, t, error);
    }
    if (pause !== undefined) await pause;
  }
  const stats = policy.stats();
  const estimate = policy.estimate();
  const meanSelect = mean(selectMs);
  const meanUpdate = mean(updateMs);
  return {
    finalRegret: cumRegret,
    meanSelectMs: meanSelect,
    meanUpdateMs: meanUpdate,
    medianSelectMs: median(selectMs),
    medianUpdateMs: median(updateMs),
    meanRoundMs: meanSelect + meanUpdate,
    stateBytes: stats.stateBytes,
    sketchError: stats.sketchError,
    projections: stats.projections,
    parameterError: environment.parameterError && estimate.length > 0 ? environment.parameterError(estimate) : null,
    deltaT: Number.isFinite(stats.delta) ? stats.delta : null,
    betaT: Number.isFinite(stats.beta) ? stats.beta : null,
    mT: sketched ? policy.sketchSize!() : null,
  };
}
