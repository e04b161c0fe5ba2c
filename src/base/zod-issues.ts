/**
 * A zod issue as the one-line messages of input files say it: the field it is about and
 * `expected …, got <value>` (schemas built from fields.ts carry the `expected …` part). Loaders add
 * the place: `file:line:column` (config/load.ts) or the file (results/read-json.ts).
 */
import type { z } from 'zod';

/** A path into parsed data: keys and list indices. */
export type FieldPath = (string | number)[];

export interface IssueDescription {
  /** The issue's path; for an unknown key, the path of the key itself. */
  field: FieldPath;
  /** true when `field` names a key the data should not have (its place is the key, not a value). */
  atKey: boolean;
  /** The issue's message; an `expected …` message that names no value gets `, got <value>`. */
  detail: string;
}

/**
 * How a value the data lacks is said: `missing; expected …` (configs) or `expected …, got nothing`
 * (result files, traces).
 */
export type AbsentWording = 'missing' | 'got nothing';

/** The field and detail of one issue found in `data` (the value that was validated). */
export function describeIssue(issue: z.core.$ZodIssue, data: unknown, absent: AbsentWording = 'missing'): IssueDescription {
  const atKey = issue.code === 'unrecognized_keys';
  const field: FieldPath = issue.path.map((key) => (typeof key === 'number' ? key : String(key)));
  if (atKey) field.push(issue.keys[0] as string);
  let detail = issue.message;
  if (detail.startsWith('expected ') && !detail.includes(', got ')) {
    const value = valueAt(data, field);
    if (value !== undefined) detail = `${detail}, got ${describeValue(value)}`;
    else detail = absent === 'missing' ? `missing; ${detail}` : `${detail}, got nothing`;
  }
  return { field, atKey, detail };
}

/** The value at `field` in plain data (own properties only), or undefined when there is none. */
export function valueAt(data: unknown, field: readonly (string | number)[]): unknown {
  let value = data;
  for (const key of field) {
    if (value === null || typeof value !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** A short, one-line rendering of an offending value (strings whole, other values cut at 60 characters). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
