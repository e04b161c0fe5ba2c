/**
 * SIGINT and SIGTERM for a long command: the first signal aborts `signal` (the runner stops its
 * running units within a round or two, in this thread or on workers, and removes their partial files)
 * and the command exits 130 or 143 with a resume hint; a second signal exits at once.
 */
import { EXIT } from './io.js';

export class Session {
  private readonly controller = new AbortController();
  /** The first signal received, if any. */
  signalled: NodeJS.Signals | null = null;
  private readonly handler: (signal: NodeJS.Signals) => void;

  /** `log` prints one line (above progress bars). */
  constructor(command: string, log: (line: string) => void) {
    this.handler = (signal) => {
      if (this.signalled !== null) {
        log(`eofd ${command}: stopping now (second signal)`);
        process.exit(signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated);
      }
      this.signalled = signal;
      log(`eofd ${command}: ${signal === 'SIGINT' ? 'interrupted' : 'terminated'}; stopping the running units…`);
      // The reason names the signal: a record of the stop can give the exit code (reproduce.json).
      this.controller.abort(signal);
    };
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** 'interrupted' or 'terminated', for messages. */
  get stopWord(): string {
    return this.signalled === 'SIGTERM' ? 'terminated' : 'interrupted';
  }

  /** The exit code of a stopped command. */
  get stopCode(): number {
    return this.signalled === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  }

  close(): void {
    process.removeListener('SIGINT', this.handler);
    process.removeListener('SIGTERM', this.handler);
  }
}
