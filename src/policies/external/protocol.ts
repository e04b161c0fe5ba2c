/**
 * The process-policy protocol (docs/policies.md "Policies in any language"): eofd and a policy in
 * another process exchange one JSON object per line, eofd writing to the process's stdin and reading
 * its answer from its stdout, one answer per message. Version 1:
 *
 *   eofd → policy                                                      policy → eofd
 *   {"type":"hello","protocol":1,"label",d,K,reward,horizon,trial,     {"type":"ready","protocol":1,"encoding":"json"|"base64"}
 *    seed,seed_int,max_action_norm,params}
 *   {"type":"select","t","count","features"}                           {"action":i,"ms"?}
 *   {"type":"update","t","action","x","outcome"}                       {"ms"?}
 *   {"type":"end","rounds"}                                            {} (then the process exits)
 *
 * Vectors (`features`: the count × d action features, row-major; `x`: the d features of the played
 * action) are sent as the process asked in its `ready`: a JSON array of numbers (JavaScript writes the
 * shortest text that reads back as the same double: exact, −0 aside, which JSON writes as 0), or the
 * base64 of the doubles' little-endian bytes (bit for bit, and faster to read and write). Any answer may be
 * {"error":"…"}: the process failed, and says why. Everything here is pure (no I/O): process-policy.ts
 * sends and checks, serve.ts answers.
 */

/** The protocol version this eofd speaks; a process answering another is refused. */
export const PROTOCOL_VERSION = 1;

/** The per-message time limit when an entry gives none (its `timeout`, seconds). */
export const DEFAULT_MESSAGE_TIMEOUT_S = 60;
/** The longest time limit a timer holds (2³¹ − 1 ms, about 24.8 days), in whole seconds. */
export const MAX_MESSAGE_TIMEOUT_S = 2_000_000;

/** How vectors travel: JSON arrays (the default) or base64 of Float64 little-endian bytes. */
export const ENCODINGS = ['json', 'base64'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** The first message: everything about the problem and the unit that does not change between rounds. */
export interface HelloMessage {
  type: 'hello';
  protocol: number;
  /** The entry's label (its name in results). */
  label: string;
  d: number;
  K: number;
  /** r_0..r_K (r_0 = 0). */
  reward: number[];
  /** T */
  horizon: number;
  /** The trial (0-based). */
  trial: number;
  /** The unit's seed (hex SHA-256, experiment/seeds.ts), and its first 52 bits as an integer. */
  seed: string;
  seed_int: number;
  /** D: the largest action norm of the environment. */
  max_action_norm: number;
  /** The entry's params, as the config gives them. */
  params: Record<string, unknown>;
}

/** `values` as the encoding sends them. */
export function encodeVector(values: Float64Array, encoding: Encoding): number[] | string {
  if (encoding === 'json') return Array.from(values);
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
}

/** A vector of `length` numbers sent as either encoding (what serve.ts reads); throws an Error saying what is wrong. */
export function decodeVector(value: unknown, length: number, what: string): Float64Array {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length !== length * 8) throw new Error(`${what}: expected ${length} doubles (${length * 8} bytes) in base64, got ${bytes.length} bytes`);
    const out = new Float64Array(length);
    new Uint8Array(out.buffer).set(bytes);
    // The bytes are little-endian; so is every machine Node runs on, which os.endianness() confirms.
    return out;
  }
  if (!Array.isArray(value) || value.length !== length || !value.every((v) => typeof v === 'number')) {
    throw new Error(`${what}: expected an array of ${length} numbers or their base64`);
  }
  return Float64Array.from(value as number[]);
}

/** An answer line as an object; throws an Error quoting the line when it is not a JSON object, or when it reports an error. */
export function parseAnswer(line: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`answered with a line that is not JSON: ${quote(line)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`answered with ${quote(line)}, not a JSON object`);
  const answer = value as Record<string, unknown>;
  if (answer.error !== undefined) throw new Error(`reported an error: ${typeof answer.error === 'string' ? answer.error : JSON.stringify(answer.error)}`);
  return answer;
}

/** The answer's action index, checked against the count of actions; throws an Error saying what is wrong. */
export function answeredAction(answer: Record<string, unknown>, count: number): number {
  const action = answer.action;
  if (!(typeof action === 'number' && Number.isInteger(action) && action >= 0 && action < count)) {
    throw new Error(`answered the invalid action ${JSON.stringify(action) ?? 'undefined'} (expected an integer index in 0..${count - 1})`);
  }
  return action;
}

/** The process's own time for a message (its answer's `ms`), or NaN when it gives none. */
export function answeredMs(answer: Record<string, unknown>): number {
  return typeof answer.ms === 'number' && Number.isFinite(answer.ms) && answer.ms >= 0 ? answer.ms : NaN;
}

/** The `ready` answer's encoding; throws an Error for another protocol version or an unknown encoding. */
export function readyEncoding(answer: Record<string, unknown>): Encoding {
  if (answer.protocol !== PROTOCOL_VERSION) {
    throw new Error(`answered the hello with protocol ${JSON.stringify(answer.protocol) ?? 'undefined'}; this eofd speaks protocol ${PROTOCOL_VERSION} (expected {"type":"ready","protocol":${PROTOCOL_VERSION}})`);
  }
  const encoding = answer.encoding ?? 'json';
  if (!(ENCODINGS as readonly unknown[]).includes(encoding)) throw new Error(`asked for the encoding ${JSON.stringify(encoding)}; expected "json" or "base64"`);
  return encoding as Encoding;
}

/** The seed's first 52 bits (13 hex digits) as an integer: exact in a double, and a seed any language takes. */
export function seedInteger(seed: string): number {
  return parseInt(seed.slice(0, 13), 16);
}

/** At most 200 characters of `line`, as JSON. */
export function quote(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
