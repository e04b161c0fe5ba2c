/**
 * zod building blocks for input schemas (configs, environment configs, result files): every check
 * carries a message of the form `expected …` naming the allowed values, so that a loader can turn an
 * issue into `file:line:column: field: expected …, got …`.
 */
import { z } from 'zod';

/** `'a', 'b' or 'c'`: the allowed values of an enum, as error messages list them. */
export function listAllowed(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** An integer in [min, max]. */
export function integer(min: number, max: number = Number.MAX_SAFE_INTEGER, message?: string): z.ZodNumber {
  const error =
    message ?? (max === Number.MAX_SAFE_INTEGER ? `expected an integer ≥ ${min}` : `expected an integer in [${min}, ${max}]`);
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** A positive finite number. */
export function positive(error = 'expected a positive number'): z.ZodNumber {
  return z.number({ error }).positive({ error });
}

/** A strict object whose unknown-key message lists the allowed keys. */
export function strictObject<Shape extends z.ZodRawShape>(shape: Shape, what: string) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (allowed: ${allowed})`
        : `expected ${what}`,
  });
}

/** r_0..r_K as a config writes them: K + 1 entries, r_0 = 0, all finite and ≥ 0. */
export function rewardVector() {
  return z.array(z.number({ error: 'expected a finite number ≥ 0' }).min(0, { error: 'expected a finite number ≥ 0' }), {
    error: 'expected a list of rewards r_0..r_K',
  });
}
