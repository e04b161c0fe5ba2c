/**
 * The other side of the protocol (protocol.ts): a registry policy answering over stdin/stdout, as a
 * process policy in any language would (`eofd serve-policy <name>`). A config entry running it plays
 * the same actions as the built-in entry it mirrors, so the protocol is tested end to end.
 */
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { entryParams, type EntryParams } from '../config/schema.js';
import { builtInSpec } from './setup.js';
import type { Policy } from '../policies/policy.js';
import { createPolicy, policyDescriptor, policyKeys } from '../policies/registry.js';
import { decodeVector, PROTOCOL_VERSION, type Encoding, type HelloMessage } from '../policies/external/protocol.js';

export interface ServeOptions {
  /** Entry params under the hello's own (which override them). */
  params?: Readonly<Record<string, unknown>>;
  /** The encoding asked for in `ready`. */
  encoding?: Encoding;
}

/**
 * Answers the messages on `input` with `name`'s decisions until `end` (exit code 0) or a message it
 * cannot answer (it answers {"error"} and returns 1). The spec is the built-in's in an experiment with
 * the default shared params and the hello's problem (setup.ts builtInSpec); a policy that draws is
 * seeded with the hello's seed.
 */
export async function servePolicy(name: string, input: Readable, output: { write(text: string): unknown }, options: ServeOptions = {}): Promise<number> {
  const descriptor = policyDescriptor(name);
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let policy: Policy | null = null;
  let d = 0;
  const send = (answer: Record<string, unknown>): void => void output.write(JSON.stringify(answer) + '\n');
  for await (const line of lines) {
    try {
      const message = JSON.parse(line) as Record<string, unknown>;
      const start = performance.now();
      if (message.type === 'hello') {
        const hello = message as unknown as HelloMessage;
        if (hello.protocol !== PROTOCOL_VERSION) throw new Error(`protocol ${hello.protocol}; this eofd speaks ${PROTOCOL_VERSION}`);
        const params: EntryParams = entryParams({ ...options.params, ...hello.params });
        const keys = policyKeys(descriptor);
        const unread = Object.keys(params).find((key) => !keys.includes(key));
        if (unread !== undefined) throw new Error(`${name} does not read ${unread}; it reads ${keys.join(', ') || 'no params'}`);
        d = hello.d;
        policy = createPolicy(name, builtInSpec(name, params, { d, K: hello.K, reward: hello.reward, D: hello.max_action_norm, horizon: hello.horizon }, hello.seed));
        send({ type: 'ready', protocol: PROTOCOL_VERSION, encoding: options.encoding ?? 'base64', name });
      } else if (policy === null) {
        throw new Error(`expected a hello first, got ${JSON.stringify(message.type)}`);
      } else if (message.type === 'select') {
        const count = message.count as number;
        const features = decodeVector(message.features, count * d, 'features');
        const action = policy.select({ count, d, features }, message.t as number);
        send({ action, ms: performance.now() - start });
      } else if (message.type === 'update') {
        policy.update(decodeVector(message.x, d, 'x'), message.outcome as number);
        send({ ms: performance.now() - start });
      } else if (message.type === 'end') {
        send({});
        lines.close();
        return 0;
      } else {
        throw new Error(`unknown message type ${JSON.stringify(message.type)}`);
      }
    } catch (error) {
      send({ error: `${name}: ${(error as Error).message}` });
      lines.close();
      return 1;
    }
  }
  // stdin closed without `end`: eofd went away.
  return 0;
}
