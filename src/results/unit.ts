/**
 * `<policy>/trial-<i>.summary.json`: a finished unit's TrialSummary with its identity and the byte
 * length and SHA-256 of its trial CSV. Written before the CSV gets its final name, so the pair marks a
 * finished unit (read.ts: `readFinishedUnit`, which checks the CSV's content against the hash).
 */
import { z } from 'zod';
import type { TrialSummary } from './records.js';

/** Version tag of a unit's summary file. */
export const UNIT_SUMMARY_FORMAT = 'eofd-unit/2';

export interface UnitSummaryFile {
  format: typeof UNIT_SUMMARY_FORMAT;
  policy: string;
  trial: number;
  horizon: number;
  /** Byte length of the finished trial CSV. */
  bytes: number;
  /** SHA-256 of the finished trial CSV, hex. */
  sha256: string;
  summary: TrialSummary;
  /**
   * A process policy (policies/external): the mean ms per select and per update its process reports
   * spending on its own (its answers' `ms`; null when it reports none), apart from the summary's
   * meanSelectMs and meanUpdateMs, which eofd measures around each message (transport included).
   */
  process?: { meanSelectMs: number | null; meanUpdateMs: number | null };
}

const finite = z.number().refine(Number.isFinite);
const count = z.number().int().min(0);

export const trialSummarySchema = z.object({
  finalRegret: finite,
  meanSelectMs: finite,
  meanUpdateMs: finite,
  medianSelectMs: finite,
  medianUpdateMs: finite,
  meanRoundMs: finite,
  stateBytes: count,
  sketchError: finite,
  projections: count,
  parameterError: finite.nullable(),
  deltaT: finite.nullable(),
  betaT: finite.nullable(),
  mT: z.number().int().min(1).nullable().optional(),
}) satisfies z.ZodType<TrialSummary>;

export const unitSummarySchema = z.object({
  format: z.literal(UNIT_SUMMARY_FORMAT),
  policy: z.string(),
  trial: count,
  horizon: z.number().int().min(1),
  bytes: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  summary: trialSummarySchema,
  process: z.object({ meanSelectMs: finite.nullable(), meanUpdateMs: finite.nullable() }).optional(),
}) satisfies z.ZodType<UnitSummaryFile>;
