/**
 * `eofd serve-policy <name> [--params JSON] [--encoding json|base64]`: a registry policy answering
 * eofd's process-policy protocol on stdin/stdout (experiment/serve-policy.ts), for a config entry
 * `{command: [eofd, serve-policy, <name>], label}`: the protocol tested end to end, and a reference
 * for anyone writing the other side in another language (docs/policies.md).
 */
import type { Command } from 'commander';
import { RunError } from '../../base/errors.js';
import { ENCODINGS, type Encoding } from '../../policies/external/protocol.js';
import { servePolicy } from '../../experiment/serve-policy.js';
import { isPolicyName, POLICY_NAMES } from '../../policies/registry.js';
import { processIo, type CliIo } from '../io.js';

interface ServeCliOptions {
  params?: string;
  encoding?: string;
}

export function registerServePolicy(program: Command, io: CliIo = processIo()): void {
  program
    .command('serve-policy')
    .summary("answer eofd's process-policy protocol on stdin/stdout with a built-in policy")
    .description(
      "Answer eofd's process-policy protocol (docs/policies.md) on stdin and stdout with the built-in policy <name>: " +
        'a config entry {command: [eofd, serve-policy, <name>], label: …} then plays what the entry {policy: <name>} plays. ' +
        "The hello's params (the entry's) override --params. Exit codes: 0 ended; 1 a message it could not answer; 2 bad usage.",
    )
    .argument('<name>', `the policy (${POLICY_NAMES.join(', ')})`)
    .option('--params <json>', 'entry params as a JSON object, e.g. {"l":0.5}')
    .option('--encoding <encoding>', `how it asks for vectors: ${ENCODINGS.join(' or ')}`, 'base64')
    .action(async (name: string, options: ServeCliOptions) => {
      if (!isPolicyName(name)) throw new RunError(`unknown policy ${JSON.stringify(name)}; expected one of ${POLICY_NAMES.join(', ')}`, 2);
      if (!(ENCODINGS as readonly string[]).includes(options.encoding ?? 'base64')) throw new RunError(`--encoding ${options.encoding}: expected ${ENCODINGS.join(' or ')}`, 2);
      let params: Record<string, unknown> = {};
      if (options.params !== undefined) {
        try {
          params = JSON.parse(options.params) as Record<string, unknown>;
        } catch {
          throw new RunError(`--params ${options.params}: not JSON`, 2);
        }
      }
      process.exitCode = await servePolicy(name, process.stdin, io.stdout, { params, encoding: (options.encoding ?? 'base64') as Encoding });
    });
}
