/**
 * The `eofd` command: a commander program whose subcommands are thin skins over the library.
 * `main` never exits the process; it returns the exit code (bin/eofd.js sets it):
 * 0 done, 1 runtime failure, 2 usage or config error, 130 interrupted.
 */
import { Command, CommanderError } from 'commander';
import { packageInfo } from '../experiment/manifest.js';
import { backend } from '../linalg/simd.js';
import { registerBench } from './commands/bench.js';
import { registerCompletion } from './commands/completion.js';
import { registerExport } from './commands/export.js';
import { registerGrid } from './commands/grid.js';
import { registerInit } from './commands/init.js';
import { registerList } from './commands/list.js';
import { registerMerge } from './commands/merge.js';
import { registerReport } from './commands/report.js';
import { registerReproduce } from './commands/reproduce.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerServePolicy } from './commands/serve-policy.js';
import { registerStatus } from './commands/status.js';
import { registerSweep } from './commands/sweep.js';
import { EXIT, outputFailed, processIo, type CliIo } from './io.js';

export type { CliIo } from './io.js';

const EXAMPLES = `Examples:
  $ eofd run configs/quick.yaml                  # the three paper settings, small (npm start)
  $ eofd run configs/synthetic-k4.yaml --jobs 2  # one full setting, two units at a time
  $ eofd run configs/mnist.yaml --resume         # finish an interrupted run
  $ eofd grid configs/quick.yaml --jobs 4        # the (l, e) search; then run --params <out>/<name>-grid/best.json
  $ eofd sweep configs/mnist.yaml --over params.m=20,78,785  # any key, paired across points
  $ eofd run configs/quick.yaml --shard 0/4      # one quarter of the units (a machine); then eofd merge
  $ eofd report results                          # tables, the paper's claims, figures, report.html
  $ eofd reproduce                               # Section 4 end to end: tune, run, report (configs/paper.yaml)
  $ eofd init && eofd run eofd.yaml              # a commented starter config, then run it
`;

/** commander's error text ("error: …\\n(Did you mean …?)") as one line after the command's name. */
function oneLineError(command: string): (text: string, write: (text: string) => void) => void {
  return (text, write) => {
    const line = text.trim().replace(/\s*\n\s*/g, ' ');
    write(`${command}: ${line} (see '${command} --help')\n`);
  };
}

export function createProgram(io: CliIo = processIo()): Command {
  const program = new Command();
  program
    .name('eofd')
    .description(
      'EOFD-MLogB and OFUL-MLogB, the multinomial logistic bandits of "Efficient Multinomial Logistic ' +
        'Bandit via Frequent Directions": run the paper\'s experiments (Section 4) and report on them.',
    )
    .version(packageInfo().version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print help')
    .addHelpText('before', EXAMPLES)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: oneLineError('eofd'),
    });
  registerRun(program, io);
  registerGrid(program, io);
  registerSweep(program, io);
  registerMerge(program, io);
  registerReport(program, io);
  registerReproduce(program, io);
  registerExport(program, io);
  registerStatus(program, io);
  registerBench(program, io);
  registerList(program, io);
  registerSchema(program, io);
  registerInit(program, io);
  registerCompletion(program, io);
  registerServePolicy(program, io);
  for (const command of program.commands) {
    command.configureOutput({ ...program.configureOutput(), outputError: oneLineError(`eofd ${command.name()}`) });
  }
  return program;
}

/** Parses `argv` (as process.argv: node, script, args…), runs the command, returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  try {
    backend(); // $EOFD_BACKEND, checked before any work
  } catch (error) {
    io.stderr.write(`eofd: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const program = createProgram(io);
  const saved = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(argv);
    const code = Number(process.exitCode ?? 0);
    // Output that could not be written (a full disk) fails a command that would have succeeded.
    return code === EXIT.ok && outputFailed() ? EXIT.failure : code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const err = error instanceof Error ? error : new Error(String(error));
    io.stderr.write(`eofd: ${err.message.split('\n')[0]}\n`);
    if (io.env.EOFD_DEBUG === '1' && err.stack) io.stderr.write(err.stack + '\n');
    return 1;
  } finally {
    process.exitCode = saved;
  }
}
