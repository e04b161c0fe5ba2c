/**
 * `eofd schema [--markdown]`: the JSON Schema of a config (for editors and validators), or the
 * docs/config-reference.md; both generated from the zod schema (src/config/json-schema.ts).
 */
import type { Command } from 'commander';
import { configJsonSchema, configReference } from '../../config/json-schema.js';
import { processIo, type CliIo } from '../io.js';

export function schemaCommand(options: { markdown?: boolean }, io: CliIo): number {
  io.stdout.write(options.markdown === true ? configReference() : JSON.stringify(configJsonSchema(), null, 2) + '\n');
  return 0;
}

export function registerSchema(program: Command, io: CliIo = processIo()): void {
  program
    .command('schema')
    .summary('the JSON Schema of a config (editors check and complete configs with it)')
    .description(
      'Print the JSON Schema (draft 2020-12) of one experiment config, generated from the schema `eofd run` validates with ' +
        '(checks JSON Schema cannot state, such as r_0 = 0, are left to eofd run). With --markdown, the config reference ' +
        "of docs/config-reference.md instead. Link it from a YAML config's first line (`# yaml-language-server: $schema=<path>`) or a " +
        'JSON config\'s "$schema" key; the package ships it as configs/eofd.schema.json.',
    )
    .option('--markdown', 'print the config reference (Markdown tables) instead')
    .addHelpText('after', '\nExamples:\n  $ eofd schema > eofd.schema.json\n  $ eofd schema --markdown')
    .action((options: { markdown?: boolean }) => {
      process.exitCode = schemaCommand(options, io);
    });
}
