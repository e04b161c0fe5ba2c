/**
 * The process-policy protocol's pure parts (src/policies/external/protocol.ts) and eofd's own side of
 * it (serve.ts) in-process: vectors cross exactly in both encodings, answers are checked, and the
 * served policy answers a whole unit or an {"error"} for a message it cannot answer.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answeredAction, decodeVector, encodeVector, parseAnswer, readyEncoding, seedInteger } from '../../../src/policies/external/protocol.js';
import { servePolicy } from '../../../src/experiment/serve-policy.js';

describe('vectors', () => {
  it('cross exactly as JSON and as base64 (bit for bit: JSON has no −0), awkward doubles included', () => {
    const values = Float64Array.of(0.1, -0, 5e-324, 1.7976931348623157e308, -2.2250738585072014e-308, 1 / 3, 123456789.12345679);
    const sent = (encoding: 'json' | 'base64') => decodeVector(JSON.parse(JSON.stringify({ v: encodeVector(values, encoding) })).v, values.length, 'x');
    expect(new Uint8Array(sent('base64').buffer)).toEqual(new Uint8Array(values.buffer));
    expect(Array.from(sent('json'))).toEqual(Array.from(values, (v) => (v === 0 ? 0 : v)));
    expect(Object.is(sent('json')[1], 0)).toBe(true);
    expect(() => decodeVector('AAAA', 2, 'x')).toThrow(/x: expected 2 doubles \(16 bytes\) in base64, got 3 bytes/);
    expect(() => decodeVector([1, '2'], 2, 'x')).toThrow(/x: expected an array of 2 numbers or their base64/);
  });
});

describe('answers', () => {
  it('are JSON objects; an action is an integer index; ready names protocol 1', () => {
    expect(parseAnswer('{"action": 2}')).toEqual({ action: 2 });
    expect(() => parseAnswer('hello')).toThrow(/answered with a line that is not JSON: "hello"/);
    expect(() => parseAnswer('[1]')).toThrow(/answered with "\[1\]", not a JSON object/);
    expect(() => parseAnswer('{"error": "no numpy"}')).toThrow(/reported an error: no numpy/);
    expect(answeredAction({ action: 0 }, 3)).toBe(0);
    for (const action of [3, -1, 1.5, '1', null, undefined]) expect(() => answeredAction({ action }, 3), String(action)).toThrow(/answered the invalid action .* \(expected an integer index in 0\.\.2\)/);
    expect(readyEncoding({ protocol: 1 })).toBe('json');
    expect(readyEncoding({ protocol: 1, encoding: 'base64' })).toBe('base64');
    expect(() => readyEncoding({ protocol: 2 })).toThrow(/answered the hello with protocol 2; this eofd speaks protocol 1/);
    expect(() => readyEncoding({ protocol: 1, encoding: 'xml' })).toThrow(/asked for the encoding "xml"/);
    expect(seedInteger('ffffffffffffff00')).toBe(2 ** 52 - 1);
  });
});

/** Sends `messages` to servePolicy(name), returns its answers and exit code. */
async function serve(name: string, messages: object[]): Promise<{ code: number; answers: Record<string, unknown>[] }> {
  const input = new PassThrough();
  let text = '';
  const done = servePolicy(name, input, { write: (t: string) => (text += t) });
  for (const message of messages) input.write(JSON.stringify(message) + '\n');
  input.end();
  const code = await done;
  return { code, answers: text.trim().split('\n').map((line) => JSON.parse(line)) };
}

const hello = { type: 'hello', protocol: 1, label: 'x', d: 2, K: 1, reward: [0, 1], horizon: 3, trial: 0, seed: 'ab'.repeat(32), seed_int: 1, max_action_norm: 1, params: {} };

describe('eofd serve-policy (servePolicy)', () => {
  it('answers a whole unit: ready, an action per select, one line per update, {} at the end', async () => {
    const features = [0.6, -0.8, 0.28, 0.96];
    const { code, answers } = await serve('EOFD-MLogB', [hello, { type: 'select', t: 1, count: 2, features }, { type: 'update', t: 1, action: 0, x: [0.6, -0.8], outcome: 1 }, { type: 'end', rounds: 1 }]);
    expect(code).toBe(0);
    expect(answers[0]).toEqual({ type: 'ready', protocol: 1, encoding: 'base64', name: 'EOFD-MLogB' });
    expect([0, 1]).toContain(answers[1]?.action);
    expect(answers[2]).toEqual({ ms: expect.any(Number) });
    expect(answers[3]).toEqual({});
  });

  it('answers {"error"} and stops at a message it cannot answer', async () => {
    expect((await serve('EOFD-MLogB', [{ type: 'select', t: 1, count: 1, features: [0, 0] }])).answers).toEqual([{ error: 'EOFD-MLogB: expected a hello first, got "select"' }]);
    expect((await serve('EOFD-MLogB', [{ ...hello, protocol: 2 }])).answers[0]?.error).toMatch(/protocol 2; this eofd speaks 1/);
    expect((await serve('OFUL-MLogB', [{ ...hello, params: { m: 3 } }])).answers[0]?.error).toMatch(/OFUL-MLogB does not read m/);
    const bad = await serve('EOFD-MLogB', [hello, { type: 'select', t: 1, count: 2, features: [1, 2, 3] }]);
    expect(bad.code).toBe(1);
    expect(bad.answers[1]?.error).toMatch(/features: expected an array of 4 numbers/);
  });
});
