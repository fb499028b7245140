// Keeps one child process of `npm start` running: when it exits (the operator does on purpose
// after losing its Lease, any of them may crash), it is started again after a back-off that
// doubles up to a ceiling and starts over once a run lasted long enough — with a log line each
// time. Only stop() ends it.
import { spawn, type ChildProcess } from 'node:child_process';
import { stopProcess } from './processes.ts';

export interface SupervisorOptions {
  name: string;
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Each child as it starts (to read its output). */
  onStart?: (child: ChildProcess) => void;
  /** One line per exit and restart. */
  log: (message: string) => void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run at least this long resets the delay. */
  resetAfterMs?: number;
}

export class Supervisor {
  readonly #options: Required<Omit<SupervisorOptions, 'onStart'>> & Pick<SupervisorOptions, 'onStart'>;
  #child: ChildProcess | undefined;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** How many times the child was started again. */
  restarts = 0;

  constructor(options: SupervisorOptions) {
    this.#options = { initialDelayMs: 1_000, maxDelayMs: 30_000, resetAfterMs: 60_000, ...options };
    this.#delayMs = this.#options.initialDelayMs;
  }

  start(): void {
    if (this.#stopped) return;
    const { command, args, env, cwd, name, log } = this.#options;
    const startedAt = Date.now();
    const child = spawn(command, [...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    this.#options.onStart?.(child);
    child.once('exit', (code, signal) => {
      if (this.#stopped) return;
      if (Date.now() - startedAt >= this.#options.resetAfterMs) this.#delayMs = this.#options.initialDelayMs;
      const delay = this.#delayMs;
      this.#delayMs = Math.min(this.#delayMs * 2, this.#options.maxDelayMs);
      this.restarts += 1;
      log(
        `[${name}] exited (${signal ?? code}); starting it again in ${delay / 1000} s (restart ${this.restarts})`,
      );
      this.#timer = setTimeout(() => this.start(), delay);
    });
  }

  /** Stops the child for good (SIGTERM, then SIGKILL) and starts no other. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (this.#child) await stopProcess(this.#child);
  }
}
